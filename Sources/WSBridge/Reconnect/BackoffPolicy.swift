/// The numbers behind `--backoff MIN[:MAX[:FACTOR]]` and `--jitter FRACTION`
/// (wspipe(1): RECONNECT AND REPLAY). Defaults: 1s:30s:2 with 20 % jitter.
public struct BackoffPolicy: Equatable, Sendable {
    /// The first delay, before jitter.
    public var minNanos: Int64 = 1_000_000_000
    /// The cap on the delay before jitter.
    public var maxNanos: Int64 = 30_000_000_000
    /// Each delay is this many times the previous one, up to `maxNanos`.
    public var factor: Double = 2
    /// Fraction of the delay by which it may be moved up or down at random, so
    /// many clients dropped at once do not come back at the same instant.
    public var jitter: Double = 0.2

    public init() {}
}
