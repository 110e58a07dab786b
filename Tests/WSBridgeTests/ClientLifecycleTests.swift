import XCTest
import WSCore
@testable import WSBridge
@testable import WSConnect

/// Every transition of the client's lifecycle: events in, phase and actions out.
final class ClientLifecycleTests: XCTestCase {
    typealias L = ClientLifecycle
    private let second: Int64 = 1_000_000_000

    private func machine(_ configure: (inout L.Policy) -> Void = { _ in }) -> L {
        var policy = L.Policy()
        policy.closeTimeoutNanos = 2 * second
        policy.ackTimeoutNanos = 10 * second
        configure(&policy)
        return L(policy: policy, backoff: Backoff(policy: .withoutJitter))
    }

    private func open(_ configure: (inout L.Policy) -> Void = { _ in }) -> L {
        var m = machine(configure)
        _ = m.handle(.start)
        _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
        return m
    }

    private let closeNormally: [L.Action] = [.stopInput, .sendClose(.normal)]

    func testStartConnectsAsAttemptOne() {
        var m = machine()
        XCTAssertEqual(m.handle(.start), [.connect(attempt: 1)])
        XCTAssertEqual(m.phase, .connecting)
        XCTAssertNil(m.timerNanos)
        XCTAssertEqual(m.handle(.start), [], "a second start does nothing")
    }

    func testConnectedStreams() {
        let m = open()
        XCTAssertEqual(m.phase, .open(.streaming))
        XCTAssertTrue(m.everConnected)
        XCTAssertFalse(m.wantsProgress)
    }

