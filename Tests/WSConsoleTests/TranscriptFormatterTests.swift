import XCTest
@testable import WSConsole
import WSTerminal
import WSTransport

final class TranscriptFormatterTests: XCTestCase {
    private let time = TimeOfDay(hour: 12, minute: 1, second: 2, millisecond: 3)
    private let esc = "\u{1B}"

    private func message(_ payload: [UInt8], binary: Bool = false, _ direction: TranscriptDirection = .received,
                         colors: Bool = false, columns: Int = 80, rows: Int = 24, mode: TranscriptMode = .pretty,
                         number: Int? = 7, full: Bool = false) -> String {
        var f = TranscriptFormatter(colors: colors, columns: columns, screenRows: rows)
        f.mode = mode
        return String(decoding: payload.withUnsafeBytes {
            f.message($0, binary: binary, direction: direction, at: time, number: number, full: full)
        }, as: UTF8.self)
    }

    private func message(_ text: String, _ direction: TranscriptDirection = .received, colors: Bool = false,
                         columns: Int = 80, rows: Int = 24, mode: TranscriptMode = .pretty, full: Bool = false) -> String {
        message(Array(text.utf8), direction, colors: colors, columns: columns, rows: rows, mode: mode, full: full)
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

    func testAMessageThatFitsTakesOneRow() {
        XCTAssertEqual(message(#"{ "type": "pong", "id": 7 }"#), #"< 12:01:02.003 {"type":"pong","id":7}"# + "\r\n")
        XCTAssertEqual(message("42", .sent), "> 12:01:02.003 42\r\n")
        // 65 columns for the body at 80: 65 fit, 66 do not.
        let fits = "[\"" + String(repeating: "x", count: 61) + "\"]"
        XCTAssertEqual(message(fits), "< 12:01:02.003 " + fits + "\r\n")
        let wider = "[\"" + String(repeating: "x", count: 62) + "\"]"
        XCTAssertEqual(message(wider), "< 12:01:02.003 [\r\n                 \"" + String(repeating: "x", count: 61)
                       + "\r\n                   x\"\r\n               ]\r\n", "the closing quote keeps a character with it")
    }

    func testALargerOneIsPrettyPrintedUnderItsMark() {
        let json = #"{"type":"hello","members":["ann","bob"],"room":{"id":12,"topic":"a topic long enough to need more room"}}"#
        XCTAssertEqual(message(json, columns: 60), """
            < 12:01:02.003 {\r
                             "type": "hello",\r
                             "members": ["ann", "bob"],\r
                             "room": {\r
                               "id": 12,\r
                               "topic":\r
                                 "a topic long enough to need more room"\r
                             }\r
                           }\r\n
            """)
    }

    func testColouredJSON() {
        XCTAssertEqual(message(#"{"a":true}"#, colors: true),
                       "\(esc)[1;35m<\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m "
                       + "\(esc)[1m{\(esc)[0m\(esc)[34;1m\"a\"\(esc)[0m\(esc)[1m:\(esc)[0m"
                       + "\(esc)[90mtrue\(esc)[0m\(esc)[1m}\(esc)[0m\r\n")
        XCTAssertEqual(message("1", .sent, colors: true),
                       "\(esc)[1;36m>\(esc)[0m \(esc)[2m12:01:02.003\(esc)[0m 1\r\n")
    }

    func testAMessageLongerThanTheScreenIsFolded() {
        let many = "[" + (1...30).map { "{\"n\":\($0)}" }.joined(separator: ",") + "]"
        let shown = message(many, columns: 50, rows: 12).components(separatedBy: "\r\n")
        XCTAssertEqual(shown.count, 9 + 1, "9 rows of a 12-row screen, then the end of the last")
        XCTAssertEqual(shown[0], "< 12:01:02.003 [")
        XCTAssertEqual(shown[8], "               … 84 more lines, /show 7")
        // Asked for: all of it.
        let full = message(many, columns: 50, rows: 12, full: true).components(separatedBy: "\r\n")
        XCTAssertEqual(full.count, 92 + 1)
        XCTAssertEqual(full[91], "               ]")
        // Not kept: no /show to offer.
        XCTAssertTrue(message(Array(many.utf8), columns: 50, rows: 12, number: nil)
            .hasSuffix("… 84 more lines (no longer kept)\r\n"))
    }

    func testCompactModeKeepsEveryMessageOnOneRow() {
        let json = #"{"type":"hello","members":["ann","bob"],"room":{"id":12,"topic":"a topic"}}"#
        XCTAssertEqual(message(json, columns: 40, mode: .compact), #"< 12:01:02.003 {"type":"hello","members…"# + "\r\n")
        XCTAssertEqual(message("text that is long enough to be cut", columns: 40, mode: .compact),
                       "< 12:01:02.003 text \"text that is long …\r\n")
        XCTAssertEqual(message(#"{"a":1}"#, columns: 40, mode: .compact), #"< 12:01:02.003 {"a":1}"# + "\r\n")
        // Only the start of a message is read for its row; blanks do not hide that it goes on.
        let spaced = "[" + String(repeating: " ", count: 200) + "1, 2]"
        XCTAssertEqual(message(spaced, columns: 40, mode: .compact), "< 12:01:02.003 […\r\n")
    }

    /// `/show N` under /compact printed the cut row again, not the message.
    func testShowUnderCompactLaysTheMessageOutWhole() {
        let json = #"{"type":"hello","members":["ann","bob"],"room":{"id":12,"topic":"a topic"}}"#
        let shown = message(json, columns: 40, mode: .compact, full: true)
        XCTAssertEqual(shown, message(json, columns: 40, mode: .pretty, full: true))
        XCTAssertTrue(shown.contains("\"a topic\"") && !shown.contains("…"), shown)
        let text = message("text that is long enough to be cut", columns: 40, mode: .compact, full: true)
        XCTAssertTrue(text.contains("be cut\"") && !text.contains("…"), text)
    }

    func testHugeMessagesShowTheirStartAndSize() {
        let huge = "[\"" + String(repeating: "é", count: 200_000) + "\"]"   // 400 004 bytes
        let shown = message(huge, columns: 60).components(separatedBy: "\r\n")
        XCTAssertEqual(shown.count, 3)
        XCTAssertEqual(shown[0], "< 12:01:02.003 [\"" + String(repeating: "é", count: 42) + "…")
        XCTAssertEqual(shown[1], "               … 400004 bytes in all, /show 7")
        let text = String(repeating: "t", count: 5000)
        let folded = message(text, columns: 60, rows: 10).components(separatedBy: "\r\n")
        XCTAssertEqual(folded.count, 7 + 1)
        XCTAssertEqual(folded[0], "< 12:01:02.003 text \"" + String(repeating: "t", count: 39))
        XCTAssertEqual(folded[1], "                 " + String(repeating: "t", count: 43))
        XCTAssertEqual(folded[6], "               … 111 more lines, /show 7", "117 rows in all")
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
        XCTAssertEqual(message("[\"x\u{7F}\u{9B}31m\"]"), "< 12:01:02.003 [\"x\\u007f\\u009b31m\"]\r\n")
        XCTAssertEqual(message("[\"x\u{7F}\u{9B}31m\"]", mode: .compact), "< 12:01:02.003 [\"x\\u007f\\u009b31m\"]\r\n")
        XCTAssertEqual(note(.disconnected(code: 4000, reason: "bye\u{1B}]0;pwned\u{07}", by: "server")),
                       "- 12:01:02.003 disconnected: 4000 \"bye\\x1b]0;pwned\\x07\", closed by the server\r\n")
    }

    func testBinaryAsSizeAndHexPreview() {
        XCTAssertEqual(message([0x00, 0x01, 0xAB, 0xFF], binary: true), "< 12:01:02.003 binary 4 bytes: 00 01 ab ff\r\n")
        XCTAssertEqual(message([7], binary: true, .sent), "> 12:01:02.003 binary 1 byte: 07\r\n")
        XCTAssertEqual(message([], binary: true), "< 12:01:02.003 binary 0 bytes\r\n")
        XCTAssertEqual(message(Array(0..<40), binary: true, columns: 100),
                       "< 12:01:02.003 binary 40 bytes: 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f …\r\n")
        XCTAssertEqual(message(Array(0..<40), binary: true, columns: 40), "< 12:01:02.003 binary 40 bytes: 00 01 0…\r\n")
        XCTAssertEqual(message(Array(0..<20), binary: true, full: true), """
            < 12:01:02.003 binary 20 bytes\r
                           00000000  00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e 0f\r
                           00000010  10 11 12 13\r\n
            """)
    }

    func testLifecycleNotes() {
        XCTAssertEqual(note(.connected(url: "ws://h:1/p", status: 101, subprotocol: "chat", extensions: "permessage-deflate")),
                       "- 12:01:02.003 connected to ws://h:1/p (HTTP 101, subprotocol chat, extensions\r\n"
                       + "               permessage-deflate)\r\n")
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
        XCTAssertEqual(String(decoding: TranscriptFormatter(colors: false, columns: 40)
                            .note(.info("a note longer than the row wraps between its words"), at: time), as: UTF8.self),
                       "- 12:01:02.003 a note longer than the\r\n               row wraps between its\r\n               words\r\n")
    }

    func testMultiLineNoteIsIndented() {
        let f = TranscriptFormatter(colors: false)
        XCTAssertEqual(String(decoding: f.note(text: "one\ntwo", at: time), as: UTF8.self),
                       "- 12:01:02.003 one\r\n               two\r\n")
    }

    func testFindListsNumberDirectionTimeAndAsMuchAsFits() {
        let f = TranscriptFormatter(colors: false, columns: 60)
        let entries = [
            Transcript.Entry(number: 3, time: time, direction: .sent, binary: false, payload: Array(#"{"type":"join","room":"general"}"#.utf8)),
            Transcript.Entry(number: 12, time: time, direction: .received, binary: true, payload: [1, 2]),
            Transcript.Entry(number: 13, time: time, direction: .received, binary: false, payload: Array("plain".utf8)),
        ]
        XCTAssertEqual(String(decoding: f.listing(heading: "3 messages:", entries: entries, at: time), as: UTF8.self), """
            - 12:01:02.003 3 messages:\r
                           #3 > 12:01:02.003 {"type":"join","room":"gen…\r
                           #12 < 12:01:02.003 binary 2 bytes: 01 02\r
                           #13 < 12:01:02.003 text "plain"\r\n
            """)
    }

    func testHelpListsEveryCommandAndKey() {
        let help = String(decoding: TranscriptFormatter(colors: false, columns: 120).help(at: time), as: UTF8.self)
        for entry in InteractiveHelp.commands + InteractiveHelp.keys {
            XCTAssertTrue(help.contains(entry.usage), entry.usage)
        }
        XCTAssertTrue(help.contains("/show N                              Print message N in full, pretty-printed."), help)
        let narrow = String(decoding: TranscriptFormatter(colors: false, columns: 50).help(at: time), as: UTF8.self)
        XCTAssertTrue(narrow.contains("/show N\r\n                   Print message N in full,"), narrow)
    }

    // MARK: narrow terminals

    /// Every row within the screen, from 30 columns down to 8: a row wider
    /// than the terminal is wrapped by it, and what is drawn after it lands
    /// on the wrong rows.
    func testEveryRowFitsANarrowTerminal() {
        let json = #"{"type":"order","id":"needle-42","lines":[{"sku":"A-1","qty":2,"note":"deliver to the back door"},"#
            + #"{"sku":"B-22","qty":10,"deep":{"a":{"b":{"c":[true,null]}}}}],"n":[1,2,3,4,5,6,7,8,9,10,11,12],"#
            + #""text":"café 世界 👍🏽","big":12345678901234567890}"#
        let entries = [
            Transcript.Entry(number: 3, time: time, direction: .sent, binary: false, payload: Array(json.utf8)),
            Transcript.Entry(number: 120, time: time, direction: .received, binary: true, payload: Array(0..<40)),
        ]
        for columns in 8...30 {
            var f = TranscriptFormatter(colors: false, columns: columns, screenRows: 60)
            var shown: [[UInt8]] = []
            for mode in [TranscriptMode.pretty, .compact] {
                f.mode = mode
                shown.append(Array(json.utf8).withUnsafeBytes { f.message($0, binary: false, direction: .received, at: time) })
                shown.append(Array("plain text, not JSON, long enough to wrap".utf8).withUnsafeBytes {
                    f.message($0, binary: false, direction: .sent, at: time)
                })
                shown.append([UInt8](0..<40).withUnsafeBytes { f.message($0, binary: true, direction: .received, at: time) })
            }
            shown.append([UInt8](0..<40).withUnsafeBytes {
                f.message($0, binary: true, direction: .received, at: time, number: 4, full: true)
            })
            shown.append(f.note(.connected(url: "ws://127.0.0.1:8765/chat", status: 101, subprotocol: nil, extensions: nil),
                                at: time))
            shown.append(f.help(at: time))
            shown.append(f.listing(heading: "2 messages:", entries: entries, at: time))
            for out in shown {
                let text = String(decoding: out, as: UTF8.self)
                for row in text.components(separatedBy: "\r\n") {
                    XCTAssertLessThanOrEqual(TextUnits.columns(Array(row.utf8)), columns, "at \(columns) columns: \(row)")
                }
            }
        }
    }

    func testUnder25ColumnsTheBodyGoesUnderTheMarkAndTheTime() {
        XCTAssertEqual(message(#"{"a":1,"b":[1,2]}"#, columns: 24), "< 12:01:02.003\r\n  {\"a\":1,\"b\":[1,2]}\r\n")
        XCTAssertEqual(message(#"{"a":1,"b":[1,2]}"#, columns: 16), "< 12:01:02.003\r\n  {\r\n    \"a\": 1,\r\n    \"b\": [1, 2]\r\n  }\r\n")
        XCTAssertEqual(message("[1,2]", columns: 25), "< 12:01:02.003 [1,2]\r\n", "25 columns: beside them")
        XCTAssertEqual(message("[1,2]", columns: 13), "< [1,2]\r\n", "too narrow for the time")
        XCTAssertEqual(String(decoding: TranscriptFormatter(colors: false, columns: 20).note(.info("a note wraps"), at: time),
                              as: UTF8.self), "- 12:01:02.003\r\n  a note wraps\r\n")
    }
}
