/// `--send-timeout` (wspipe(1): OPTIONS, Server mode): tells when a client whose unsent output went
/// above the high water has let it sit without shrinking for too long.
///
/// The channel only reports a complete drain, so the session looks at the
/// output size now and then; any shrink since the last look counts as
/// progress and restarts the clock. Looking every eighth of the timeout keeps
/// the disconnect within an eighth of the timeout after the last progress.
struct SendStall {
    let timeoutNanos: Int64
    /// Output size at the last look.
    private(set) var lastOutput: Int
    /// When the output last shrank (or the stall began).
    private(set) var lastProgressNanos: Int64

    /// Never look more often than this, whatever the timeout.
    static let minimumIntervalNanos: Int64 = 1_000_000

    init(timeoutNanos: Int64, output: Int, now: Int64) {
        self.timeoutNanos = timeoutNanos
        self.lastOutput = output
        self.lastProgressNanos = now
    }

    /// Nanoseconds until the first look.
    var firstIntervalNanos: Int64 { interval(remaining: timeoutNanos) }

    /// A look at the output: the nanoseconds to wait before the next look, or
    /// nil when the output has not shrunk for the whole timeout.
    mutating func check(output: Int, now: Int64) -> Int64? {
        if output < lastOutput { lastProgressNanos = now }
        lastOutput = output
        let remaining = lastProgressNanos + timeoutNanos - now
        guard remaining > 0 else { return nil }
        return interval(remaining: remaining)
    }

    private func interval(remaining: Int64) -> Int64 {
        max(Self.minimumIntervalNanos, min(timeoutNanos / 8, remaining))
    }
}
