import XCTest
@testable import WSBridge

/// One recorded connection checked (wspipe(1): CHECKING A SERVER), as the
/// pure machine sees it: paced by the replies, each wait bounded, extra
/// messages caught in the settle time, out of order told from missing.
final class CheckConversationTests: XCTestCase {
    private let second: Int64 = 1_000_000_000

    private func recording(_ lines: [String]) throws -> CheckScript {
        let text = lines.enumerated().map { index, line -> String in
            let direction = line.hasPrefix(">") ? "out" : "in"
            return #"{"t_ms":\#(index),"dir":"\#(direction)","conn":1,"msg":\#(line.dropFirst())}"#
        }.joined(separator: "\n")
        return try CheckScript(path: "t.ndjson", recording: try Recording(parsing: Array(text.utf8)), allowExtra: [],
                               typeKey: ["type"])
    }

    private func conversation(_ lines: [String], anyOrder: Bool = false, allowExtra: [String] = [],
                              serverClose: Int? = nil) throws -> CheckConversation {
        var script = try recording(lines).connections[0]
        script.serverCloseCode = serverClose
        let settings = CheckConversation.Settings(timeoutNanos: 5 * second, settleNanos: second / 10, anyOrder: anyOrder,
                                                  allowExtra: Set(allowExtra.map { Array($0.utf8) }),
                                                  typePath: [Array("type".utf8)])
        return CheckConversation(script: script, settings: settings, comparison: MessageComparison(ignores: []))
    }

    private func receive(_ machine: inout CheckConversation, _ json: String, at now: Int64 = 0) -> [CheckConversation.Action] {
        Array(json.utf8).withUnsafeBytes { machine.handle(.received(.text($0), now: now)) }
    }

