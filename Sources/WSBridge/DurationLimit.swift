/// The longest time wspipe takes from a flag or a file: 8760 hours (a
/// year). Every duration flag, a --rate's interval, a --replay file's
/// `t_ms` and the length of its playback are checked against it before the
/// run starts, so that no deadline (now plus a duration, or a sum of a
/// replay's steps) can overflow a 64-bit count of nanoseconds (292 years):
/// a number too large is a clear error, never a trap.
public enum DurationLimit {
    public static let maxNanos: Int64 = 8760 * 3_600_000_000_000
    public static let maxMillis: Int64 = maxNanos / 1_000_000
    /// How users write it.
    public static let text = "8760h (a year)"

    /// `a + b`, at most `maxNanos` (both at least 0).
    static func sum(_ a: Int64, _ b: Int64) -> Int64 {
        let (total, overflow) = a.addingReportingOverflow(b)
        return overflow || total > maxNanos ? maxNanos + 1 : total
    }
}
