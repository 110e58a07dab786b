import XCTest
@testable import WSTransport

/// Happy Eyeballs (RFC 8305) without sockets: the order of the addresses
/// and when each attempt starts.
final class ConnectionRaceTests: XCTestCase {
    private let delay = ConnectionRace.attemptDelayNanos

    func testTheHeadStartIs250Milliseconds() {
        XCTAssertEqual(delay, 250_000_000)
    }

    func testOrderAlternatesFamiliesStartingWithTheFirst() {
        XCTAssertEqual(ConnectionRace.order(["6", "6", "4", "4"]), [0, 2, 1, 3])
        XCTAssertEqual(ConnectionRace.order(["4", "6", "6", "6"]), [0, 1, 2, 3])
        XCTAssertEqual(ConnectionRace.order(["6", "6", "6", "4"]), [0, 3, 1, 2])
        XCTAssertEqual(ConnectionRace.order(["4", "4"]), [0, 1])
        XCTAssertEqual(ConnectionRace.order([String]()), [])
    }

    func testASilentFirstAttemptGetsCompanyAfterTheHeadStart() {
        var race = ConnectionRace(count: 2)
        XCTAssertEqual(race.handle(.start), [.startAttempt(0), .armDelay(delay)])
        XCTAssertEqual(race.handle(.delayElapsed), [.startAttempt(1)])
        XCTAssertEqual(race.phase, .racing(inFlight: [0, 1], next: 2))
        // The second wins; the first (IPv6 into a blackhole) is abandoned.
        XCTAssertEqual(race.handle(.attemptConnected(1)), [.cancelDelay, .abandon(0), .won(1)])
        XCTAssertEqual(race.phase, .done)
        XCTAssertEqual(race.handle(.attemptConnected(0)), [], "nothing after the end")
    }

    func testAFailureStartsTheNextAtOnce() {
        var race = ConnectionRace(count: 3)
        _ = race.handle(.start)
        XCTAssertEqual(race.handle(.attemptFailed(0)), [.cancelDelay, .startAttempt(1), .armDelay(delay)])
        XCTAssertEqual(race.handle(.attemptFailed(1)), [.cancelDelay, .startAttempt(2)])
        XCTAssertEqual(race.handle(.attemptFailed(2)), [.cancelDelay, .lost])
        XCTAssertEqual(race.phase, .done)
    }

    func testTheRaceIsLostOnlyWhenEveryAttemptFailed() {
        var race = ConnectionRace(count: 2)
        _ = race.handle(.start)
        _ = race.handle(.delayElapsed)
        XCTAssertEqual(race.handle(.attemptFailed(1)), [], "the first is still trying")
        XCTAssertEqual(race.handle(.delayElapsed), [], "nothing left to start")
        XCTAssertEqual(race.handle(.attemptFailed(0)), [.cancelDelay, .lost])
    }

    func testTheFirstAttemptMayWinAlone() {
        var race = ConnectionRace(count: 1)
        XCTAssertEqual(race.handle(.start), [.startAttempt(0)])
        XCTAssertEqual(race.handle(.attemptConnected(0)), [.cancelDelay, .won(0)])
    }

    func testNoAddressesIsLost() {
        var race = ConnectionRace(count: 0)
        XCTAssertEqual(race.handle(.start), [.lost])
    }

    func testAnAttemptThatFailsAtOnceDuringStartMovesOn() {
        // The connector feeds an immediate failure back as an event: the
        // next attempt starts and the delay is armed again for the one after.
        var race = ConnectionRace(count: 3)
        _ = race.handle(.start)
        _ = race.handle(.delayElapsed)
        XCTAssertEqual(race.handle(.attemptFailed(1)), [.cancelDelay, .startAttempt(2)])
        XCTAssertEqual(race.phase, .racing(inFlight: [0, 2], next: 3))
        XCTAssertEqual(race.handle(.attemptConnected(2)), [.cancelDelay, .abandon(0), .won(2)])
    }
}