    func testInputEndWithAnEmptyQueueClosesAtOnce() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init())), closeNormally)
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.timerNanos, 2 * second)
    }

    func testInputEndFlushesTheQueueFirst() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init(queueEmpty: false))), [])
        XCTAssertEqual(m.phase, .open(.flushing))
        XCTAssertTrue(m.wantsProgress)
        XCTAssertEqual(m.handle(.progressed(.init(queueEmpty: false))), [])
        XCTAssertEqual(m.handle(.progressed(.init())), closeNormally)
    }

    func testAcksAreAwaitedUntilReleased() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init(acksPending: true))), [])
        XCTAssertEqual(m.phase, .open(.awaitingAcks))
        XCTAssertEqual(m.timerNanos, 10 * second)
        XCTAssertEqual(m.handle(.progressed(.init(acksPending: false))), closeNormally)
    }

    /// Issue 19: a peer that dies after the Close that ended the input, with
    /// frames its TCP never acknowledged, gets them on a new connection.
    func testADropAfterTheInputsCloseSendsAgainWhatWasNotAcknowledged() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init())), closeNormally)
        let drop = Disconnect.dropped("connection reset")
        let actions = m.handle(.connectionEnded(drop, now: 0, progress: .init(queueEmpty: false, inputOver: true)))
        XCTAssertEqual(actions.count, 1)
        guard case .announceRetry = actions.first else { return XCTFail("\(actions)") }
        // The next connection flushes what was queued again, then closes.
        _ = m.handle(.timerFired(.init(queueEmpty: false, inputOver: true)))
        XCTAssertEqual(m.handle(.connected(now: 0, inputEnded: true, progress: .init(queueEmpty: false, inputOver: true))), [])
        XCTAssertEqual(m.phase, .open(.flushing))
        XCTAssertEqual(m.handle(.progressed(.init(inputOver: true))), closeNormally)
    }

    func testADropAfterTheInputsCloseEndsWhenNothingIsLeft() {
        var m = open()
        _ = m.handle(.inputEnded(.init()))
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("reset"), now: 0, progress: .init(inputOver: true))),
                       [.stopInput, .finish(.completed)])
    }

    func testAPeerStuckPastTheCloseTimeoutIsNotReconnectedTo() {
        var m = open()
        _ = m.handle(.inputEnded(.init()))
        XCTAssertEqual(m.handle(.timerFired(.init(inputOver: true))), [.dropConnection])
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("no Close"), now: 0, progress: .init(queueEmpty: false))),
                       [.stopInput, .finish(.completed)])
    }

    func testAStopsCloseIsNotFollowedByAReconnect() {
        var m = open()
        XCTAssertEqual(m.handle(.stop(.interrupted)), closeNormally)
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("reset"), now: 0, progress: .init(queueEmpty: false))),
                       [.stopInput, .finish(.completed)])
    }

    func testTheCloseTimerWaitsAsLongAgainWhileThePeerProgresses() {
        var m = open()
        _ = m.handle(.inputEnded(.init()))
        XCTAssertEqual(m.handle(.timerFired(.init(peerProgressed: true))), [.restartTimer])
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.handle(.timerFired(.init())), [.dropConnection])
    }

    func testAckTimeoutReportsThenCloses() {
        var m = open()
        _ = m.handle(.inputEnded(.init(acksPending: true)))
        XCTAssertEqual(m.handle(.timerFired(.init(acksPending: true))), [.reportUnacked] + closeNormally)
    }

    func testNoCloseHoldsAfterInput() {
        var m = open { $0.holdAfterInput = true }
        XCTAssertEqual(m.handle(.inputEnded(.init(acksPending: true))), [])
        XCTAssertEqual(m.handle(.timerFired(.init(acksPending: true))), [.reportUnacked])
        XCTAssertEqual(m.phase, .open(.holding))
        XCTAssertNil(m.timerNanos)
        XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: .normal, reason: ""), now: 0)),
                       [.stopInput, .finish(.finishedByServer(.closedByServer(code: .normal, reason: "")))])
    }

    func testOwedRepliesLingerAsLongAsTheTrackerSays() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init(replyWaitNanos: second / 2))), [])
        XCTAssertEqual(m.phase, .open(.lingering(forNanos: second / 2)))
        XCTAssertEqual(m.timerNanos, second / 2)
        // A message came: the tracker wants a moment of quiet now (the timer is re-armed).
        XCTAssertEqual(m.handle(.progressed(.init(replyWaitNanos: second / 100))), [])
        XCTAssertEqual(m.timerNanos, second / 100)
        XCTAssertEqual(m.handle(.progressed(.init(replyWaitNanos: nil))), closeNormally)
    }

    func testTheLingerTimerAsksTheTrackerAgain() {
        var m = open()
        _ = m.handle(.inputEnded(.init(replyWaitNanos: second / 2)))
        XCTAssertEqual(m.handle(.timerFired(.init(replyWaitNanos: second / 10))), [])
        XCTAssertEqual(m.timerNanos, second / 10)
        XCTAssertEqual(m.handle(.timerFired(.init(replyWaitNanos: nil))), closeNormally)
    }

    // MARK: a server's Close once the input is over (exit 7 for an error code)

    func testAServersCloseAfterTheInputEndsTheRunWithoutAReconnect() {
        for code: CloseCode in [.normal, .goingAway, 4401, .internalError] {
            var m = open()
            _ = m.handle(.inputEnded(.init(replyWaitNanos: second)))
            let cause = Disconnect.closedByServer(code: code, reason: "bye")
            XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0, progress: .init())),
                           [.stopInput, .finish(.finishedByServer(cause))], "\(code)")
            XCTAssertEqual(L.Outcome.finishedByServer(cause).exitStatus,
                           code == .normal || code == .goingAway ? nil : .closedWithError, "\(code)")
        }
    }

    func testWithSomethingLeftToSendTheClientReconnects() {
        var m = open()
        _ = m.handle(.inputEnded(.init(queueEmpty: false)))
        let cause = Disconnect.closedByServer(code: .goingAway, reason: "restart")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0, progress: .init(queueEmpty: false))),
                       [.announceRetry(attempt: 2, delayNanos: second, cause: cause, wasOpen: true)])
        var acks = open()
        _ = acks.handle(.inputEnded(.init(acksPending: true)))
        XCTAssertEqual(acks.handle(.connectionEnded(cause, now: 0, progress: .init(acksPending: true))).count, 1)
        XCTAssertEqual(acks.phase, .waitingToRetry(delayNanos: second))
    }

    func testWhileStdinIsOpenAServerCloseReconnectsAsBefore() {
        var m = open()
        let cause = Disconnect.closedByServer(code: .goingAway, reason: "")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0)),
                       [.announceRetry(attempt: 2, delayNanos: second, cause: cause, wasOpen: true)])
    }

    /// stdin's end read just after the server's Close: the retry it set up
    /// is not made, and the Close is the run's answer.
    func testStdinEndingJustAfterAnErrorCloseEndsTheRunWithIt() {
        let cause = Disconnect.closedByServer(code: .internalError, reason: "boom")
        var m = open()
        _ = m.handle(.connectionEnded(cause, now: 0))
        XCTAssertEqual(m.handle(.inputEnded(.init(queueEmpty: false, inputOver: true))), [], "something to send: retry")
        XCTAssertEqual(m.handle(.inputEnded(.init(inputOver: true))), [.stopInput, .finish(.finishedByServer(cause))])
        var timer = open()
        _ = timer.handle(.connectionEnded(cause, now: 0))
        XCTAssertEqual(timer.handle(.timerFired(.init(inputOver: true))), [.stopInput, .finish(.finishedByServer(cause))])
        // After a drop the next connection goes ahead as before.
        var drop = open()
        _ = drop.handle(.connectionEnded(.dropped("reset"), now: 0))
        XCTAssertEqual(drop.handle(.timerFired(.init(inputOver: true))), [.connect(attempt: 2)])
    }

    func testAnErrorCloseCrossingOursIsTheServersAnswer() {
        var m = open()
        XCTAssertEqual(m.handle(.inputEnded(.init())), closeNormally)
        let crossing = Disconnect.closedByClient(code: 4401, reason: "unauthorized")
        XCTAssertEqual(m.handle(.connectionEnded(crossing, now: 0)),
                       [.stopInput, .finish(.finishedByServer(.closedByServer(code: 4401, reason: "unauthorized")))])
        // An echo of our own code, or a normal one, completes the ending.
        var echo = open { $0.closeCode = 4000 }
        _ = echo.handle(.inputEnded(.init()))
        XCTAssertEqual(echo.handle(.connectionEnded(.closedByClient(code: 4000), now: 0)), [.stopInput, .finish(.completed)])
        var normal = open()
        _ = normal.handle(.stop(.maxMessages))
        XCTAssertEqual(normal.handle(.connectionEnded(.closedByClient(code: .goingAway), now: 0)),
                       [.stopInput, .finish(.completed)])
    }

    func testAServerThatRefusesEveryConnectionEndsTheRunAfterThreeAttempts() {
        var m = machine()
        _ = m.handle(.start)
        let cause = Disconnect.closedByServer(code: 4004, reason: "not found")
        var last: [L.Action] = []
        for attempt in 1...3 {
            XCTAssertEqual(m.phase, .connecting, "attempt \(attempt)")
            _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
            last = m.handle(.connectionEnded(cause, now: second))
            _ = m.handle(.timerFired(.init()))
        }
        XCTAssertEqual(last, [.stopInput, .finish(.gaveUp(attempts: 3, cause))])
        XCTAssertEqual(L.Outcome.gaveUp(attempts: 3, cause).exitStatus, .closedWithError)
    }

    /// What the session asks before it reports a refused connection's
    /// lines: the same rule that counts refusals.
    func testIsRefusalIsARefusalCodeBeforeTheConnectionIsStable() {
        let m = open()
        let refusal = Disconnect.closedByServer(code: 4004, reason: "not allowed")
        XCTAssertTrue(m.isRefusal(refusal, now: 0))
        XCTAssertTrue(m.isRefusal(refusal, now: 5 * second - 1))
        XCTAssertFalse(m.isRefusal(refusal, now: 5 * second), "a connection that stayed open 5 s was accepted")
        for cause in [Disconnect.closedByServer(code: .normal, reason: ""), .closedByServer(code: .goingAway, reason: ""),
                      .closedByServer(code: 1012, reason: ""), .closedByServer(code: 1013, reason: ""),
                      .closedByServer(code: nil, reason: ""), .dropped("reset")] {
            XCTAssertFalse(m.isRefusal(cause, now: 0), "\(cause)")
        }
    }

    func testCodesThatAskToComeBackAndStableConnectionsAreNoRefusals() {
        for code: CloseCode in [.goingAway, 1012, 1013] {
            var m = machine()
            _ = m.handle(.start)
            for _ in 1...5 {
                _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
                XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: code, reason: ""), now: second)).count, 1)
                _ = m.handle(.timerFired(.init()))
            }
            XCTAssertEqual(m.phase, .connecting, "\(code)")
        }
        var stable = machine()
        _ = stable.handle(.start)
        for at in 0..<5 {
            let t = Int64(at) * 10 * second
            _ = stable.handle(.connected(now: t, inputEnded: false, progress: .init()))
            _ = stable.handle(.connectionEnded(.closedByServer(code: 4000, reason: ""), now: t + 6 * second))
            _ = stable.handle(.timerFired(.init()))
        }
        XCTAssertEqual(stable.phase, .connecting, "each connection lasted 6 s")
    }

    func testInputThatEndedWhileDisconnectedFlushesOnTheNextConnection() {
        var m = machine()
        _ = m.handle(.start)
        XCTAssertEqual(m.handle(.connected(now: 0, inputEnded: true, progress: .init(queueEmpty: false))), [])
        XCTAssertEqual(m.phase, .open(.flushing))
    }

    func testInputEndOutsideStreamingIsIgnored() {
        var m = machine()
        _ = m.handle(.start)
        XCTAssertEqual(m.handle(.inputEnded(.init())), [])
        XCTAssertEqual(m.phase, .connecting)
    }

    func testCloseTimerDropsTheConnectionThenEnds() {
        var m = open()
        _ = m.handle(.stop(.maxMessages))
        XCTAssertEqual(m.handle(.timerFired(.init())), [.dropConnection])
        XCTAssertEqual(m.phase, .closing)
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("x"), now: 0)), [.stopInput, .finish(.completed)])
        XCTAssertEqual(m.phase, .ended)
    }

    func testFirstAttemptFailureEndsWithoutWait() {
        var m = machine()
        _ = m.handle(.start)
        let cause = Disconnect.unreachable("connect to 127.0.0.1:9: Connection refused")
        XCTAssertEqual(m.handle(.attemptFailed(cause)), [.stopInput, .finish(.firstAttemptFailed(cause))])
    }

    func testWaitRetriesTheFirstAttemptWithBackoff() {
        var m = machine { $0.waitForFirstConnection = true }
        _ = m.handle(.start)
        let cause = Disconnect.unreachable("refused")
        XCTAssertEqual(m.handle(.attemptFailed(cause)),
                       [.announceRetry(attempt: 2, delayNanos: second, cause: cause, wasOpen: false)])
        XCTAssertEqual(m.phase, .waitingToRetry(delayNanos: second))
        XCTAssertEqual(m.timerNanos, second)
        XCTAssertEqual(m.handle(.timerFired(.init())), [.connect(attempt: 2)])
        XCTAssertEqual(m.handle(.attemptFailed(cause)),
                       [.announceRetry(attempt: 3, delayNanos: 2 * second, cause: cause, wasOpen: false)])
    }

    func testMaxRetriesGivesUp() {
        var m = machine { $0.waitForFirstConnection = true; $0.maxRetries = 1 }
        _ = m.handle(.start)
        let cause = Disconnect.unreachable("refused")
        _ = m.handle(.attemptFailed(cause))
        _ = m.handle(.timerFired(.init()))
        XCTAssertEqual(m.handle(.attemptFailed(cause)), [.stopInput, .finish(.gaveUp(attempts: 2, cause))])
    }

    func testADropReconnects() {
        var m = open()
        let cause = Disconnect.dropped("connection reset")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0)),
                       [.announceRetry(attempt: 2, delayNanos: second, cause: cause, wasOpen: true)])
    }

    func testADropEndsWithNoReconnect() {
        var m = open { $0.reconnect = false }
        let cause = Disconnect.dropped("connection reset")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0)), [.stopInput, .finish(.lostWithoutReconnect(cause))])
    }

    func testFatalVerdicts() {
        var m = machine()
        _ = m.handle(.start)
        let rejected = Disconnect.handshakeRejected(status: 401, statusLine: "HTTP/1.1 401 Unauthorized")
        XCTAssertEqual(m.handle(.attemptFailed(rejected)), [.stopInput, .finish(.fatal(rejected, .handshakeRejected))])
    }

    func testPeerViolationWaitsForTheTransportThenFailsWith5() {
        var m = open()
        XCTAssertEqual(m.handle(.peerFailed), [.stopInput])
        XCTAssertEqual(m.phase, .closing)
        let cause = Disconnect.protocolViolation(code: .protocolError, reason: "reserved bits set")
        XCTAssertEqual(m.handle(.connectionEnded(cause, now: 0)), [.stopInput, .finish(.fatal(cause, .protocolViolation))])
    }

    func testStopsWhileOpenClose() {
        for reason in [L.StopReason.maxMessages, .stdoutLost, .interrupted] {
            var m = open()
            XCTAssertEqual(m.handle(.stop(reason)), closeNormally, "\(reason)")
        }
    }

    func testWhileClosingOnlyInterruptAndLostStdoutEndAtOnce() {
        var m = open()
        _ = m.handle(.stop(.maxMessages))
        XCTAssertEqual(m.handle(.stop(.maxMessages)), [])
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.stopInput, .finish(.completed)])
        var n = open()
        _ = n.handle(.stop(.interrupted))
        XCTAssertEqual(n.handle(.stop(.stdoutLost)), [.stopInput, .finish(.completed)])
    }

    func testStopWhileConnectingCancelsTheAttempt() {
        var m = machine()
        _ = m.handle(.start)
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.cancelAttempt, .stopInput, .finish(.completed)])
    }

    func testStopWhileWaitingToRetryEnds() {
        var m = machine { $0.waitForFirstConnection = true }
        _ = m.handle(.start)
        _ = m.handle(.attemptFailed(.unreachable("refused")))
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.stopInput, .finish(.completed)])
        XCTAssertNil(m.timerNanos, "the retry timer stops with the phase")
    }

    func testOnlyAConnectionOpen5sResetsTheBackoff() {
        // (--max-retries counts failures instead of the refusal limit.)
        var m = machine { $0.maxRetries = 10 }
        _ = m.handle(.start)
        let cause = Disconnect.closedByServer(code: .policyViolation, reason: "invalid token")
        var delays: [Int64] = []
        for at in [Int64(0), 10, 20] {
            _ = m.handle(.connected(now: at * second, inputEnded: false, progress: .init()))
            if case .announceRetry(_, let delay, _, _)? = m.handle(.connectionEnded(cause, now: at * second + second)).first {
                delays.append(delay)
            }
            _ = m.handle(.timerFired(.init()))
        }
        XCTAssertEqual(delays, [second, 2 * second, 4 * second], "closed after 1 s each time: the delay grows")
        _ = m.handle(.connected(now: 100 * second, inputEnded: false, progress: .init()))
        XCTAssertEqual(m.handle(.connectionEnded(.dropped("x"), now: 105 * second)),
                       [.announceRetry(attempt: 5, delayNanos: second, cause: .dropped("x"), wasOpen: true)])
    }

    func testAcceptThenCloseServerRunsOutOfRetries() {
        var m = machine { $0.maxRetries = 2 }
        _ = m.handle(.start)
        let cause = Disconnect.closedByServer(code: 4000, reason: "")
        var last: [L.Action] = []
        for _ in 0..<3 {
            _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
            last = m.handle(.connectionEnded(cause, now: 0))
            _ = m.handle(.timerFired(.init()))
        }
        XCTAssertEqual(last, [.stopInput, .finish(.gaveUp(attempts: 3, cause))])
        XCTAssertEqual(L.Outcome.gaveUp(attempts: 3, cause).exitStatus, .closedWithError)
        XCTAssertEqual(L.Outcome.gaveUp(attempts: 3, .closedByServer(code: .goingAway, reason: "")).exitStatus,
                       .connectFailed)
        XCTAssertEqual(L.Outcome.lostWithoutReconnect(cause).exitStatus, .closedWithError)
    }

    func testExitStatusSaysRejectedWheneverTheLastFailureWasHTTP() {
        let rejected = Disconnect.handshakeRejected(status: 503, statusLine: "HTTP/1.1 503 Service Unavailable")
        XCTAssertEqual(L.Outcome.gaveUp(attempts: 3, rejected).exitStatus, .handshakeRejected)
        XCTAssertEqual(L.Outcome.firstAttemptFailed(rejected).exitStatus, .handshakeRejected)
        XCTAssertEqual(L.Outcome.firstAttemptFailed(.unreachable("refused")).exitStatus, .connectFailed)
        XCTAssertNil(L.Outcome.completed.exitStatus)
    }

    func testEndedIgnoresEverything() {
        var m = open()
        _ = m.handle(.stop(.interrupted))
        _ = m.handle(.stop(.interrupted))
        for event: L.Event in [.start, .inputEnded(.init()), .timerFired(.init()), .stop(.stdoutLost),
                               .connectionEnded(.dropped("x"), now: 0), .peerFailed] {
            XCTAssertEqual(m.handle(event), [], "\(event)")
        }
    }
}
