import XCTest
@testable import WSBridge

/// Backoff delays (wspipe(1): RECONNECT AND REPLAY --backoff/--jitter) with a fixed random source.
final class BackoffTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    private func policy(min: Int64 = 1_000_000_000, max: Int64 = 30_000_000_000,
                        factor: Double = 2, jitter: Double = 0) -> BackoffPolicy {
        var policy = BackoffPolicy()
        policy.minNanos = min
        policy.maxNanos = max
        policy.factor = factor
        policy.jitter = jitter
        return policy
    }

    private func delays(_ backoff: inout Backoff, _ count: Int) -> [Int64] {
        (0 ..< count).map { _ in backoff.nextDelayNanos() }
    }

    func testDoublingCappedAtMax() {
        var backoff = Backoff(policy: policy(), random: { 0.5 })
        XCTAssertEqual(backoff.failures, 0)
        XCTAssertEqual(delays(&backoff, 8),
                       [1, 2, 4, 8, 16, 30, 30, 30].map { $0 * second })
        XCTAssertEqual(backoff.failures, 8)
    }

    func testResetStartsAgainAtMin() {
        var backoff = Backoff(policy: policy(), random: { 0.5 })
        _ = delays(&backoff, 7)
        backoff.reset()
        XCTAssertEqual(backoff.failures, 0)
        XCTAssertEqual(delays(&backoff, 3), [1, 2, 4].map { $0 * second })
        XCTAssertEqual(backoff.failures, 3)
    }

    func testFactorOneAndAHalf() {
        var backoff = Backoff(policy: policy(min: 2 * second, max: 10 * second, factor: 1.5))
        XCTAssertEqual(delays(&backoff, 6),
                       [2_000_000_000, 3_000_000_000, 4_500_000_000, 6_750_000_000,
                        10_000_000_000, 10_000_000_000])
    }

    func testFractionalNanosecondsRoundToNearest() {
        // 3, 4.5, 6.75, 10.125, 15.1875 ns.
        var backoff = Backoff(policy: policy(min: 3, max: 1_000, factor: 1.5))
        XCTAssertEqual(delays(&backoff, 5), [3, 5, 7, 10, 15])
    }

    func testMinAboveMaxGivesMax() {
        var backoff = Backoff(policy: policy(min: 5 * second, max: 2 * second))
        XCTAssertEqual(delays(&backoff, 3), [2, 2, 2].map { $0 * second })
    }

    func testJitterExtremesOfTheRandomSource() {
        var low = Backoff(policy: policy(jitter: 0.2), random: { 0 })
        XCTAssertEqual(delays(&low, 3), [800_000_000, 1_600_000_000, 3_200_000_000])
        var middle = Backoff(policy: policy(jitter: 0.2), random: { 0.5 })
        XCTAssertEqual(delays(&middle, 2), [second, 2 * second])
        var high = Backoff(policy: policy(jitter: 0.2), random: { 0.75 })
        XCTAssertEqual(delays(&high, 2), [1_100_000_000, 2_200_000_000])
    }

    func testJitterStaysWithinBoundsOverManyDraws() {
        // A linear congruential generator: deterministic, spread over 0..<1.
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        let random: () -> Double = {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(UInt64(1) << 53)
        }
        var backoff = Backoff(policy: policy(jitter: 0.3), random: random)
        var sawLow = false, sawHigh = false
        for round in 0 ..< 2_000 {
            if round % 10 == 0 { backoff.reset() }
            let n = backoff.failures
            let base = Double(min(second << Int64(n), 30 * second))
            let delay = Double(backoff.nextDelayNanos())
            XCTAssertGreaterThanOrEqual(delay, (base * 0.7).rounded(.down), "draw \(round)")
            XCTAssertLessThanOrEqual(delay, (base * 1.3).rounded(.up), "draw \(round)")
            if delay < base * 0.75 { sawLow = true }
            if delay > base * 1.25 { sawHigh = true }
        }
        // The spread really uses both ends of the interval.
        XCTAssertTrue(sawLow)
        XCTAssertTrue(sawHigh)
    }

    func testJitterAboveOneIsClampedAtZero() {
        var backoff = Backoff(policy: policy(jitter: 3), random: { 0 })
        XCTAssertEqual(backoff.nextDelayNanos(), 0)
    }

    func testNoOverflowAfterManyFailures() {
        var backoff = Backoff(policy: policy(jitter: 0.2), random: { 0.999_999 })
        var last: Int64 = 0
        for _ in 0 ..< 1_000 { last = backoff.nextDelayNanos() }
        XCTAssertEqual(backoff.failures, 1_000)
        XCTAssertGreaterThan(last, 35 * second)
        XCTAssertLessThanOrEqual(last, 36 * second)
    }

    func testHugeFactorAndMaxDoNotTrap() {
        var backoff = Backoff(policy: policy(min: second, max: Int64.max, factor: 1e300, jitter: 0.5),
                              random: { 0.999 })
        for _ in 0 ..< 1_000 {
            XCTAssertGreaterThanOrEqual(backoff.nextDelayNanos(), 0)
        }
        XCTAssertEqual(backoff.nextDelayNanos(), Int64.max)
    }
}