    private func sent(_ actions: [CheckConversation.Action]) -> [String] {
        actions.compactMap { if case .send(_, let bytes, _) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
    }

    private func failure(_ actions: [CheckConversation.Action]) -> CheckFailure? {
        for action in actions { if case .finish(.failed(let failure)) = action { return failure } }
        return nil
    }

    func testPacedByTheReplies() throws {
        var machine = try conversation(["<{\"type\":\"welcome\"}", ">{\"type\":\"join\"}", "<{\"type\":\"joined\"}",
                                        ">{\"type\":\"say\"}", ">{\"type\":\"bye\"}", "<{\"type\":\"said\"}"])
        var actions = machine.handle(.opened(now: 0))
        XCTAssertEqual(sent(actions), [], "nothing before the greeting")
        XCTAssertEqual(actions, [.armTimer(nanos: 5 * second)])
        actions = receive(&machine, #"{"type":"welcome"}"#, at: 10)
        XCTAssertEqual(sent(actions), [#"{"type":"join"}"#])
        actions = receive(&machine, #"{"type":"joined"}"#, at: 30)
        XCTAssertEqual(actions.first, .replied(nanos: 20, line: 3))
        XCTAssertEqual(sent(actions), [#"{"type":"say"}"#, #"{"type":"bye"}"#])
        actions = receive(&machine, #"{"type":"said"}"#, at: 100)
        XCTAssertEqual(actions, [.replied(nanos: 70, line: 6), .armTimer(nanos: second / 10)])
        XCTAssertEqual(machine.phase, .settling)
        XCTAssertEqual(machine.handle(.timerFired(now: 200)), [.finish(.passed)])
        XCTAssertEqual(machine.phase, .finished)
    }

    func testADifferentMessageFailsAtItsLine() throws {
        var machine = try conversation([">{\"type\":\"join\"}", "<{\"type\":\"joined\",\"users\":1}"])
        _ = machine.handle(.opened(now: 0))
        let failed = try XCTUnwrap(failure(receive(&machine, #"{"type":"joined","users":2}"#)))
        XCTAssertEqual(failed.line, 2)
        XCTAssertEqual(failed.status, .checkFailed)
        XCTAssertEqual(failed.messageNumber, 1)
        guard case .differs(let difference, _, nil) = failed.kind else { return XCTFail("\(failed.kind)") }
        XCTAssertEqual(difference.path.description, "users")
    }

    func testAMissingMessageTimesOut() throws {
        var machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        let failed = try XCTUnwrap(failure(machine.handle(.timerFired(now: 5 * second))))
        XCTAssertEqual(failed.kind, .timedOut(nanos: 5 * second, instead: nil))
        XCTAssertEqual(failed.line, 2)
    }

    func testAnExtraMessageInTheSettleTime() throws {
        var machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        _ = receive(&machine, #"{"type":"pong"}"#)
        let failed = try XCTUnwrap(failure(receive(&machine, #"{"type":"debug"}"#)))
        XCTAssertEqual(failed.kind, .unexpected(actual: Array(#"{"type":"debug"}"#.utf8)))
        XCTAssertEqual(failed.line, 2)
        XCTAssertTrue(failed.lineIsLastExpected)
    }

    func testAllowedExtraTypesAreSkipped() throws {
        var machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"], allowExtra: ["heartbeat"])
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(receive(&machine, #"{"type":"heartbeat"}"#), [])
        _ = receive(&machine, #"{"type":"pong"}"#)
        XCTAssertEqual(receive(&machine, #"{"type":"heartbeat"}"#), [])
        XCTAssertEqual(machine.handle(.timerFired(now: 1)), [.finish(.passed)])
    }

    func testOutOfOrderIsToldFromMissing() throws {
        let lines = [">{\"type\":\"sub\",\"ch\":\"a\"}", ">{\"type\":\"sub\",\"ch\":\"b\"}",
                     "<{\"type\":\"subscribed\",\"ch\":\"a\"}", "<{\"type\":\"subscribed\",\"ch\":\"b\"}"]
        // b first, then a: out of order.
        var machine = try conversation(lines)
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(receive(&machine, #"{"type":"subscribed","ch":"b"}"#), [], "the one awaited may still come")
        let failed = try XCTUnwrap(failure(receive(&machine, #"{"type":"subscribed","ch":"a"}"#)))
        guard case .differs(let difference, _, let early) = failed.kind else { return XCTFail("\(failed.kind)") }
        XCTAssertEqual(difference.path.description, "ch")
        XCTAssertEqual(early, CheckFailure.Early(line: 4, awaitedCame: true))
        XCTAssertEqual(failed.line, 3)
        // b and never a: missing.
        machine = try conversation(lines)
        _ = machine.handle(.opened(now: 0))
        _ = receive(&machine, #"{"type":"subscribed","ch":"b"}"#)
        let missing = try XCTUnwrap(failure(machine.handle(.timerFired(now: 5 * second))))
        XCTAssertEqual(missing.kind, .timedOut(nanos: 5 * second, instead: .init(line: 4, awaitedCame: false)))
        XCTAssertEqual(missing.line, 3)
        // With --check-order any, either order passes.
        machine = try conversation(lines, anyOrder: true)
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(receive(&machine, #"{"type":"subscribed","ch":"b"}"#, at: 7), [.replied(nanos: 7, line: 4),
                                                                                  .armTimer(nanos: 5 * second)])
        XCTAssertEqual(receive(&machine, #"{"type":"subscribed","ch":"a"}"#, at: 9).first, .replied(nanos: 9, line: 3))
        XCTAssertEqual(machine.phase, .settling)
    }

    func testCapturedValuesAreSentBack() throws {
        var machine = try conversation(["<{\"type\":\"welcome\",\"session\":\"${capture:sid}\"}",
                                        ">{\"type\":\"resume\",\"session\":\"${sid}\",\"literal\":\"$${sid}\"}",
                                        "<{\"type\":\"resumed\",\"session\":\"${sid}\"}"])
        _ = machine.handle(.opened(now: 0))
        let actions = receive(&machine, #"{"type":"welcome","session":{"id":7}}"#)
        XCTAssertEqual(sent(actions), [#"{"type":"resume","session":{"id":7},"literal":"${sid}"}"#])
        XCTAssertNotNil(failure(receive(&machine, #"{"type":"resumed","session":{"id":8}}"#)))
    }

    func testServerCloses() throws {
        // Closing before the messages expected: 8 for a clean Close, 7 for an error code.
        var machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(failure(machine.handle(.closedByServer(code: 1000, reason: "")))?.status, .checkFailed)
        machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(failure(machine.handle(.closedByServer(code: 4001, reason: "auth")))?.status, .closedWithError)
        // After them, a clean Close is fine.
        machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        _ = receive(&machine, #"{"type":"pong"}"#)
        XCTAssertEqual(machine.handle(.closedByServer(code: 1000, reason: "")), [.finish(.passed)])
        // A recording that ends with the server's Close 4001 expects it.
        machine = try conversation([">{\"type\":\"join\"}"], serverClose: 4001)
        XCTAssertEqual(machine.handle(.opened(now: 0)).last, .armTimer(nanos: 5 * second))
        XCTAssertEqual(machine.phase, .awaitingClose)
        XCTAssertEqual(machine.handle(.closedByServer(code: 4001, reason: "no")), [.finish(.passed)])
        machine = try conversation([">{\"type\":\"join\"}"], serverClose: 4001)
        _ = machine.handle(.opened(now: 0))
        let wrong = try XCTUnwrap(failure(machine.handle(.closedByServer(code: 4002, reason: ""))))
        XCTAssertEqual(wrong.kind, .closed(code: 4002, reason: "", expected: 4001))
        XCTAssertEqual(wrong.status, .checkFailed)
        machine = try conversation([">{\"type\":\"join\"}"], serverClose: 4001)
        _ = machine.handle(.opened(now: 0))
        XCTAssertEqual(failure(machine.handle(.timerFired(now: 5 * second)))?.kind, .noClose(expected: 4001, nanos: 5 * second))
    }

    func testLostConnection() throws {
        var machine = try conversation([">{\"type\":\"ping\"}", "<{\"type\":\"pong\"}"])
        _ = machine.handle(.opened(now: 0))
        let failed = try XCTUnwrap(failure(machine.handle(.lost("connection reset", status: .connectFailed))))
        XCTAssertEqual(failed.kind, .lost(reason: "connection reset", whileWaiting: true))
        XCTAssertEqual(failed.status, .connectFailed)
        XCTAssertEqual(machine.handle(.timerFired(now: 1)), [], "nothing after the end")
    }
}
