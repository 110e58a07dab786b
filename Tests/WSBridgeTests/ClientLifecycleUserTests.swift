import XCTest
import WSCore
@testable import WSBridge
@testable import WSConnect

/// The lifecycle's events for a person at the terminal (wspipe(1):
/// INTERACTIVE MODE): /close and /quit as a stop with a code and reason, and
/// /reconnect, which replaces the connection without a backoff delay.
final class ClientLifecycleUserTests: XCTestCase {
    typealias L = ClientLifecycle
    private let second: Int64 = 1_000_000_000

    private func machine(_ configure: (inout L.Policy) -> Void = { _ in }) -> L {
        var policy = L.Policy()
        policy.closeTimeoutNanos = 2 * second
        configure(&policy)
        return L(policy: policy, backoff: Backoff(policy: .withoutJitter))
    }

    private func open() -> L {
        var m = machine()
        _ = m.handle(.start)
        _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
        return m
    }

    // MARK: /close CODE REASON

    func testUserStopClosesWithTheGivenCodeAndReason() {
        var m = open()
        XCTAssertEqual(m.handle(.stop(.user(code: 4000, reason: "bye"))), [.stopInput, .sendClose(4000, reason: "bye")])
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.timerNanos, 2 * second)
        XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: 4000, reason: "bye"), now: 0)),
                       [.stopInput, .finish(.completed)], "the server's echo completes an ending we chose")
    }

    func testOtherStopsStillCloseNormally() {
        var m = open()
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.stopInput, .sendClose(.normal, reason: "")])
    }

    func testUserStopWhileClosingEndsAtOnce() {
        var m = open()
        _ = m.handle(.inputEnded(.init()))
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.handle(.stop(.user(code: .normal, reason: ""))), [.stopInput, .finish(.completed)])
    }

    func testUserStopWhileNotConnectedEnds() {
        var m = machine { $0.waitForFirstConnection = true }
        _ = m.handle(.start)
        XCTAssertEqual(m.handle(.stop(.user(code: .normal, reason: ""))), [.cancelAttempt, .stopInput, .finish(.completed)])
    }

    // MARK: /reconnect

    func testReconnectClosesThenConnectsAtOnce() {
        var m = open()
        XCTAssertEqual(m.handle(.reconnectRequested), [.sendClose(.normal, reason: "")])
        XCTAssertEqual(m.phase, .closingToReconnect)
        XCTAssertEqual(m.timerNanos, 2 * second, "the server gets --close-timeout to answer")
        XCTAssertFalse(m.isOpen)
        XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: .normal, reason: ""), now: 0)), [.connect(attempt: 2)],
                       "a Close 1000 from the server does not end the session here")
        XCTAssertEqual(m.phase, .connecting)
        XCTAssertEqual(m.handle(.connected(now: 0, inputEnded: false, progress: .init())), [])
        XCTAssertEqual(m.phase, .open(.streaming))
    }

    func testReconnectWithoutAnAnswerDropsTheConnection() {
        var m = open()
        _ = m.handle(.reconnectRequested)
        XCTAssertEqual(m.handle(.timerFired(.init())), [.dropConnection])
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("closed"), now: 0)), [.connect(attempt: 2)])
    }

    func testReconnectSkipsTheRetryDelay() {
        var m = machine { $0.waitForFirstConnection = true }
        _ = m.handle(.start)
        _ = m.handle(.attemptFailed(.unreachable("refused")))
        XCTAssertEqual(m.phase, .waitingToRetry(delayNanos: second))
        XCTAssertEqual(m.handle(.reconnectRequested), [.connect(attempt: 2)])
        XCTAssertNil(m.timerNanos)
    }

    func testReconnectWhileConnectingStartsAnotherAttempt() {
        var m = machine()
        _ = m.handle(.start)
        XCTAssertEqual(m.handle(.reconnectRequested), [.cancelAttempt, .connect(attempt: 2)])
    }

    func testReconnectIsIgnoredWhileEnding() {
        var m = open()
        _ = m.handle(.stop(.interrupted))
        XCTAssertEqual(m.handle(.reconnectRequested), [])
        XCTAssertEqual(m.phase, .closing)
    }

    func testAStopDuringAReconnectBecomesTheEnding() {
        var m = open()
        _ = m.handle(.reconnectRequested)
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.stopInput], "the Close is already out")
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: .normal, reason: ""), now: 0)),
                       [.stopInput, .finish(.completed)])
    }

    func testAProtocolViolationDuringAReconnectIsFatal() {
        var m = open()
        _ = m.handle(.reconnectRequested)
        let cause = Disconnect.protocolViolation(code: .protocolError, reason: "bad frame")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0)), [.stopInput, .finish(.fatal(cause, .protocolViolation))])
    }
}
