import XCTest
@testable import WSBridge
import WSTransport

final class TranscriptFormatterTests: XCTestCase {
    private let time = TimeOfDay(hour: 12, minute: 1, second: 2, millisecond: 3)
    private let esc = "\u{1B}"

    private func message(_ payload: [UInt8], binary: Bool = false, _ direction: TranscriptDirection = .received,
                         colors: Bool = false) -> String {
        let f = TranscriptFormatter(colors: colors)
        return String(decoding: payload.withUnsafeBytes { f.message($0, binary: binary, direction: direction, at: time) },
                      as: UTF8.self)
    }

    private func message(_ text: String, _ direction: TranscriptDirection = .received, colors: Bool = false) -> String {
        message(Array(text.utf8), direction, colors: colors)
    }

    private func note(_ n: ConsoleNote, colors: Bool = false) -> String {
        String(decoding: TranscriptFormatter(colors: colors).note(n, at: time), as: UTF8.self)
    }

    func testTimeOfDay() {
        XCTAssertEqual(time.description, "12:01:02.003")
        XCTAssertEqual(TimeOfDay(hour: 0, minute: 0, second: 0, millisecond: 999).description, "00:00:00.999")
        let now = TimeOfDay.now()
        XCTAssertTrue((0..<24).contains(now.hour) && (0..<60).contains(now.minute) && (0..<1000).contains(now.millisecond))
    }

