/// Reply latencies (wspipe(1): --stats reply_ms, -w time_reply_*), counted
/// in the manner of an HDR histogram: values in microseconds go into
/// buckets whose width grows with the value, so that every value is kept to
/// within 1% (two significant digits), in a fixed array whatever the number
/// of replies: 4,480 counters cover 1 µs to 2^41 µs (25 days), 35 KiB, made
/// at the first reply. The maximum is kept exactly.
///
/// Layout: values below 256 µs have a bucket each; above, each power of two
/// is cut into 128 equal buckets (a value with bit width 8 + e lands in
/// bucket 256 + (e - 1) × 128 + (its top 8 bits - 128)).
public struct LatencyHistogram: Equatable, Sendable {
    private var counts: [UInt64] = []
    public private(set) var count = 0
    public private(set) var maxNanos: Int64 = 0

    static let linear = 256
    static let perPowerOfTwo = 128
    static let largestMicros: Int64 = 1 << 41
    static let bucketCount = 256 + 33 * 128

    public init() {}

    public var isEmpty: Bool { count == 0 }

    /// Counts one latency (negative counts as 0).
    public mutating func record(nanos: Int64) {
        if counts.isEmpty { counts = Array(repeating: 0, count: Self.bucketCount) }
        let clamped = max(0, nanos)
        counts[Self.bucket(of: min(clamped / 1000, Self.largestMicros - 1))] += 1
        count += 1
        maxNanos = max(maxNanos, clamped)
    }

    /// Adds another histogram's counts (a run of --repeat to the whole).
    public mutating func merge(_ other: LatencyHistogram) {
        guard !other.counts.isEmpty else { return }
        if counts.isEmpty { counts = Array(repeating: 0, count: Self.bucketCount) }
        for index in counts.indices { counts[index] += other.counts[index] }
        count += other.count
        maxNanos = max(maxNanos, other.maxNanos)
    }

    /// The latency that `percentile` percent of the replies did not exceed
    /// (the highest value of its bucket, never above the maximum); 0 when
    /// nothing was counted.
    public func percentileNanos(_ percentile: Double) -> Int64 {
        guard count > 0 else { return 0 }
        let wanted = max(1, UInt64((percentile / 100 * Double(count)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, bucketCount) in counts.enumerated() where bucketCount > 0 {
            seen += bucketCount
            if seen >= wanted { return min(Self.highestMicros(inBucket: index) * 1000 + 999, maxNanos) }
        }
        return maxNanos
    }

    static func bucket(of micros: Int64) -> Int {
        if micros < Int64(linear) { return Int(micros) }
        let width = Int64.bitWidth - micros.leadingZeroBitCount
        let shift = width - 8
        let top = Int(micros >> Int64(shift))
        return linear + (shift - 1) * perPowerOfTwo + (top - perPowerOfTwo)
    }

    static func highestMicros(inBucket index: Int) -> Int64 {
        if index < linear { return Int64(index) }
        let shift = (index - linear) / perPowerOfTwo + 1
        let top = Int64((index - linear) % perPowerOfTwo + perPowerOfTwo)
        return ((top + 1) << Int64(shift)) - 1
    }

    /// "p50 1.2 ms, p90 3.4 ms, p99 8.0 ms, max 9.1 ms" for a person.
    public var summary: String {
        [("p50", percentileNanos(50)), ("p90", percentileNanos(90)), ("p99", percentileNanos(99)), ("max", maxNanos)]
            .map { "\($0.0) \(Self.milliseconds($0.1))" }.joined(separator: ", ")
    }

    /// Milliseconds with one decimal below 100 ms, whole above ("12.3 ms", "250 ms").
    public static func milliseconds(_ nanos: Int64) -> String {
        let tenths = (max(0, nanos) + 50_000) / 100_000
        if tenths >= 1000 { return "\(tenths / 10) ms" }
        return "\(tenths / 10).\(tenths % 10) ms"
    }
}
