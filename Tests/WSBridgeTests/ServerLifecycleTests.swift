import XCTest
import WSCore
@testable import WSBridge

/// Every transition of the server's lifecycle.
final class ServerLifecycleTests: XCTestCase {
    private func machine(hold: Bool = false, once: Bool = false) -> ServerLifecycle {
        ServerLifecycle(holdAfterInput: hold, once: once, closeTimeoutNanos: 2_000_000_000)
    }

    func testInputEndClosesTheClients() {
        var m = machine()
        XCTAssertEqual(m.handle(.inputEnded(clients: 2)), [.stopInput, .stopAccepting, .closeClients(.normal)])
        XCTAssertEqual(m.phase, .stopping)
        XCTAssertEqual(m.timerNanos, 2_000_000_000)
        XCTAssertEqual(m.handle(.clientLeft(remaining: 1)), [])
        XCTAssertEqual(m.handle(.clientLeft(remaining: 0)), [.finish])
        XCTAssertEqual(m.phase, .ended)
    }

    func testInputEndWithNobodyConnectedEndsAtOnce() {
        var m = machine()
        XCTAssertEqual(m.handle(.inputEnded(clients: 0)), [.stopInput, .stopAccepting, .finish])
    }

    func testNoCloseKeepsServingAfterInput() {
        var m = machine(hold: true)
        XCTAssertEqual(m.handle(.inputEnded(clients: 1)), [])
        XCTAssertEqual(m.phase, .serving)
    }

    func testInterruptAndLostStdoutSayGoingAway() {
        var m = machine()
        XCTAssertEqual(m.handle(.stop(.interrupted, clients: 1)), [.stopInput, .stopAccepting, .closeClients(.goingAway)])
        XCTAssertEqual(m.handle(.stop(.interrupted, clients: 1)), [.finish], "a second SIGINT ends at once")
        var n = machine()
        XCTAssertEqual(n.handle(.stop(.stdoutLost, clients: 1)), [.stopInput, .stopAccepting, .closeClients(.goingAway)])
    }

    func testMaxMessagesClosesNormally() {
        var m = machine()
        XCTAssertEqual(m.handle(.stop(.done, clients: 3)), [.stopInput, .stopAccepting, .closeClients(.normal)])
        XCTAssertEqual(m.handle(.stop(.done, clients: 3)), [], "already stopping")
    }

    func testOnceStopsWhenItsClientLeaves() {
        var m = machine(once: true)
        XCTAssertEqual(m.handle(.clientLeft(remaining: 0)), [.stopInput, .stopAccepting, .finish])
        var n = machine()
        XCTAssertEqual(n.handle(.clientLeft(remaining: 0)), [], "without --once the server goes on")
    }

    func testCloseTimeoutDropsTheRest() {
        var m = machine()
        _ = m.handle(.inputEnded(clients: 1))
        XCTAssertEqual(m.handle(.timerFired), [.dropClients, .finish])
        XCTAssertNil(m.timerNanos)
    }
}
