#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A signal by name, so that the modules above need not import the C library
/// for its number.
public struct Signal: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    public static let interrupt = Signal(rawValue: SIGINT)
    public static let terminate = Signal(rawValue: SIGTERM)
    public static let kill = Signal(rawValue: SIGKILL)
    public static let hangup = Signal(rawValue: SIGHUP)
    /// SIGCHLD: a child exited (or stopped).
    public static let childExited = Signal(rawValue: SIGCHLD)
    /// SIGWINCH: the terminal changed size.
    public static let windowChanged = Signal(rawValue: SIGWINCH)

    /// "SIGTERM", or "signal N" for one without a name here.
    public var description: String {
        switch self {
        case .interrupt: return "SIGINT"
        case .terminate: return "SIGTERM"
        case .kill: return "SIGKILL"
        case .hangup: return "SIGHUP"
        case .childExited: return "SIGCHLD"
        case .windowChanged: return "SIGWINCH"
        default: return "signal \(rawValue)"
        }
    }
}
