import XCTest
import WSTransport

/// `PhaseDriver`: the re-entrancy rule (an event raised while actions are
/// performed waits until the list is done) and the one timer per phase, on
/// a manual clock.
final class PhaseDriverTests: XCTestCase {
    /// A small machine: `go` moves idle → running (a 5 s timer) and asks for
    /// two actions; `stop` moves to stopped (no timer); the timer's event
    /// `late` moves running → timedOut (a 1 s timer).
    struct Machine: PhaseMachine {
        enum Phase: Equatable { case idle, running, stopped, timedOut }
        enum Event: Equatable { case go, stop, late, poke }
        enum Action: Equatable, CustomStringConvertible {
            case first, second, noted(Event)
            var description: String {
                switch self {
                case .first: return "first"
                case .second: return "second"
                case .noted(let event): return "noted(\(event))"
                }
            }
        }
        private(set) var phase = Phase.idle
        var seen: [Event] = []

        var timerNanos: Int64? {
            switch phase {
            case .running: return 5_000_000_000
            case .timedOut: return 1_000_000_000
            case .idle, .stopped: return nil
            }
        }

        mutating func handle(_ event: Event) -> [Action] {
            seen.append(event)
            switch (phase, event) {
            case (.idle, .go): phase = .running; return [.first, .second]
            case (.running, .stop), (.timedOut, .stop): phase = .stopped; return [.noted(.stop)]
            case (.running, .late): phase = .timedOut; return [.noted(.late)]
            default: return [.noted(event)]
            }
        }
    }

    func testEventsRaisedByActionsWaitUntilTheListIsDone() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        var log: [String] = []
        driver.perform = { action in
            log.append("\(action) in \(driver.phase)")
            // The first action raises an event: it must not run before the second action.
            if action == .first { driver.handle(.stop); log.append("raised stop") }
        }
        driver.handle(.go)
        XCTAssertEqual(log, ["first in running", "raised stop", "second in running", "noted(stop) in stopped"])
        XCTAssertEqual(driver.machine.seen, [.go, .stop])
    }

    func testEventsRaisedInOrderAreHandledInOrder() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        driver.perform = { action in
            if action == .first { driver.handle(.poke); driver.handle(.stop) }
        }
        driver.handle(.go)
        XCTAssertEqual(driver.machine.seen, [.go, .poke, .stop])
        XCTAssertEqual(driver.phase, .stopped)
    }

    func testThePhaseTimerIsArmedOnEntryAndCancelledOnLeaving() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        var armed = 0
        var changes: [Machine.Phase] = []
        driver.willArmTimer = { armed += 1 }
        driver.phaseChanged = { changes.append($0) }
        driver.handle(.go)
        XCTAssertEqual(clock.pendingCount, 1)
        clock.advance(by: 4_999_999_999)
        XCTAssertEqual(driver.phase, .running)
        clock.advance(by: 1)
        XCTAssertEqual(driver.phase, .timedOut)
        XCTAssertEqual(driver.machine.seen, [.go, .late])
        XCTAssertEqual(clock.pendingCount, 1, "the new phase's own timer")
        driver.handle(.stop)
        XCTAssertEqual(clock.pendingCount, 0, "stopped has no timer; the old one is gone")
        clock.advance(by: 10_000_000_000)
        XCTAssertEqual(driver.machine.seen, [.go, .late, .stop])
        XCTAssertEqual(changes, [.idle, .running, .timedOut])
        XCTAssertEqual(armed, 3)
    }

    func testAnEventThatKeepsThePhaseKeepsItsTimer() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        driver.handle(.go)
        clock.advance(by: 3_000_000_000)
        driver.handle(.poke)   // same phase: the timer still counts from entry
        clock.advance(by: 2_000_000_000)
        XCTAssertEqual(driver.phase, .timedOut)
    }

    func testRestartTimerCountsFromNow() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        driver.handle(.go)
        clock.advance(by: 3_000_000_000)
        driver.restartTimer()
        XCTAssertEqual(clock.pendingCount, 1)
        clock.advance(by: 4_000_000_000)
        XCTAssertEqual(driver.phase, .running)
        clock.advance(by: 1_000_000_000)
        XCTAssertEqual(driver.phase, .timedOut)
    }

    func testTheTimerEventIsMadeWhenItFires() {
        let clock = ManualScheduler()
        var next = Machine.Event.poke
        let driver = PhaseDriver(Machine(), clock: clock) { next }
        driver.handle(.go)
        next = .stop
        clock.advance(by: 5_000_000_000)
        XCTAssertEqual(driver.phase, .stopped)
    }

    func testATimerThatFiresWhileHandlingIsQueuedToo() {
        let clock = ManualScheduler()
        let driver = PhaseDriver(Machine(), clock: clock) { .late }
        var order: [String] = []
        driver.perform = { action in
            order.append("\(action)")
            // Time passes inside an action (a blocking write, say): the timer's event waits its turn.
            if action == .first { clock.advance(by: 5_000_000_000) }
        }
        driver.handle(.go)
        XCTAssertEqual(order, ["first", "second", "noted(late)"])
        XCTAssertEqual(driver.phase, .timedOut)
    }
}
