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

    /// Fixes the socket's send buffer (SO_SNDBUF; Linux doubles the value
    /// for its own bookkeeping), which turns off the kernel's growing it
    /// with the path. Best effort: false if refused.
    @discardableResult
    public static func setSendBuffer(_ fd: Int32, bytes: Int) -> Bool {
        var value = Int32(clamping: bytes)
        return setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)) == 0
    }
}
