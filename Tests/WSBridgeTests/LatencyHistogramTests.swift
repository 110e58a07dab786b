import XCTest
@testable import WSBridge
@testable import WSMessages

/// Reply latencies (--stats reply_ms, -w time_reply_*): percentiles within
/// 1% from microseconds to days, in memory that does not grow with the count.
final class LatencyHistogramTests: XCTestCase {
    func testEmpty() {
        let histogram = LatencyHistogram()
        XCTAssertTrue(histogram.isEmpty)
        XCTAssertEqual(histogram.percentileNanos(99), 0)
        XCTAssertEqual(histogram.maxNanos, 0)
    }

    func testPercentilesOfKnownValues() {
        var histogram = LatencyHistogram()
        // 1..100 ms, one each.
        for ms in 1 ... 100 { histogram.record(nanos: Int64(ms) * 1_000_000) }
        XCTAssertEqual(histogram.count, 100)
        XCTAssertEqual(histogram.maxNanos, 100_000_000)
        for (percentile, expected) in [(50.0, 50.0), (90.0, 90.0), (99.0, 99.0), (100.0, 100.0)] {
            let value = Double(histogram.percentileNanos(percentile)) / 1e6
            XCTAssertEqual(value, expected, accuracy: expected * 0.01, "p\(percentile)")
            XCTAssertGreaterThanOrEqual(value, expected)   // the bucket's highest value, never below
        }
    }

    func testEveryBucketKeepsItsValueWithinOnePercent() {
        var micros: Int64 = 1
        while micros < LatencyHistogram.largestMicros {
            let bucket = LatencyHistogram.bucket(of: micros)
            XCTAssertLessThan(bucket, LatencyHistogram.bucketCount)
            let highest = LatencyHistogram.highestMicros(inBucket: bucket)
            XCTAssertGreaterThanOrEqual(highest, micros)
            XCTAssertLessThanOrEqual(Double(highest - micros), max(1, Double(micros) * 0.01), "\(micros) µs")
            XCTAssertEqual(LatencyHistogram.bucket(of: highest), bucket)
            micros = micros * 3 / 2 + 1
        }
        XCTAssertEqual(LatencyHistogram.bucket(of: LatencyHistogram.largestMicros - 1), LatencyHistogram.bucketCount - 1)
    }

    func testMemoryStaysTheSameOverAMillionReplies() {
        var histogram = LatencyHistogram()
        histogram.record(nanos: 5_000)
        let size = Mirror(reflecting: histogram).children.compactMap { $0.value as? [UInt64] }.first?.count
        var seed: UInt64 = 42
        for _ in 0 ..< 1_000_000 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            histogram.record(nanos: Int64(seed >> 40))   // up to ~16 ms
        }
        XCTAssertEqual(histogram.count, 1_000_001)
        XCTAssertEqual(Mirror(reflecting: histogram).children.compactMap { $0.value as? [UInt64] }.first?.count, size)
        XCTAssertEqual(size, LatencyHistogram.bucketCount)
        XCTAssertLessThanOrEqual(histogram.percentileNanos(99), histogram.maxNanos)
    }

    func testOutOfRangeAndMerge() {
        var a = LatencyHistogram()
        a.record(nanos: -5)
        a.record(nanos: Int64.max)
        XCTAssertEqual(a.count, 2)
        XCTAssertEqual(a.percentileNanos(50), 0 + 999)
        XCTAssertEqual(a.maxNanos, Int64.max)
        var b = LatencyHistogram()
        for _ in 0 ..< 98 { b.record(nanos: 2_000_000) }
        b.merge(a)
        XCTAssertEqual(b.count, 100)
        XCTAssertEqual(Double(b.percentileNanos(50)) / 1e6, 2, accuracy: 0.02)
        XCTAssertEqual(b.maxNanos, Int64.max)
    }

    func testJSONAndSummary() {
        var histogram = LatencyHistogram()
        histogram.record(nanos: 12_345_678)
        XCTAssertEqual(String(decoding: histogram.jsonObject(), as: UTF8.self),
                       #"{"count":1,"p50":12.345,"p90":12.345,"p99":12.345,"max":12.345}"#)
        XCTAssertEqual(histogram.summary, "p50 12.3 ms, p90 12.3 ms, p99 12.3 ms, max 12.3 ms")
        XCTAssertEqual(LatencyHistogram.milliseconds(250_000_000), "250 ms")
        var stats = SessionStats()
        XCTAssertFalse(String(decoding: stats.jsonLine(), as: UTF8.self).contains("reply_ms"))
        stats.replyLatency = histogram
        XCTAssertTrue(String(decoding: stats.jsonLine(), as: UTF8.self)
            .contains(#""reply_ms":{"count":1,"p50":12.345,"p90":12.345,"p99":12.345,"max":12.345}"#))
    }
}
