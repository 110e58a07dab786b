#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Non-blocking-aware raw fd read/write with EINTR retry.
///
/// On a blocking fd (tty, regular file) the calls simply block, which is what
/// we want there: poll(2) reports such fds as always ready.
public enum FD {
    /// One read(2). `into` must not be empty (a zero-byte read would look like EOF).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = sysRead(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .eof }
            let e = currentErrno()
            if e == EINTR { continue }
            return failure("read", e)
        }
    }

    /// One write(2); may write less than `bytes.count`.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        if bytes.isEmpty { return .bytes(0) }
        while true {
            let n = sysWrite(fd, bytes.baseAddress, bytes.count)
            if n >= 0 { return .bytes(n) }
            let e = currentErrno()
            if e == EINTR { continue }
            return failure("write", e)
        }
    }

    /// Maps a failed call's errno to an IOResult; shared with the socket streams
    /// so every byte stream reports would-block and EPIPE the same way.
    static func failure(_ call: String, _ e: Int32) -> IOResult {
        if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
        return .error(IOError(call: call, errno: e))
    }
}
