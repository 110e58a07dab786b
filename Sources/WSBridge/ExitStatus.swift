/// Exit statuses (wspipe(1): EXIT STATUS). When several apply, the most serious wins:
/// interrupted, then connection problems, then a failed check, then rejected input.
public enum ExitStatus: Int32, Sendable {
    case success = 0
    case runtimeError = 1
    case usage = 2
    case connectFailed = 3
    case handshakeRejected = 4
    case protocolViolation = 5
    case inputRejected = 6
    /// The run ended because the server closed with a code other than
    /// 1000/1001, or refused every attempt that way.
    case closedWithError = 7
    /// A check failed (--check, --max-reply-p99): the server answered
    /// otherwise than the recording says, or too slowly.
    case checkFailed = 8
    case interrupted = 130
    /// SIGHUP (the terminal of the interactive mode went away): 128 + 1.
    case hangup = 129
    /// SIGTERM, by the shell convention 128 + 15.
    case terminated = 143

    var severity: Int {
        switch self {
        case .success: return 0
        case .inputRejected: return 1
        case .runtimeError: return 2
        // A check that could not run (the connection failed) says so rather than "failed".
        case .checkFailed: return 3
        case .connectFailed, .handshakeRejected, .protocolViolation, .closedWithError: return 4
        case .usage: return 5
        case .interrupted, .terminated, .hangup: return 6
        }
    }

    /// The more serious of two statuses.
    func combined(with other: ExitStatus) -> ExitStatus {
        other.severity > severity ? other : self
    }
}
