import XCTest
@testable import WSBridge
import WSJSON

/// The exact bytes of every {"$event":...} line (wspipe(1): OPTIONS, Diagnostics).
final class EventLineTests: XCTestCase {
    private func assertLine(_ line: [UInt8], _ expected: String,
                            file: StaticString = #filePath, line number: UInt = #line) {
        XCTAssertEqual(String(decoding: line, as: UTF8.self), expected + "\n", file: file, line: number)
        // Every event is one valid JSON value on one line.
        XCTAssertEqual(line.last, 0x0A, file: file, line: number)
        XCTAssertEqual(line.dropLast().firstIndex(of: 0x0A), nil, file: file, line: number)
        XCTAssertEqual(Array(line.dropLast()).withUnsafeBytes { JSONScanner.validate($0) },
                       .valid(needsCompaction: false), file: file, line: number)
    }

    func testConnecting() {
        assertLine(EventLine.connecting(url: "ws://127.0.0.1:9/x", attempt: 1),
                   #"{"$event":"connecting","url":"ws://127.0.0.1:9/x","attempt":1}"#)
    }

    func testConnected() {
        assertLine(EventLine.connected(url: "ws://127.0.0.1:9/x", attempt: 1, protocol: nil),
                   #"{"$event":"connected","url":"ws://127.0.0.1:9/x","attempt":1}"#)
        assertLine(EventLine.connected(url: "wss://h/p?q=\"1\"", attempt: 12, protocol: "chat.v2"),
                   #"{"$event":"connected","url":"wss://h/p?q=\"1\"","attempt":12,"protocol":"chat.v2"}"#)
    }

    func testDisconnected() {
        assertLine(EventLine.connectFailed(attempt: 2, error: "connect to 127.0.0.1:9: Connection refused"),
                   #"{"$event":"connect_failed","attempt":2,"error":"connect to 127.0.0.1:9: Connection refused"}"#)
        assertLine(EventLine.disconnected(code: 1006, reason: "connection reset", clean: false, by: "server"),
                   #"{"$event":"disconnected","code":1006,"reason":"connection reset","clean":false,"by":"server","unconfirmed":0}"#)
        assertLine(EventLine.disconnected(code: 1000, reason: "", clean: true, by: "server"),
                   #"{"$event":"disconnected","code":1000,"reason":"","clean":true,"by":"server","unconfirmed":0}"#)
        assertLine(EventLine.disconnected(code: 65535, reason: "x", clean: true, by: "server"),
                   #"{"$event":"disconnected","code":65535,"reason":"x","clean":true,"by":"server","unconfirmed":0}"#)
    }

    /// Issue 30: what the server's TCP took and it may not have read, only when there is some.
    func testUnreadLinesComeOnlyWhenThereAreSome() {
        var unconfirmed = LineTally(), unread = LineTally()
        unconfirmed.add(tag: 9)
        unread.add(tag: 7)
        unread.add(tag: 8)
        assertLine(EventLine.disconnected(code: 1006, reason: "", clean: false, by: "server", unconfirmed: unconfirmed,
                                          unread: unread),
                   #"{"$event":"disconnected","code":1006,"reason":"","clean":false,"by":"server","unconfirmed":1,"#
                   + #""unconfirmed_lines":[9,9],"unread":2,"unread_lines":[7,8]}"#)
        assertLine(EventLine.clientDisconnected(id: 3, code: .normal, reason: "", clean: true, unread: unread),
                   #"{"$event":"client_disconnected","id":3,"code":1000,"reason":"","clean":true,"unconfirmed":0,"#
                   + #""not_sent":0,"unread":2,"unread_lines":[7,8]}"#)
    }

    func testReasonsAreEscaped() {
        assertLine(EventLine.disconnected(code: 4000, reason: "say \"bye\"\nback\\slash\ttab", clean: false, by: "server"),
                   #"{"$event":"disconnected","code":4000,"reason":"say \"bye\"\nback\\slash\ttab","clean":false,"by":"server","unconfirmed":0}"#)
        assertLine(EventLine.disconnected(code: 1001, reason: "caf\u{E9} \u{1F600} \u{1}\u{7F}", clean: true, by: "server"),
                   "{\"$event\":\"disconnected\",\"code\":1001,\"reason\":\"caf\u{E9} \u{1F600} \\u0001\u{7F}\",\"clean\":true,\"by\":\"server\",\"unconfirmed\":0}")
        // Non-ASCII passes through as UTF-8 bytes.
        let bytes = EventLine.gaveUp(attempts: 1, reason: "\u{E9}")
        XCTAssertEqual(Array(bytes.suffix(5)), [0xC3, 0xA9, 0x22, 0x7D, 0x0A])
    }

    func testReconnecting() {
        assertLine(EventLine.reconnecting(attempt: 2, delayMs: 1000),
                   #"{"$event":"reconnecting","attempt":2,"delay_ms":1000}"#)
        assertLine(EventLine.reconnecting(attempt: 0, delayMs: 0),
                   #"{"$event":"reconnecting","attempt":0,"delay_ms":0}"#)
        assertLine(EventLine.reconnecting(attempt: 3, delayMs: Int64.max),
                   #"{"$event":"reconnecting","attempt":3,"delay_ms":9223372036854775807}"#)
    }

    func testGaveUp() {
        assertLine(EventLine.gaveUp(attempts: 4, reason: "connect to 127.0.0.1:9: Connection refused"),
                   #"{"$event":"gave_up","attempts":4,"reason":"connect to 127.0.0.1:9: Connection refused"}"#)
    }

    func testAckedInsertsTheRawKey() {
        assertLine(EventLine.acked(key: Array("17".utf8)), #"{"$event":"acked","key":17}"#)
        assertLine(EventLine.acked(key: Array(#""a\"b""#.utf8)), #"{"$event":"acked","key":"a\"b"}"#)
        assertLine(EventLine.acked(key: Array(#"{"x":[1,null]}"#.utf8)),
                   #"{"$event":"acked","key":{"x":[1,null]}}"#)
    }

    func testInvalidInput() {
        assertLine(EventLine.invalidInput(line: 3, column: 5, reason: "expected value"),
                   #"{"$event":"invalid_input","line":3,"column":5,"reason":"expected value"}"#)
        assertLine(EventLine.invalidInput(line: 1, column: 2, reason: "invalid escape '\\q' in string"),
                   #"{"$event":"invalid_input","line":1,"column":2,"reason":"invalid escape '\\q' in string"}"#)
    }

    func testUnacked() {
        assertLine(EventLine.unacked(keys: [Array("4".utf8), Array("7".utf8)]),
                   #"{"$event":"unacked","keys":[4,7]}"#)
        assertLine(EventLine.unacked(keys: []), #"{"$event":"unacked","keys":[]}"#)
        assertLine(EventLine.unacked(keys: [Array(#""x""#.utf8)]), #"{"$event":"unacked","keys":["x"]}"#)
    }

    func testClientEvents() {
        assertLine(EventLine.clientConnected(id: 1, peer: "[::1]:50312"),
                   #"{"$event":"client_connected","id":1,"peer":"[::1]:50312"}"#)
        assertLine(EventLine.clientDisconnected(id: 12, code: 1001, reason: "going away", clean: true),
                   #"{"$event":"client_disconnected","id":12,"code":1001,"reason":"going away","clean":true,"#
                   + #""unconfirmed":0,"not_sent":0}"#)
        var unconfirmed = LineTally(), notSent = LineTally()
        unconfirmed.add(tag: 15_259)
        unconfirmed.add(tag: 16_290)
        notSent.add(tag: 16_291)
        assertLine(EventLine.clientDisconnected(id: 3, code: 1006, reason: "", clean: false,
                                                unconfirmed: unconfirmed, notSent: notSent),
                   #"{"$event":"client_disconnected","id":3,"code":1006,"reason":"","clean":false,"#
                   + #""unconfirmed":2,"unconfirmed_lines":[15259,16290],"not_sent":1,"not_sent_lines":[16291,16291]}"#)
        assertLine(EventLine.disconnected(code: 1006, reason: "x", clean: false, by: "server", unconfirmed: unconfirmed),
                   #"{"$event":"disconnected","code":1006,"reason":"x","clean":false,"by":"server","#
                   + #""unconfirmed":2,"unconfirmed_lines":[15259,16290]}"#)
    }

    func testWriterNegativeNumbersAndNesting() {
        var writer = JSONObjectWriter()
        writer.int("a", -42)
        writer.int("min", Int64.min)
        writer.beginObject("o")
        writer.bool("t", true)
        writer.string("s", "")
        writer.endObject()
        writer.int("z", 0)
        XCTAssertEqual(String(decoding: writer.finishLine(), as: UTF8.self),
                       #"{"a":-42,"min":-9223372036854775808,"o":{"t":true,"s":""},"z":0}"# + "\n")
    }
}
