/// What to do after a `Disconnect`.
public enum RetryVerdict: Equatable, Sendable {
    /// Reconnect after the next backoff delay.
    case retry
    /// The session ended normally: exit 0, no reconnect.
    case finished
    /// Give up at once with this exit status.
    case fatal(ExitStatus)
}
