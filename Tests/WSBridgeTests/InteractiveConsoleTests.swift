import XCTest
@testable import WSBridge
import WSTransport

final class InteractiveConsoleTests: XCTestCase {
    private let esc = "\u{1B}"
    private var directory = ""

    override func tearDown() {
        if !directory.isEmpty { _ = system("rm -rf '\(directory)'") }
    }

    private func console(format: LineFormat = .json, lenient: Bool = false, columns: Int = 60,
                         history: String? = nil) -> InteractiveConsole {
        var options = InteractiveConsole.Options()
        options.format = format
        options.lenient = lenient
        options.columns = columns
        options.rows = 24
        options.historyPath = history
        options.home = "/home/me"
        options.clock = { TimeOfDay(hour: 9, minute: 8, second: 7, millisecond: 6) }
        return InteractiveConsole(options: options)
    }

    private func feed(_ c: InteractiveConsole, _ s: String) -> (String, [InteractiveConsole.Action]) {
        let out = c.feed(Array(s.utf8))
        return (String(decoding: out.bytes, as: UTF8.self), out.actions)
    }

    func testStartDrawsThePrompt() {
        XCTAssertEqual(String(decoding: console().start(), as: UTF8.self), "> \r\(esc)[2C")
    }

    func testTypingRedrawsOncePerRead() {
        let c = console()
        _ = c.start()
        XCTAssertEqual(feed(c, "{}").0, "\r\(esc)[J> {}\r\(esc)[4C")
        XCTAssertEqual(feed(c, "\(esc)[D").0, "\r\(esc)[J> {}\r\(esc)[3C")
        XCTAssertEqual(feed(c, "\(esc)[2~").0, "", "a key that changes nothing draws nothing")
    }

