#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a connected socket's kernel still holds.
public enum SocketQueue {
    /// Bytes written to the socket that the peer's TCP has not acknowledged
    /// yet (Linux SIOCOUTQ, macOS SO_NWRITE); nil where it cannot be told.
    /// Still answered after a reset: the kernel keeps its sequence numbers,
    /// so what never reached the peer is known even then.
    public static func unacknowledgedBytes(_ fd: Int32) -> Int? {
        var value: Int32 = 0
        #if os(Linux)
        // SIOCOUTQ is TIOCOUTQ for sockets (linux/sockios.h).
        guard ioctl(fd, UInt(TIOCOUTQ), &value) == 0 else { return nil }
        #else
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_NWRITE, &value, &length) == 0 else { return nil }
        #endif
        return Int(value)
    }

    /// Bytes the peer sent that the kernel holds unread (FIONREAD); nil
    /// where it cannot be told.
    public static func unreadBytes(_ fd: Int32) -> Int? {
        var value: Int32 = 0
        guard ioctl(fd, UInt(FIONREAD), &value) == 0 else { return nil }
        return Int(value)
    }

    /// Fixes the socket's send buffer (SO_SNDBUF) so that the kernel counts
    /// `bytes`, which turns off its growing it with the path. Linux doubles
    /// the value it is given (for its own bookkeeping) and reads back the
    /// double; macOS takes it as it is: the value read back after a first
    /// try says which, and a kernel that counted more is asked again for
    /// less. The counted size, or nil if the kernel refused; it may be less
    /// than `bytes` where the system caps it (Linux's net.core.wmem_max).
    @discardableResult
    public static func setSendBuffer(_ fd: Int32, counting bytes: Int) -> Int? {
        guard setSendBufferOption(fd, bytes), let counted = sendBufferSize(fd) else { return nil }
        guard counted > bytes, bytes > 0 else { return counted }
        let less = Int(Int64(bytes) * Int64(bytes) / Int64(counted))
        guard setSendBufferOption(fd, less) else { return counted }
        return sendBufferSize(fd)
    }

    /// The send buffer's size as the kernel counts it (SO_SNDBUF read back).
    public static func sendBufferSize(_ fd: Int32) -> Int? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, &length) == 0 else { return nil }
        return Int(value)
    }

    private static func setSendBufferOption(_ fd: Int32, _ bytes: Int) -> Bool {
        var value = Int32(clamping: bytes)
        return setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
