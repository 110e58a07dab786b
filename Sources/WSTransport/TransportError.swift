#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Error from a system call or TLS, with a message ready for the user:
/// "connect to 127.0.0.1:9: Connection refused".
public struct TransportError: Error, CustomStringConvertible {
    /// The whole user-facing message (without the "wspipe: " prefix).
    public var message: String
    /// The errno behind the failure, when a system call failed.
    public var errno: Int32?
    public var description: String { message }

    public init(_ message: String, errno: Int32? = nil) {
        self.message = message
        self.errno = errno
    }

    /// The one helper every failed POSIX call goes through: names what failed
    /// (`what`, e.g. "connect to 127.0.0.1:9" or "socket") and the strerror text.
    static func posix(_ what: String, errno code: Int32) -> TransportError {
        TransportError("\(what): \(errnoText(code))", errno: code)
    }

    /// Same as `posix(_:errno:)` with the current errno.
    static func posix(_ what: String) -> TransportError {
        posix(what, errno: currentErrno())
    }
}

/// errno, read through a function so call sites don't collide with the
/// `errno` property of TransportError.
@inline(__always) func currentErrno() -> Int32 {
    errno
}
