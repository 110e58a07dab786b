import XCTest
@testable import WSBridge

/// Every transition of StdinPump's phase machine: the phase it leads to and
/// what the pump must do for it (watch the fd, arm or cancel the pacer).
final class StdinPumpPhasesTests: XCTestCase {
    typealias M = StdinPumpPhases

    /// A machine in `phase`, reached through events from the start.
    private func machine(_ phase: M.Phase) -> M {
        var m = M()
        let path: [M.Event]
        switch phase {
        case .paused(nil): path = []
        case .paused(.lines?): path = [.hold(.lines)]
        case .paused(.end?): path = [.hold(.end)]
        case .reading: path = [.resume]
        case .pacing(let held): path = [.resume, .hold(held)]
        case .discarding: path = [.discard]
        case .finished: path = [.stop]
        }
        for event in path { _ = m.handle(event) }
        XCTAssertEqual(m.phase, phase)
        return m
    }

    private func check(_ from: M.Phase, _ event: M.Event, _ to: M.Phase, _ actions: M.Actions,
                       file: StaticString = #filePath, line: UInt = #line) {
        var m = machine(from)
        let done = m.handle(event)
        XCTAssertEqual(m.phase, to, "\(from) + \(event)", file: file, line: line)
        XCTAssertEqual(done, actions, "\(from) + \(event)", file: file, line: line)
    }

    func testFromPaused() {
        check(.paused(holding: nil), .resume, .reading, [.watch])
        check(.paused(holding: .lines), .resume, .pacing(.lines), [.schedulePace])
        check(.paused(holding: .end), .resume, .pacing(.end), [.schedulePace])
        check(.paused(holding: nil), .pause, .paused(holding: nil), [])
        check(.paused(holding: .lines), .pause, .paused(holding: .lines), [])
        check(.paused(holding: nil), .hold(.lines), .paused(holding: .lines), [])
        check(.paused(holding: .lines), .released, .paused(holding: nil), [])
        check(.paused(holding: nil), .discard, .discarding, [.watch])
        check(.paused(holding: .lines), .stop, .finished, [])
    }

    func testFromReading() {
        check(.reading, .resume, .reading, [])
        check(.reading, .pause, .paused(holding: nil), [.unwatch])
        check(.reading, .hold(.lines), .pacing(.lines), [.unwatch, .schedulePace])
        check(.reading, .hold(.end), .pacing(.end), [.unwatch, .schedulePace])
        check(.reading, .released, .reading, [])
        check(.reading, .discard, .discarding, [])   // still watched
        check(.reading, .stop, .finished, [.unwatch])
    }

    func testFromPacing() {
        check(.pacing(.lines), .resume, .pacing(.lines), [])
        check(.pacing(.lines), .pause, .paused(holding: .lines), [.cancelPace])
        check(.pacing(.end), .pause, .paused(holding: .end), [.cancelPace])
        check(.pacing(.lines), .hold(.lines), .pacing(.lines), [.cancelPace, .schedulePace])
        check(.pacing(.lines), .hold(.end), .pacing(.end), [.cancelPace, .schedulePace])
        check(.pacing(.lines), .released, .reading, [.cancelPace, .watch])
        check(.pacing(.end), .discard, .discarding, [.cancelPace, .watch])
        check(.pacing(.lines), .stop, .finished, [.cancelPace])
    }

    func testDiscardingIgnoresAllButStop() {
        for event: M.Event in [.resume, .pause, .hold(.lines), .hold(.end), .released, .discard] {
            check(.discarding, event, .discarding, [])
        }
        check(.discarding, .stop, .finished, [.unwatch])
    }

    func testFinishedIsFinal() {
        for event: M.Event in [.resume, .pause, .hold(.lines), .hold(.end), .released, .discard, .stop] {
            check(.finished, event, .finished, [])
        }
        XCTAssertTrue(machine(.finished).isFinished)
        XCTAssertFalse(machine(.discarding).isFinished)
    }
}
