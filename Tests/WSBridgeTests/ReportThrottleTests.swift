import XCTest
@testable import WSBridge

/// The --exec server's "cannot start the program" warnings: one a second,
/// saying how many were held back (was: one line per client refused).
final class ReportThrottleTests: XCTestCase {
    func testOnceAnIntervalWithTheNumberHeldBack() {
        var throttle = ReportThrottle(intervalNanos: 1_000)
        XCTAssertEqual(throttle.take(now: 5_000), 0, "the first is said")
        XCTAssertNil(throttle.take(now: 5_001))
        XCTAssertNil(throttle.take(now: 5_999))
        XCTAssertEqual(throttle.take(now: 6_000), 2, "a second later, with the two held back")
        XCTAssertNil(throttle.take(now: 6_500))
        XCTAssertEqual(throttle.take(now: 9_000), 1)
        XCTAssertEqual(throttle.take(now: 20_000), 0)
    }
}