    func testValidJSONIsSentCompactedAndEchoed() {
        let c = console()
        _ = c.start()
        let (screen, actions) = feed(c, "\(esc)[200~{\r  \"a\": [1, 2]\r}\(esc)[201~\r")
        XCTAssertEqual(actions, [.sendText(Array(#"{"a":[1,2]}"#.utf8))])
        XCTAssertTrue(screen.hasSuffix("""
            \r\(esc)[J> 09:08:07.006 {\r
                             "a": [\r
                               1,\r
                               2\r
                             ]\r
                           }\r
            > \r\(esc)[2C
            """), screen)
        XCTAssertEqual(c.history, ["{\n  \"a\": [1, 2]\n}"], "the history keeps what was typed")
    }

    func testEnvelopesAreUnwrappedAsOnStdin() {
        let c = console()
        XCTAssertEqual(feed(c, #"{"$binary":"AAEC"}"# + "\r").1, [.sendBinary([0, 1, 2])])
        XCTAssertEqual(feed(c, #"{"$text":"not json"}"# + "\r").1, [.sendText(Array("not json".utf8))])
        let (screen, actions) = feed(c, #"{"$binary":"%%%"}"# + "\r")
        XCTAssertEqual(actions, [])
        XCTAssertTrue(screen.contains("invalid base64 in $binary; not sent"), screen)
    }

    func testInvalidJSONStaysWithTheErrorUnderItAndTheCursorOnIt() {
        let c = console()
        _ = c.start()
        let (screen, actions) = feed(c, "{\"a\" 1}\r")
        XCTAssertEqual(actions, [])
        XCTAssertEqual(screen, "\r\(esc)[J> {\"a\" 1}\r\n"
                       + "invalid JSON at 1:6: expected ':' after object key; not sent (/text sends text as is)"
                           .prefix(58) + "…"
                       + "\(esc)[1A\r\(esc)[7C")
        // Fixing it: type ':' where the cursor is, then Enter.
        let (_, fixed) = feed(c, ":\r")
        XCTAssertEqual(fixed, [.sendText(Array(#"{"a" :1}"#.utf8))], "sent as typed: one line needs no compaction")
        XCTAssertEqual(c.history, [#"{"a" :1}"#], "only what was sent is remembered")
    }

    func testLenientSendsInvalidJSONAsText() {
        let c = console(lenient: true)
        XCTAssertEqual(feed(c, "hello\r").1, [.sendText(Array("hello".utf8))])
    }

    func testBlankLinesAreSkipped() {
        let c = console()
        XCTAssertEqual(feed(c, "   \r").1, [])
        XCTAssertEqual(c.history, [])
        XCTAssertEqual(feed(c, "\r").1, [])
    }

    func testRawModesSendLinesAsTyped() {
        XCTAssertEqual(feed(console(format: .text), "not json\r").1, [.sendText(Array("not json".utf8))])
        XCTAssertEqual(feed(console(format: .binary), "abc\r").1, [.sendBinary(Array("abc".utf8))])
        XCTAssertEqual(feed(console(format: .text), "//tmp/x\r").1, [.sendText(Array("/tmp/x".utf8))])
    }

    func testCommandsBecomeActions() {
        let c = console()
        XCTAssertEqual(feed(c, "/ping hi\r").1, [.ping(Array("hi".utf8))])
        XCTAssertEqual(feed(c, "/close 4000 done\r").1, [.close(code: 4000, reason: "done")])
        XCTAssertEqual(feed(c, "/binary ~/f.bin\r").1, [.sendFile(path: "/home/me/f.bin")])
        XCTAssertEqual(feed(c, "/text raw\r").1, [.sendText(Array("raw".utf8))])
        XCTAssertEqual(feed(c, "/reconnect\r/quit\r").1, [.reconnect, .quit])
        XCTAssertEqual(c.history, ["/ping hi", "/close 4000 done", "/binary ~/f.bin", "/text raw", "/reconnect", "/quit"])
        let (help, actions) = feed(c, "/help\r")
        XCTAssertEqual(actions, [])
        XCTAssertTrue(help.contains("- 09:08:07.006 /ping [TEXT]"), help)
        let (screen, none) = feed(c, "/close 1006\r")
        XCTAssertEqual(none, [])
        XCTAssertTrue(screen.contains("close code must be"), screen)
    }

    func testCtrlCAndCtrlD() {
        let c = console()
        XCTAssertEqual(feed(c, "abc\u{03}").1, [])
        XCTAssertEqual(feed(c, "\u{03}").1, [.interrupt])
        XCTAssertEqual(feed(c, "x\u{04}\u{08}\u{04}").1, [.endOfInput], "Ctrl-D closes only on an empty line")
        XCTAssertEqual(feed(c, "\u{1A}").1, [.suspend])
    }

    func testIncomingMessageIsPrintedAboveTheLineBeingTyped() {
        let c = console()
        _ = c.start()
        _ = feed(c, "{\"par")
        _ = feed(c, "\(esc)[D")
        let out = Array(#"{"n":1}"#.utf8).withUnsafeBytes { c.showMessage($0, binary: false, direction: .received) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self),
                       "\r\(esc)[J< 09:08:07.006 {\r\n                 \"n\": 1\r\n               }\r\n> {\"par\r\(esc)[6C")
        let (_, actions) = feed(c, "\(esc)[F\":1}\r")
        XCTAssertEqual(actions, [.sendText(Array(#"{"par":1}"#.utf8))], "the line went on where it was")
    }

    func testLifecycleNotesAndResize() {
        let c = console(columns: 20)
        _ = c.start()
        _ = feed(c, String(repeating: "x", count: 30))
        let note = String(decoding: c.show(.reconnecting(attempt: 2, delayMillis: 1000)), as: UTF8.self)
        XCTAssertEqual(note, "\(esc)[1A\r\(esc)[J- 09:08:07.006 reconnecting in 1.0 s (attempt 2)\r\n"
                       + "> xxxxxxxxxxxxxxxxxx\r\nxxxxxxxxxxxx\r\(esc)[12C")
        let resized = String(decoding: c.resize(columns: 40, rows: 24), as: UTF8.self)
        XCTAssertEqual(resized, "\(esc)[1A\r\(esc)[J> xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\(esc)[32C")
        XCTAssertEqual(String(decoding: c.finish(), as: UTF8.self), "\r\(esc)[J")
    }

    func testEscapeCancelsSearchAfterTheTimeout() {
        let c = console()
        _ = feed(c, "\"one\"\r")
        _ = feed(c, "\u{12}on")
        XCTAssertTrue(feed(c, "\(esc)").0.isEmpty)
        XCTAssertTrue(c.isHoldingEscape)
        let out = c.escapeTimeout()
        XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), "\r\(esc)[J> \r\(esc)[2C")
        XCTAssertFalse(c.isHoldingEscape)
    }

    func testHistoryIsWrittenAsLinesAreSentAndLoadedNextTime() {
        var template = Array("/tmp/wspipe-console-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let path = HistoryFile.defaultPath(stateHome: directory, home: nil)!
        let first = console(history: path)
        _ = feed(first, "[1]\r\(esc)[200~{\r\"a\":2}\(esc)[201~\r/ping\rbad\r")
        let second = console(history: path)
        XCTAssertEqual(second.history, ["[1]", "{\n\"a\":2}", "/ping"])
        XCTAssertEqual(feed(second, "\(esc)[A\(esc)[A\r").1, [.sendText(Array(#"{"a":2}"#.utf8))])
    }

    /// bash's ignorespace: a line typed with a leading space is sent but kept
    /// out of the history, in memory and on disk.
    func testALeadingSpaceKeepsALineOutOfTheHistory() {
        var template = Array("/tmp/wspipe-console-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        let path = HistoryFile.defaultPath(stateHome: directory, home: nil)!
        let c = console(history: path)
        _ = c.start()
        XCTAssertEqual(feed(c, #" {"token":"s3cret"}"#).1, [])
        XCTAssertEqual(feed(c, "\r").1, [.sendText(Array(#" {"token":"s3cret"}"#.utf8))], "sent all the same")
        XCTAssertEqual(feed(c, "[1]\r").1, [.sendText(Array("[1]".utf8))])
        XCTAssertEqual(c.history, ["[1]"])
        XCTAssertEqual(console(history: path).history, ["[1]"], "nor on disk")
        XCTAssertEqual(feed(c, "\(esc)[A\(esc)[A\r").1, [.sendText(Array("[1]".utf8))], "Up never shows it")
    }

    func testUnreadableHistoryIsAWarningNotAFailure() {
        let c = console(history: "/proc/version/history")
        let start = String(decoding: c.start(), as: UTF8.self)
        XCTAssertTrue(start.hasPrefix("- 09:08:07.006 history: cannot read /proc/version/history: "), start)
        XCTAssertEqual(feed(c, "1\r").1, [.sendText([0x31])])
    }
}
