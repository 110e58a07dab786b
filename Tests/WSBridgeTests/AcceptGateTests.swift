import XCTest
@testable import WSBridge

/// When the server watches its listener: --max-clients handshakes, and a pause
/// after accept(2) runs out of descriptors (EMFILE) instead of a busy loop.
final class AcceptGateTests: XCTestCase {
    func testFullWhileMaxHandshakesAreInProgress() {
        var gate = AcceptGate(maxHandshakes: 2)
        XCTAssertTrue(gate.isWatching)
        XCTAssertEqual(gate.handle(.handshakes(1)), [])
        XCTAssertEqual(gate.handle(.handshakes(2)), [.unwatch])
        XCTAssertEqual(gate.phase, .full)
        XCTAssertEqual(gate.handle(.handshakes(1)), [.watch])
        XCTAssertEqual(gate.phase, .accepting)
    }

    func testNoLimitWithoutMaxClients() {
        var gate = AcceptGate(maxHandshakes: nil)
        XCTAssertEqual(gate.handle(.handshakes(10_000)), [])
        XCTAssertTrue(gate.isWatching)
    }

    func testAFailedAcceptPausesTheListenerAndIsReportedOncePerEpisode() {
        var gate = AcceptGate(maxHandshakes: nil)
        XCTAssertEqual(gate.handle(.acceptFailed("accept: Too many open files")),
                       [.unwatch, .reportPaused("accept: Too many open files", first: true),
                        .armRetryTimer(nanos: AcceptGate.retryNanos)])
        XCTAssertEqual(gate.phase, .outOfDescriptors)
        XCTAssertEqual(gate.handle(.acceptFailed("again")), [], "already paused")
        XCTAssertEqual(gate.handle(.retryTimerFired), [.watch])
        // Still out of descriptors: paused again, silently.
        XCTAssertEqual(gate.handle(.acceptFailed("accept: Too many open files")),
                       [.unwatch, .armRetryTimer(nanos: AcceptGate.retryNanos)])
        XCTAssertEqual(gate.handle(.retryTimerFired), [.watch])
        XCTAssertEqual(gate.handle(.accepted), [.reportResumed])
        XCTAssertEqual(gate.handle(.accepted), [])
        // A later episode is reported again, not as the first.
        XCTAssertEqual(gate.handle(.acceptFailed("accept: Too many open files in system")),
                       [.unwatch, .reportPaused("accept: Too many open files in system", first: false),
                        .armRetryTimer(nanos: AcceptGate.retryNanos)])
    }

    func testAPauseEndsIntoFullWhenTheHandshakesAreStillAtTheLimit() {
        var gate = AcceptGate(maxHandshakes: 1)
        _ = gate.handle(.acceptFailed("x"))
        XCTAssertEqual(gate.handle(.handshakes(1)), [])
        XCTAssertEqual(gate.handle(.retryTimerFired), [])
        XCTAssertEqual(gate.phase, .full)
        XCTAssertEqual(gate.handle(.handshakes(0)), [.watch])
    }

    func testStopUnwatchesAndCancelsTheRetry() {
        var gate = AcceptGate(maxHandshakes: nil)
        XCTAssertEqual(gate.handle(.stop), [.unwatch])
        XCTAssertEqual(gate.handle(.handshakes(0)), [])
        var paused = AcceptGate(maxHandshakes: nil)
        _ = paused.handle(.acceptFailed("x"))
        XCTAssertEqual(paused.handle(.stop), [.cancelRetryTimer])
        XCTAssertEqual(paused.phase, .stopped)
        XCTAssertEqual(paused.handle(.retryTimerFired), [])
    }
}
