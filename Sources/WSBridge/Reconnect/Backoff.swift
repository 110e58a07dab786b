/// Delays between reconnection attempts: base = min(MIN × FACTOR^n, MAX) where n
/// is the number of delays handed out since the last reset (0 for the first),
/// then jittered uniformly within [base × (1 − jitter), base × (1 + jitter)].
///
/// The result is rounded to the nearest nanosecond and never negative (a jitter
/// above 1 could otherwise go below zero). Once the base reaches MAX it stops
/// being multiplied, so any number of failures cannot overflow.
public struct Backoff {
    public let policy: BackoffPolicy
    /// Uniform in 0..<1; injected so tests can fix the jitter.
    private let random: () -> Double
    /// The base for the next delay: MIN × FACTOR^failures, or MAX once reached.
    private var nextBase: Double
    /// Delays handed out since the last reset.
    public private(set) var failures: Int = 0

    public init(policy: BackoffPolicy, random: @escaping () -> Double = { Double.random(in: 0..<1) }) {
        self.policy = policy
        self.random = random
        self.nextBase = Double(policy.minNanos)
    }

    /// The delay before the next attempt, in nanoseconds; counts one failure.
    public mutating func nextDelayNanos() -> Int64 {
        let cap = Double(policy.maxNanos)
        // min() with a NaN base (0 × ∞) would keep the NaN: treat it as the cap.
        let base = nextBase < cap ? nextBase : cap
        if nextBase < cap {
            nextBase *= policy.factor
        }
        failures &+= 1

        let jitter = policy.jitter
        var delay = base
        if jitter != 0 {
            delay = base * (1 - jitter + 2 * jitter * random())
        }
        return Backoff.nanos(delay)
    }

    /// After a successful connection: the next delay is MIN again (wspipe(1): RECONNECT AND REPLAY).
    public mutating func reset() {
        failures = 0
        nextBase = Double(policy.minNanos)
    }

    /// Rounded to a whole nanosecond, clamped to 0...Int64.max (NaN becomes 0).
    private static func nanos(_ value: Double) -> Int64 {
        guard value > 0 else { return 0 }
        // 2^63 is the first Double that does not fit in Int64.
        guard value < 9_223_372_036_854_775_808.0 else { return Int64.max }
        return Int64(value.rounded())
    }
}
