import WSBridge

/// `--backoff MIN[:MAX[:FACTOR]]` (wspipe(1): RECONNECT AND REPLAY): the first reconnect delay, its
/// ceiling, and what each failure multiplies it by.
struct BackoffValue: Equatable {
    var minNanos: Int64
    var maxNanos: Int64
    var factor: Double

    /// Parses `value`; omitted parts are those of the flag's default in the
    /// table ("1s:30s:2"). MIN must be greater
    /// than zero (a zero delay would retry in a busy loop), MAX at least MIN
    /// (also when MAX is the default: "--backoff 45s" is refused rather than
    /// silently capped), FACTOR at least 1 (delays never shrink).
    static func parse(_ long: String, _ value: String) throws(UsageError) -> BackoffValue {
        let given = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let defaults = (FlagTable.flag(long: long)?.defaultValue ?? "")
            .split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard given.count <= 3 else { throw .invalidBackoff(long, value) }
        let parts = given + defaults.dropFirst(given.count)
        guard parts.count == 3, let min = DurationParser.nanos(parts[0]), let max = DurationParser.nanos(parts[1]),
              let factor = FlagValue.decimal(parts[2]) else {
            throw .invalidBackoff(long, value)
        }
        guard max <= DurationLimit.maxNanos else {
            throw UsageError("--\(long): MAX is longer than \(DurationLimit.text), the longest duration wspipe takes (got '\(value)')")
        }
        let result = BackoffValue(minNanos: min, maxNanos: max, factor: factor)
        guard result.minNanos > 0 else {
            throw UsageError("--\(long): MIN must be greater than 0 (got '\(value)')")
        }
        guard result.maxNanos >= result.minNanos else {
            let note = given.count == 1 ? "; MAX defaults to \(parts[1])" : ""
            throw UsageError("--\(long): MAX must be at least MIN (got '\(value)'\(note))")
        }
        guard result.factor >= 1 else {
            throw UsageError("--\(long): FACTOR must be at least 1 (got '\(value)')")
        }
        return result
    }
}
