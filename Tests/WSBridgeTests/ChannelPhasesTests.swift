import XCTest
@testable import WSBridge

/// Every transition of the channel's read and write phases.
final class ChannelPhasesTests: XCTestCase {
    typealias M = ChannelPhases

    private func machine(after events: [M.Event]) -> M {
        var m = M()
        for event in events { _ = m.handle(event) }
        return m
    }

    private func check(_ events: [M.Event], _ event: M.Event, read: M.Read, pauses: M.Pauses = [],
                       write: M.Write = .writing, _ actions: M.Actions,
                       file: StaticString = #filePath, line: UInt = #line) {
        var m = machine(after: events)
        XCTAssertEqual(m.handle(event), actions, "\(m.read) + \(event)", file: file, line: line)
        XCTAssertEqual(m.read, read, "\(event)", file: file, line: line)
        XCTAssertEqual(m.pauses, pauses, "\(event)", file: file, line: line)
        XCTAssertEqual(m.write, write, "\(event)", file: file, line: line)
    }

    func testBeforeStart() {
        check([], .start, read: .reading, .watch)
        check([], .pause(.consumer), read: .notStarted, pauses: .consumer, .updateInterest)
        check([.pause(.consumer)], .start, read: .paused, pauses: .consumer, .watch)
        check([.pause(.consumer)], .resume(.consumer), read: .notStarted, .updateInterest)
        check([], .resume(.consumer), read: .notStarted, [])
        check([], .writeFailed, read: .notStarted, write: .failed, [])
        check([], .end, read: .ended, write: .ended, [])
        XCTAssertTrue(machine(after: [.pause(.output)]).readingStopped)
        XCTAssertFalse(machine(after: []).watched)
    }

    func testReadingAndPaused() {
        check([.start], .start, read: .reading, [])
        check([.start], .pause(.consumer), read: .paused, pauses: .consumer, .updateInterest)
        check([.start], .pause(.output), read: .paused, pauses: .output, .updateInterest)
        check([.start, .pause(.consumer)], .pause(.output), read: .paused, pauses: [.consumer, .output], .updateInterest)
        check([.start, .pause(.consumer)], .pause(.consumer), read: .paused, pauses: .consumer, [])
        check([.start, .pause([.consumer, .output])], .resume(.consumer), read: .paused, pauses: .output, .updateInterest)
        check([.start, .pause(.output)], .resume(.output), read: .reading, .updateInterest)
        check([.start], .resume(.output), read: .reading, [])
        check([.start], .end, read: .ended, write: .ended, .unwatch)
        check([.start, .pause(.consumer)], .end, read: .ended, write: .ended, .unwatch)
        XCTAssertTrue(machine(after: [.start, .pause(.consumer)]).watched)
        XCTAssertTrue(machine(after: [.start, .pause(.consumer)]).readingStopped)
        XCTAssertFalse(machine(after: [.start]).readingStopped)
    }

    func testAFailedWriteStillReads() {
        check([.start], .writeFailed, read: .reading, write: .failed, [])
        check([.start, .writeFailed], .pause(.consumer), read: .paused, pauses: .consumer, write: .failed, .updateInterest)
        check([.start, .writeFailed], .end, read: .ended, write: .ended, .unwatch)
    }

    func testEndedIsFinal() {
        for event: M.Event in [.start, .pause(.consumer), .resume(.consumer), .writeFailed, .end] {
            check([.start, .end], event, read: .ended, write: .ended, [])
        }
        XCTAssertFalse(machine(after: [.start, .end]).watched)
        XCTAssertFalse(machine(after: [.start, .pause(.consumer), .end]).readingStopped)
    }
}