    func testSmallJSONIsPrettyPrintedUnderItsMark() {
        XCTAssertEqual(message(#"{"type":"hello","n":[1,2]}"#), """
            < 12:01:02.003 {\r
                             "type": "hello",\r
                             "n": [\r
                               1,\r
                               2\r
                             ]\r
                           }\r\n
            """)
        XCTAssertEqual(message("42", .sent), "> 12:01:02.003 42\r\n")
    }

    func testColouredJSON() {
        XCTAssertEqual(message(#"{"a":true}"#, colors: true),
                       "\(esc)[1;35m<\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m "
                       + "\(esc)[1m{\(esc)[0m\r\n                 \(esc)[34;1m\"a\"\(esc)[0m\(esc)[1m:\(esc)[0m "
                       + "\(esc)[90mtrue\(esc)[0m\r\n               \(esc)[1m}\(esc)[0m\r\n")
        XCTAssertEqual(message("1", .sent, colors: true),
                       "\(esc)[1;36m>\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m 1\r\n")
    }

    func testLargeJSONIsCompact() {
        let many = "[" + (1...25).map(String.init).joined(separator: ",\n") + "]"
        XCTAssertEqual(message(many), "< 12:01:02.003 [" + (1...25).map(String.init).joined(separator: ",") + "]\r\n",
                       "more than 20 lines pretty-printed")
        let wide = "{\"k\":\"" + String(repeating: "x", count: 2100) + "\"}"
        XCTAssertEqual(message(wide), "< 12:01:02.003 " + wide + "\r\n", "more than 2 KiB")
    }

    func testHugeMessagesAreCutWithTheirSize() {
        let huge = "[\"" + String(repeating: "é", count: 3000) + "\"]"   // 6004 bytes
        let shown = message(huge)
        XCTAssertTrue(shown.hasPrefix("< 12:01:02.003 [\"éé"))
        XCTAssertTrue(shown.hasSuffix("é … (6004 bytes)\r\n"), String(shown.suffix(30)))
        XCTAssertEqual(shown.utf8.count, 15 + 4096 + " … (6004 bytes)\r\n".utf8.count, "cut on a character boundary")
        let text = String(repeating: "t", count: 5000)
        XCTAssertEqual(message(text), "< 12:01:02.003 text \"" + String(repeating: "t", count: 4095) + " … (5000 bytes)\r\n")
    }

    func testTextThatIsNotJSONIsQuoted() {
        XCTAssertEqual(message("hello \"world\"\n"), "< 12:01:02.003 text \"hello \\\"world\\\"\\n\"\r\n")
        XCTAssertEqual(message(""), "< 12:01:02.003 text \"\"\r\n")
        XCTAssertEqual(message("hi", colors: true),
                       "\(esc)[1;35m<\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m \(esc)[2mtext \(esc)[0m\(esc)[32m\"hi\"\(esc)[0m\r\n")
    }

    func testNothingFromThePeerReachesTheTerminalRaw() {
        // ESC in text, DEL and C1 CSI (U+009B) in a valid JSON string.
        XCTAssertEqual(message("a\u{1B}[2Jb"), "< 12:01:02.003 text \"a\\u001b[2Jb\"\r\n")
        XCTAssertEqual(message("[\"x\u{7F}\u{9B}31m\"]"), "< 12:01:02.003 [\r\n                 \"x\\u007f\\u009b31m\"\r\n               ]\r\n")
        XCTAssertEqual(note(.disconnected(code: 4000, reason: "bye\u{1B}]0;pwned\u{07}", by: "server")),
                       "- 12:01:02.003 disconnected: 4000 \"bye\\x1b]0;pwned\\x07\", closed by the server\r\n")
    }

    func testBinaryAsSizeAndHexPreview() {
        XCTAssertEqual(message([0x00, 0x01, 0xAB, 0xFF], binary: true), "< 12:01:02.003 binary 4 bytes: 00 01 ab ff\r\n")
        XCTAssertEqual(message([7], binary: true, .sent), "> 12:01:02.003 binary 1 byte: 07\r\n")
        XCTAssertEqual(message([], binary: true), "< 12:01:02.003 binary 0 bytes\r\n")
        XCTAssertEqual(message(Array(0..<40), binary: true),
                       "< 12:01:02.003 binary 40 bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f …\r\n")
    }

    func testLifecycleNotes() {
        XCTAssertEqual(note(.connected(url: "ws://h:1/p", status: 101, subprotocol: "chat", extensions: "permessage-deflate")),
                       "- 12:01:02.003 connected to ws://h:1/p (HTTP 101, subprotocol chat, extensions permessage-deflate)\r\n")
        XCTAssertEqual(note(.connected(url: "ws://h/", status: 101, subprotocol: nil, extensions: nil)),
                       "- 12:01:02.003 connected to ws://h/ (HTTP 101)\r\n")
        XCTAssertEqual(note(.disconnected(code: 1000, reason: "", by: "client")),
                       "- 12:01:02.003 disconnected: 1000 (normal closure), closed by the client\r\n")
        XCTAssertEqual(note(.disconnected(code: 1006, reason: "", by: nil)),
                       "- 12:01:02.003 disconnected: 1006 (no Close frame), connection lost\r\n")
        XCTAssertEqual(note(.reconnecting(attempt: 3, delayMillis: 2450)),
                       "- 12:01:02.003 reconnecting in 2.5 s (attempt 3)\r\n")
        XCTAssertEqual(note(.pong(payload: "", roundTripNanos: 12_340_000)), "- 12:01:02.003 pong in 12.3 ms\r\n")
        XCTAssertEqual(note(.pong(payload: "hi", roundTripNanos: 51_000)), "- 12:01:02.003 pong \"hi\" in 0.1 ms\r\n")
        XCTAssertEqual(note(.connecting(url: "ws://h/", attempt: 2)), "- 12:01:02.003 connecting to ws://h/ (attempt 2)\r\n")
        XCTAssertEqual(note(.failed("connection refused"), colors: true),
                       "\(esc)[2m-\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m \(esc)[31mconnection refused\(esc)[0m\r\n")
    }

    func testMultiLineNoteIsIndented() {
        let f = TranscriptFormatter(colors: false)
        XCTAssertEqual(String(decoding: f.note(text: "one\ntwo", at: time), as: UTF8.self),
                       "- 12:01:02.003 one\r\n               two\r\n")
    }
}
