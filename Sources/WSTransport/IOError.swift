#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why a read or write failed: the call that failed and its errno, or
/// OpenSSL's reason for a TLS failure that has no errno.
///
/// `description` is the text users see ("read: Connection reset by peer",
/// "TLS read: decryption failed or bad record mac"); a write to a peer that
/// is gone (EPIPE, or a TLS peer that closed) is just "EPIPE", the quiet end
/// callers test with `isBrokenPipe`.
public struct IOError: Error, Equatable, CustomStringConvertible {
    /// The failed call as users know it: "read", "write", "send", "TLS read", "TLS write".
    public var call: String
    /// The errno behind the failure; nil for TLS protocol errors.
    public var errno: Int32?
    /// OpenSSL's reason when there is no errno ("protocol error" when OpenSSL gave none).
    public var message: String?

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
        self.message = nil
    }

    public init(call: String, message: String) {
        self.call = call
        self.errno = nil
        self.message = message
    }

    /// The peer is gone on the write side (EPIPE): the end of a route's
    /// reader or of a connection, not worth more than a quiet stop.
    public var isBrokenPipe: Bool { errno == EPIPE }

    /// The peer reset the connection (ECONNRESET): it went away without a close.
    public var isConnectionReset: Bool { errno == ECONNRESET }

    /// No such file or directory (ENOENT).
    public var isNotFound: Bool { errno == ENOENT }

    /// No space left on the device (ENOSPC).
    public var isDiskFull: Bool { errno == ENOSPC }

    /// The fd is not open (EBADF).
    public var isBadDescriptor: Bool { errno == EBADF }

    /// What went wrong without the call's name: the strerror text or OpenSSL's reason.
    public var reason: String {
        if let e = errno { return errnoText(e) }
        return message ?? "unknown error"
    }

    public var description: String {
        if isBrokenPipe { return "EPIPE" }
        return "\(call): \(reason)"
    }
}
