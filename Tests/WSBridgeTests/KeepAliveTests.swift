import XCTest
@testable import WSBridge

/// --ping-interval / --ping-timeout on a hand-driven clock: only a pong with
/// our own payload keeps the connection alive.
final class KeepAliveTests: XCTestCase {
    private let ms: Int64 = 1_000_000
    private var clock = ManualScheduler()
    private var pings: [[UInt8]] = []
    private var deaths = 0

    /// Where the peer is, as the test moves it.
    private var mark = WebSocketChannel.ProgressMark(read: 0, written: 0, unacknowledged: 0)

    private func keepAlive(interval: Int64 = 100, timeout: Int64 = 50, followsProgress: Bool = false) -> KeepAlive {
        let k = KeepAlive(scheduler: clock, intervalNanos: interval * ms, timeoutNanos: timeout * ms,
                          sendPing: { [unowned self] in self.pings.append($0) },
                          onDead: { [unowned self] in self.deaths += 1 },
                          progress: { [unowned self] in followsProgress ? self.mark : nil })
        k.start()
        return k
    }

    /// Issue 33: the deadline counts from the peer's last progress, as
    /// --close-timeout does: a slow peer still reading what came before the
    /// ping is not cut off.
    func testTheDeadlineCountsFromTheLastProgress() {
        let k = keepAlive(followsProgress: true)
        defer { withExtendedLifetime(k) {} }
        clock.advance(by: 100 * ms)   // the ping
        mark.unacknowledged = -10   // its TCP acknowledged 10 bytes meanwhile
        clock.advance(by: 50 * ms)
        XCTAssertEqual(deaths, 0, "it took something: as long again")
        mark.written += 100   // more could be written: its TCP took more
        clock.advance(by: 50 * ms)
        XCTAssertEqual(deaths, 0)
        mark.read += 1   // it sent something: no pong, and no progress toward one
        clock.advance(by: 50 * ms)
        XCTAssertEqual(deaths, 1, "nothing taken for a whole timeout: dead")
    }

    func testPingsEveryIntervalWithACountingPayload() {
        let k = keepAlive()
        clock.advance(by: 99 * ms)
        XCTAssertTrue(pings.isEmpty)
        clock.advance(by: 1 * ms)
        XCTAssertEqual(pings, [Array("wspipe-1".utf8)])
        pings[0].withUnsafeBytes { k.pongReceived($0) }
        clock.advance(by: 100 * ms)
        XCTAssertEqual(pings.count, 2)
        XCTAssertEqual(pings[1], Array("wspipe-2".utf8))
        XCTAssertEqual(deaths, 0)
    }

    func testNoPongWithinTheTimeoutIsDeath() {
        let k = keepAlive()
        clock.advance(by: 149 * ms)
        XCTAssertEqual(deaths, 0)
        clock.advance(by: 1 * ms)
        XCTAssertEqual(deaths, 1)
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(deaths, 1, "dead once; everything stopped")
        XCTAssertEqual(clock.pendingCount, 0)
        withExtendedLifetime(k) {}
    }

    func testAPongWithAnotherPayloadClearsNothing() {
        let k = keepAlive()
        clock.advance(by: 100 * ms)
        Array("hello".utf8).withUnsafeBytes { k.pongReceived($0) }
        clock.advance(by: 50 * ms)
        XCTAssertEqual(deaths, 1)
    }

    func testAnOutstandingPingKeepsItsDeadline() {
        let k = keepAlive(interval: 100, timeout: 150)
        clock.advance(by: 200 * ms)
        XCTAssertEqual(pings.count, 1, "no second ping while the first is unanswered")
        clock.advance(by: 50 * ms)
        XCTAssertEqual(deaths, 1, "the first ping's deadline stands")
        withExtendedLifetime(k) {}
    }

    func testStopCancelsEveryTimer() {
        let k = keepAlive()
        clock.advance(by: 100 * ms)
        k.stop()
        XCTAssertEqual(clock.pendingCount, 0)
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(deaths, 0)
        XCTAssertEqual(pings.count, 1)
    }

    /// The pong to our ping says how long the round trip took (--stats, the
    /// pong event, -w's rtt_last); other pongs say nothing.
    func testTheRoundTripOfOurPing() {
        let k = keepAlive()
        var trips: [Int64] = []
        k.onRoundTrip = { trips.append($0) }
        clock.advance(by: 100 * ms)
        clock.advance(by: 7 * ms)
        Array("unsolicited".utf8).withUnsafeBytes { k.pongReceived($0) }
        XCTAssertEqual(trips, [])
        pings[0].withUnsafeBytes { k.pongReceived($0) }
        XCTAssertEqual(trips, [7 * ms])
        pings[0].withUnsafeBytes { k.pongReceived($0) }
        XCTAssertEqual(trips, [7 * ms], "a second pong to the same ping counts once")
    }
}
