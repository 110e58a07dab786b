@testable import WSBridge

extension BackoffPolicy {
    /// The delays of the lifecycle tests: 1s:30s:2 (the flag table's
    /// --backoff default) without jitter, so each delay is exact.
    static var withoutJitter: BackoffPolicy {
        var policy = BackoffPolicy()
        policy.minNanos = 1_000_000_000
        policy.maxNanos = 30_000_000_000
        policy.factor = 2
        return policy
    }
}
