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
}
