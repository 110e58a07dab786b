import XCTest
import WSCore
@testable import WSBridge

/// --until's comparison, and how --until, --idle-timeout and --close-code
/// end the client's lifecycle (and --close-code the server's).
final class ScriptedEndingTests: XCTestCase {
    typealias L = ClientLifecycle

    private func matches(_ path: [String], _ value: String, _ json: String) -> Bool {
        let condition = UntilCondition(path: path, value: value)
        return Array(json.utf8).withUnsafeBytes { condition.matches($0) }
    }

    func testValueThatIsNotJSONIsAString() {
        XCTAssertEqual(UntilCondition(path: ["type"], value: "done").expected, Array(#""done""#.utf8))
        XCTAssertTrue(matches(["type"], "done", #"{"type":"done"}"#))
        XCTAssertTrue(matches(["type"], "done", #"{"type" :  "done" , "n":1}"#))
        XCTAssertTrue(matches(["type"], "done", #"{"type":"d\u006fne"}"#), "escapes compare unescaped")
        XCTAssertFalse(matches(["type"], "done", #"{"type":"done!"}"#))
        XCTAssertFalse(matches(["type"], "done", #"{"kind":"done"}"#))
        XCTAssertTrue(matches(["type"], "two words", #"{"type":"two words"}"#))
        XCTAssertTrue(matches(["q"], #"say "hi""#, #"{"q":"say \"hi\""}"#))
    }

    func testValueThatIsJSONComparesAsRawJSON() {
        XCTAssertTrue(matches(["status"], "200", #"{"status":200}"#))
        XCTAssertFalse(matches(["status"], "200", #"{"status":"200"}"#), "a number is not a string")
        XCTAssertTrue(matches(["status"], #""200""#, #"{"status":"200"}"#))
        XCTAssertFalse(matches(["status"], "200", #"{"status":200.0}"#), "raw JSON, as --ack")
        XCTAssertTrue(matches(["ok"], "true", #"{"ok":true}"#))
        XCTAssertTrue(matches(["ok"], " true ", #"{"ok":true}"#), "VALUE trimmed")
        XCTAssertTrue(matches(["r", "v"], #"{"a":[1,2]}"#, #"{"r":{"v": {"a":[1,2]} }}"#))
        XCTAssertFalse(matches(["ok"], "null", #"{"other":null}"#))
    }

    private func open(_ configure: (inout L.Policy) -> Void = { _ in }) -> L {
        var policy = L.Policy()
        configure(&policy)
        var m = L(policy: policy, backoff: Backoff(policy: .withoutJitter))
        _ = m.handle(.start)
        _ = m.handle(.connected(now: 0, inputEnded: false, progress: .init()))
        return m
    }

    func testOwnEndingsCarryTheCloseCodeAndWaitForTheServer() {
        for reason in [L.StopReason.untilMatched, .idleTimeout, .maxMessages] {
            var m = open { $0.closeCode = 4001; $0.closeReason = "done" }
            XCTAssertEqual(m.handle(.stop(reason)), [.stopInput, .sendClose(4001, reason: "done")], "\(reason)")
            XCTAssertEqual(m.phase, .closing)
            XCTAssertEqual(m.handle(.stop(reason)), [], "\(reason): the server's Close is still awaited")
            XCTAssertEqual(m.handle(.connectionEnded(.closedByServer(code: 4001, reason: ""), now: 1)),
                           [.stopInput, .finish(.completed)])
        }
    }

    func testInterruptionClosesWith1000Whatever_CloseCode() {
        var m = open { $0.closeCode = 4001 }
        XCTAssertEqual(m.handle(.stop(.interrupted)), [.stopInput, .sendClose(.normal)])
    }

    func testStdinEOFClosesWithTheCloseCode() {
        var m = open { $0.closeCode = 3000; $0.closeReason = "eof" }
        XCTAssertEqual(m.handle(.inputEnded(.init())), [.stopInput, .sendClose(3000, reason: "eof")])
    }

    func testUntilHoldsTheConnectionAfterStdinEOF() {
        var session = SessionPolicy()
        session.until = UntilCondition(path: ["type"], value: "done")
        let policy = L.Policy(session, BridgeOptions())
        XCTAssertTrue(policy.holdAfterInput)
        var m = open { $0 = policy }
        XCTAssertEqual(m.handle(.inputEnded(.init())), [])
        XCTAssertEqual(m.phase, .open(.holding))
        XCTAssertEqual(m.handle(.stop(.untilMatched)), [.stopInput, .sendClose(.normal)])
    }

    func testIdleTimeoutWhileWaitingToRetryEndsAtOnce() {
        var m = open()
        _ = m.handle(.connectionEnded(.dropped("reset"), now: 1))
        guard case .waitingToRetry = m.phase else { return XCTFail("\(m.phase)") }
        XCTAssertEqual(m.handle(.stop(.idleTimeout)), [.stopInput, .finish(.completed)])
    }

    func testServerEndingOnItsOwnSendsTheCloseCode() {
        var s = ServerLifecycle(holdAfterInput: false, once: false, closeTimeoutNanos: 1, closeCode: 4002,
                                closeReason: "bye")
        XCTAssertEqual(s.handle(.inputEnded(clients: 2)), [.stopInput, .stopAccepting, .closeClients(4002, reason: "bye")])
        var t = ServerLifecycle(holdAfterInput: false, once: false, closeTimeoutNanos: 1, closeCode: 4002)
        XCTAssertEqual(t.handle(.stop(.interrupted, clients: 1)), [.stopInput, .stopAccepting, .closeClients(.goingAway)])
    }
}
