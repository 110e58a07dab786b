import XCTest
@testable import WSBridge

/// Every transition of Destination's phase machine, and its back-pressure
/// hysteresis.
final class DestinationPhasesTests: XCTestCase {
    typealias M = DestinationPhases

    private func machine(after events: [M.Event]) -> M {
        var m = M(highWater: 100, lowWater: 10)
        for event in events { _ = m.handle(event) }
        return m
    }

    private func check(_ events: [M.Event], _ event: M.Event, _ phase: M.Phase, _ actions: M.Actions,
                       file: StaticString = #filePath, line: UInt = #line) {
        var m = machine(after: events)
        XCTAssertEqual(m.handle(event), actions, "\(m.phase) + \(event)", file: file, line: line)
        XCTAssertEqual(m.phase, phase, "\(event)", file: file, line: line)
    }

    func testFromOpen() {
        check([], .blocked, .open(waiting: true), .watch)
        check([], .emptied, .open(waiting: false), [])
        check([], .writeFailed, .failed, [])
        check([], .finish, .finished(failed: false), [])
    }

    func testFromWaiting() {
        check([.blocked], .blocked, .open(waiting: true), [])
        check([.blocked], .emptied, .open(waiting: false), .unwatch)
        check([.blocked], .writeFailed, .failed, .unwatch)
        check([.blocked], .finish, .finished(failed: false), .unwatch)
    }

    func testFailedOnlyFinishes() {
        check([.writeFailed], .blocked, .failed, [])
        check([.writeFailed], .emptied, .failed, [])
        check([.writeFailed], .writeFailed, .failed, [])
        check([.writeFailed], .finish, .finished(failed: true), [])
        XCTAssertTrue(machine(after: [.writeFailed]).hasFailed)
        XCTAssertTrue(machine(after: [.writeFailed, .finish]).hasFailed)
        XCTAssertFalse(machine(after: [.finish]).hasFailed)
    }

    func testFinishedStaysFinished() {
        for start: [M.Event] in [[.finish], [.writeFailed, .finish]] {
            let phase = machine(after: start).phase
            for event: M.Event in [.blocked, .emptied, .finish] { check(start, event, phase, []) }
            XCTAssertTrue(machine(after: start).isFinished)
        }
        // An inherited fd is still written after finish(), and may fail then.
        check([.finish], .writeFailed, .finished(failed: true), [])
        check([.writeFailed, .finish], .writeFailed, .finished(failed: true), [])
    }

    func testBackPressureHasHysteresis() {
        var m = M(highWater: 100, lowWater: 10)
        XCTAssertFalse(m.isBackedUp(unwritten: 100))
        XCTAssertTrue(m.isBackedUp(unwritten: 101))
        XCTAssertTrue(m.isBackedUp(unwritten: 50), "still above the low water")
        XCTAssertFalse(m.drained(unwritten: 10))
        XCTAssertTrue(m.drained(unwritten: 9))
        XCTAssertFalse(m.drained(unwritten: 0), "once")
        XCTAssertFalse(m.isBackedUp(unwritten: 50))
    }
}
