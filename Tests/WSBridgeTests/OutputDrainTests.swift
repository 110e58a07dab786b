import XCTest
@testable import WSBridge

/// The end of a run: destinations written out on the loop within
/// --close-timeout of no progress, then commands waited for (wspipe(1): ROUTING).
final class OutputDrainTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    func testNothingLeftClosesAndFinishes() {
        var drain = OutputDrain(timeoutNanos: 2 * second)
        XCTAssertEqual(drain.handle(.sessionEnded(unwritten: 0, hurry: false, now: 0)), [.closeDestinations])
        XCTAssertEqual(drain.phase, .closing)
        XCTAssertEqual(drain.handle(.closed(commandsRunning: 0)), [.finish])
        XCTAssertEqual(drain.phase, .done)
    }

    func testOutputIsWrittenThenCommandsAreWaitedFor() {
        var drain = OutputDrain(timeoutNanos: 2 * second)
        XCTAssertEqual(drain.handle(.sessionEnded(unwritten: 100, hurry: false, now: 0)), [.armTimer(nanos: second / 4)])
        XCTAssertEqual(drain.phase, .writing)
        XCTAssertEqual(drain.handle(.written), [.cancelTimer, .closeDestinations])
        XCTAssertEqual(drain.handle(.closed(commandsRunning: 2)), [.armTimer(nanos: 2 * second)])
        XCTAssertEqual(drain.phase, .awaitingCommands)
        XCTAssertEqual(drain.handle(.commandsExited(running: 1)), [])
        XCTAssertEqual(drain.handle(.commandsExited(running: 0)), [.cancelTimer, .finish])
    }

    func testOutputThatMakesProgressIsWaitedFor() {
        var drain = OutputDrain(timeoutNanos: 2 * second)
        _ = drain.handle(.sessionEnded(unwritten: 1000, hurry: false, now: 0))
        // Shrinking output restarts the clock, however long it takes in all.
        for step in 1...20 {
            XCTAssertEqual(drain.handle(.timerFired(unwritten: 1000 - step * 10, now: Int64(step) * second)),
                           [.armTimer(nanos: second / 4)])
        }
        XCTAssertEqual(drain.phase, .writing)
    }

    func testStuckOutputIsAbandonedAfterTheTimeout() {
        var drain = OutputDrain(timeoutNanos: 2 * second)
        _ = drain.handle(.sessionEnded(unwritten: 1000, hurry: false, now: 0))
        XCTAssertEqual(drain.handle(.timerFired(unwritten: 1000, now: second)), [.armTimer(nanos: second / 4)])
        XCTAssertEqual(drain.handle(.timerFired(unwritten: 1000, now: 2 * second)), [.abandonOutput, .closeDestinations])
        XCTAssertEqual(drain.handle(.closed(commandsRunning: 0)), [.finish])
    }

    func testCommandsStillRunningAtTheTimeoutAreStopped() {
        var drain = OutputDrain(timeoutNanos: second)
        _ = drain.handle(.sessionEnded(unwritten: 0, hurry: false, now: 0))
        _ = drain.handle(.closed(commandsRunning: 1))
        XCTAssertEqual(drain.handle(.timerFired(unwritten: 0, now: second)), [.stopCommands, .finish])
        XCTAssertEqual(drain.phase, .done)
    }

    func testASecondSignalEndsAtOnce() {
        var writing = OutputDrain(timeoutNanos: 60 * second)
        _ = writing.handle(.sessionEnded(unwritten: 10, hurry: false, now: 0))
        XCTAssertEqual(writing.handle(.interrupted(again: false)), [], "the first one lets the drain go on")
        XCTAssertEqual(writing.handle(.interrupted(again: true)), [.cancelTimer, .abandonOutput, .finish])

        var waiting = OutputDrain(timeoutNanos: 60 * second)
        _ = waiting.handle(.sessionEnded(unwritten: 0, hurry: false, now: 0))
        _ = waiting.handle(.closed(commandsRunning: 1))
        XCTAssertEqual(waiting.handle(.interrupted(again: true)), [.cancelTimer, .finish])

        var hurried = OutputDrain(timeoutNanos: 60 * second)
        XCTAssertEqual(hurried.handle(.sessionEnded(unwritten: 10, hurry: true, now: 0)), [.abandonOutput, .finish])
        var clean = OutputDrain(timeoutNanos: 60 * second)
        XCTAssertEqual(clean.handle(.sessionEnded(unwritten: 0, hurry: true, now: 0)), [.finish])
    }
}
