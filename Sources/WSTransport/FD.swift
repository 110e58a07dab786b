#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw fd I/O for everything above the transport: stdin, stdout, routes,
/// stderr, small files. Every call that a signal can interrupt goes through
/// `retryingEINTR`, the one place that retries EINTR.
///
/// On a blocking fd (tty, regular file) read/write simply block, which is what
/// we want there: poll(2) reports such fds as always ready.
public enum FD {
    /// One read(2). `into` must not be empty (a zero-byte read would look like EOF).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        let (n, e) = retryingEINTR { sysRead(fd, buffer.baseAddress, buffer.count) }
        if n > 0 { return .bytes(n) }
        if n == 0 { return .eof }
        return failure("read", e)
    }

    /// One write(2); may write less than `bytes.count`.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        if bytes.isEmpty { return .bytes(0) }
        let (n, e) = retryingEINTR { sysWrite(fd, bytes.baseAddress, bytes.count) }
        if n >= 0 { return .bytes(n) }
        return failure("write", e)
    }

    /// One writev(2) of two pieces, `first` then `second`; may write less.
    public static func write(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult {
        var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count))
        let (n, e) = withUnsafeBytes(of: &vectors) { v in
            retryingEINTR { sysWritev(fd, v.baseAddress!.assumingMemoryBound(to: iovec.self), 2) }
        }
        if n >= 0 { return .bytes(n) }
        return failure("writev", e)
    }

    /// Blocking: writes every byte, waiting in poll(2) while a non-blocking
    /// fd (a pipe made so for the loop) is full. Nil when all was written.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOError? {
        var done = 0
        while done < bytes.count {
            switch write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...])) {
            case .bytes(let n): done += n
            case .wouldBlock: waitUntilReady(fd, .write)
            case .eof: return IOError(call: "write", errno: EPIPE)   // write never reports EOF
            case .error(let error): return error
            }
        }
        return nil
    }

    /// Blocking: reads until EOF, waiting in poll(2) while a non-blocking fd is empty.
    public static func readAll(_ fd: Int32) -> Result<[UInt8], IOError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            switch chunk.withUnsafeMutableBytes({ read(fd, into: $0) }) {
            case .bytes(let n): bytes.append(contentsOf: chunk[0..<n])
            case .wouldBlock: waitUntilReady(fd, .read)
            case .eof: return .success(bytes)
            case .error(let error): return .failure(error)
            }
        }
    }

    /// Blocks in poll(2) until fd is ready in `direction`, or reports an
    /// error or hang-up (which the next read or write then turns into its result).
    public static func waitUntilReady(_ fd: Int32, _ direction: EventLoop.Interest) {
        var p = pollfd(fd: fd, events: direction.contains(.write) ? Int16(POLLOUT) : Int16(POLLIN), revents: 0)
        _ = retryingEINTR { Int(poll(&p, 1, -1)) }
    }

    /// open(2) with O_CLOEXEC added, so no command route inherits the fd.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Result<Int32, IOError> {
        let (fd, e) = retryingEINTR { Int(sysOpen(path, flags | O_CLOEXEC, mode)) }
        if fd >= 0 { return .success(Int32(fd)) }
        return .failure(IOError(call: "open", errno: e))
    }

    public static func close(_ fd: Int32) {
        sysClose(fd)
    }

    /// Maps a failed call's errno to an IOResult; shared with the socket streams
    /// so every byte stream reports would-block and EPIPE the same way.
    static func failure(_ call: String, _ e: Int32) -> IOResult {
        if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
        return .error(IOError(call: call, errno: e))
    }

    /// Runs `call` again while a signal interrupts it (EINTR; SignalWatcher
    /// installs its handlers with SA_RESTART, but poll(2) and non-restartable
    /// calls still see it). Returns the result and, when negative, errno.
    @inline(__always)
    static func retryingEINTR(_ call: () -> Int) -> (result: Int, errno: Int32) {
        while true {
            let n = call()
            if n >= 0 { return (n, 0) }
            let e = currentErrno()
            if e != EINTR { return (n, e) }
        }
    }
}
