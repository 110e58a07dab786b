import XCTest
@testable import WSBridge

final class SendStallTests: XCTestCase {
    func testStallTimesOutWithoutProgress() {
        var stall = SendStall(timeoutNanos: 800, output: 5_000_000, now: 0)
        XCTAssertEqual(stall.firstIntervalNanos, SendStall.minimumIntervalNanos)   // 800/8 is below the floor
        var big = SendStall(timeoutNanos: 8_000_000_000, output: 5_000_000, now: 0)
        XCTAssertEqual(big.firstIntervalNanos, 1_000_000_000)
        XCTAssertEqual(big.check(output: 5_000_000, now: 1_000_000_000), 1_000_000_000)
        XCTAssertEqual(big.check(output: 5_000_000, now: 7_500_000_000), 500_000_000)
        XCTAssertNil(big.check(output: 5_000_000, now: 8_000_000_000))
        XCTAssertNil(stall.check(output: 5_000_000, now: 800))
    }

    func testShrinkingOutputRestartsTheClock() {
        var stall = SendStall(timeoutNanos: 8_000, output: 5_000_000, now: 0)
        XCTAssertNotNil(stall.check(output: 4_999_000, now: 7_000))
        XCTAssertEqual(stall.lastProgressNanos, 7_000)
        XCTAssertNotNil(stall.check(output: 4_999_000, now: 14_000))
        XCTAssertNil(stall.check(output: 4_999_000, now: 15_000))
    }

    func testGrowingOutputIsNotProgress() {
        var stall = SendStall(timeoutNanos: 8_000, output: 5_000_000, now: 0)
        XCTAssertNotNil(stall.check(output: 5_000_010, now: 4_000))   // a pong queued
        XCTAssertEqual(stall.lastProgressNanos, 0)
        XCTAssertNil(stall.check(output: 5_000_010, now: 8_000))
    }
}
