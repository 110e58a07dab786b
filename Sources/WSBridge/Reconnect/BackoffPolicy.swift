/// The numbers behind `--backoff MIN[:MAX[:FACTOR]]` and `--jitter FRACTION`
/// (wspipe(1): RECONNECT AND REPLAY, where the defaults are; the flag
/// table holds them and `Plan` sets them here).
public struct BackoffPolicy: Equatable, Sendable {
    /// The first delay, before jitter.
    public var minNanos: Int64 = 0
    /// The cap on the delay before jitter.
    public var maxNanos: Int64 = 0
    /// Each delay is this many times the previous one, up to `maxNanos`.
    public var factor: Double = 0
    /// Fraction of the delay by which it may be moved up or down at random, so
    /// many clients dropped at once do not come back at the same instant.
    public var jitter: Double = 0

    public init() {}
}
