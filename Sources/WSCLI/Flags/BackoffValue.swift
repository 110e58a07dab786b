/// `--backoff MIN[:MAX[:FACTOR]]` (wspipe(1): RECONNECT AND REPLAY): the first reconnect delay, its
/// ceiling, and what each failure multiplies it by.
struct BackoffValue: Equatable {
    var minNanos: Int64
    var maxNanos: Int64
    var factor: Double

    /// The parts `--help` shows as the default; `Options()` holds the same
    /// values as numbers (a test keeps the two equal).
    static let defaultMin = "1s"
    static let defaultMax = "30s"
    static let defaultFactor = "2"
    static var defaultText: String { "\(defaultMin):\(defaultMax):\(defaultFactor)" }

    /// Parses `value`; omitted parts keep their defaults. MIN must be greater
    /// than zero (a zero delay would retry in a busy loop), MAX at least MIN
    /// (also when MAX is the default: "--backoff 45s" is refused rather than
    /// silently capped), FACTOR at least 1 (delays never shrink).
    static func parse(_ long: String, _ value: String) throws(UsageError) -> BackoffValue {
        let defaults = Options()
        var result = BackoffValue(minNanos: defaults.backoffMinNanos, maxNanos: defaults.backoffMaxNanos,
                                  factor: defaults.backoffFactor)
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= 3, let min = DurationParser.nanos(parts[0]) else {
            throw .invalidBackoff(long, value)
        }
        result.minNanos = min
        if parts.count >= 2 {
            guard let max = DurationParser.nanos(parts[1]) else { throw .invalidBackoff(long, value) }
            result.maxNanos = max
        }
        if parts.count == 3 {
            guard let factor = FlagValue.decimal(parts[2]) else { throw .invalidBackoff(long, value) }
            result.factor = factor
        }
        guard result.minNanos > 0 else {
            throw UsageError("--\(long): MIN must be greater than 0 (got '\(value)')")
        }
        guard result.maxNanos >= result.minNanos else {
            let note = parts.count == 1 ? "; MAX defaults to \(defaultMax)" : ""
            throw UsageError("--\(long): MAX must be at least MIN (got '\(value)'\(note))")
        }
        guard result.factor >= 1 else {
            throw UsageError("--\(long): FACTOR must be at least 1 (got '\(value)')")
        }
        return result
    }
}
