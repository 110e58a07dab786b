import XCTest
@testable import WSConnect

/// Every transition of the connector's phase machine: headerCommand →
/// dialing → tls → upgrading, redirects, and the endings from each phase.
final class ConnectorPhasesTests: XCTestCase {
    typealias M = ConnectorPhases

    private func machine(after events: [M.Event]) -> M {
        var m = M()
        for event in events { _ = m.handle(event) }
        return m
    }

    /// Each phase, with the events that reach it.
    private let paths: [(M.Phase, [M.Event])] = [
        (.idle, []),
        (.headerCommand, [.start(headerCommand: true)]),
        (.dialing, [.start(headerCommand: false)]),
        (.tls, [.start(headerCommand: false), .connected(secure: true)]),
        (.upgrading(.sending), [.start(headerCommand: false), .connected(secure: false)]),
        (.upgrading(.reading), [.start(headerCommand: false), .connected(secure: false), .requestSent]),
        (.done, [.start(headerCommand: false), .failed]),
    ]

    private func check(_ events: [M.Event], _ event: M.Event, _ phase: M.Phase, _ actions: [M.Action],
                       file: StaticString = #filePath, line: UInt = #line) {
        var m = machine(after: events)
        XCTAssertEqual(m.handle(event), actions, "\(m.phase) + \(event)", file: file, line: line)
        XCTAssertEqual(m.phase, phase, "\(event)", file: file, line: line)
    }

    func testPathsReachTheirPhases() {
        for (phase, events) in paths { XCTAssertEqual(machine(after: events).phase, phase) }
    }

    func testTheForwardSteps() {
        check([], .start(headerCommand: true), .headerCommand, [.armDeadline, .runHeaderCommand])
        check([], .start(headerCommand: false), .dialing, [.armDeadline, .dial])
        check([.start(headerCommand: true)], .headersReady, .dialing, [.dial])
        check([.start(headerCommand: false)], .connected(secure: true), .tls, [.startTLS])
        check([.start(headerCommand: false)], .connected(secure: false), .upgrading(.sending), [.sendRequest])
        check([.start(headerCommand: false), .connected(secure: true)], .tlsDone, .upgrading(.sending), [.sendRequest])
        check([.start(headerCommand: false), .connected(secure: false)], .requestSent, .upgrading(.reading), [.awaitResponse])
        let reading: [M.Event] = [.start(headerCommand: false), .connected(secure: false), .requestSent]
        check(reading, .accepted, .done, [.succeed])
        check(reading, .redirect, .dialing, [.closeStream, .dial])
        // A redirected hop goes the whole way again, to TLS if it says wss://.
        check(reading + [.redirect], .connected(secure: true), .tls, [.startTLS])
    }

    func testEveryPhaseButDoneFailsTimesOutAndCancels() {
        for (phase, events) in paths where phase != .done {
            check(events, .failed, .done, [.teardown, .reportFailure])
            check(events, .timedOut, .done, [.teardown, .reportFailure])
            check(events, .cancel, .done, [.teardown])
        }
    }

    func testDoneIsFinal() {
        let all: [M.Event] = [.start(headerCommand: false), .headersReady, .connected(secure: false), .tlsDone,
                              .requestSent, .redirect, .accepted, .failed, .timedOut, .cancel]
        for start in [[M.Event.start(headerCommand: false), .failed], [.start(headerCommand: false), .cancel],
                      [.start(headerCommand: false), .connected(secure: false), .requestSent, .accepted]] {
            for event in all { check(start, event, .done, []) }
        }
    }

    func testEventsOfAnotherPhaseAreIgnored() {
        let late: [M.Event] = [.start(headerCommand: false), .headersReady, .connected(secure: true), .tlsDone,
                               .requestSent, .redirect, .accepted]
        for (phase, events) in paths where phase != .done {
            let expected = machine(after: events)
            for event in late {
                var m = machine(after: events)
                let actions = m.handle(event)
                if m.phase == expected.phase { XCTAssertEqual(actions, [], "\(phase) + \(event)") }
            }
        }
        // The ones that do move are exactly the forward steps above.
        check([.start(headerCommand: true)], .connected(secure: false), .headerCommand, [])
        check([.start(headerCommand: false)], .tlsDone, .dialing, [])
        check([.start(headerCommand: false)], .accepted, .dialing, [])
        check([.start(headerCommand: false), .connected(secure: false)], .accepted, .upgrading(.sending), [])
        check([.start(headerCommand: false), .connected(secure: false)], .redirect, .upgrading(.sending), [])
        check([.start(headerCommand: false), .connected(secure: true)], .requestSent, .tls, [])
        check([], .headersReady, .idle, [])
        check([.start(headerCommand: false)], .start(headerCommand: true), .dialing, [])
    }
}
