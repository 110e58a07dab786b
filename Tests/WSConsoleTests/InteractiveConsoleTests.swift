import XCTest
@testable import WSConsole
import WSTransport
@testable import WSMessages

final class InteractiveConsoleTests: XCTestCase {
    private let esc = "\u{1B}"
    /// How the renderer clears from its first row down (EditorRenderer.clearFromRowStart).
    private let erase = "\r\u{1B}[K\u{1B}[C\u{1B}[J\r"
    private var directory = ""

    override func tearDown() {
        if !directory.isEmpty { _ = system("rm -rf '\(directory)'") }
    }

    private func console(format: LineFormat = .json, lenient: Bool = false, columns: Int = 60, rows: Int = 24,
                         history: String? = nil, statusLine: Bool = false, saved: String? = nil,
                         configure: (inout InteractiveConsole.Options) -> Void = { _ in }) -> InteractiveConsole {
        var options = InteractiveConsole.Options()
        options.format = format
        options.lenient = lenient
        options.columns = columns
        options.rows = rows
        options.historyPath = history
        options.home = "/home/me"
        options.clock = { TimeOfDay(hour: 9, minute: 8, second: 7, millisecond: 6) }
        options.transcriptBytes = 1 << 20
        options.statusLine = statusLine
        options.savedMessagesPath = saved
        configure(&options)
        return InteractiveConsole(options: options)
    }

    private func temporaryDirectory() -> String {
        var template = Array("/tmp/wspipe-console-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        return directory
    }

    private func receive(_ c: InteractiveConsole, _ text: String, binary: Bool = false) -> String {
        String(decoding: Array(text.utf8).withUnsafeBytes { c.showMessage($0, binary: binary, direction: .received) },
               as: UTF8.self)
    }

    private func feed(_ c: InteractiveConsole, _ s: String) -> (String, [InteractiveConsole.Action]) {
        let out = c.feed(Array(s.utf8))
        return (String(decoding: out.bytes, as: UTF8.self), out.actions)
    }

    func testSocketIOTakesOnlyEventLinesAndKeepsTheOthersToFix() {
        let c = console(columns: 200) { $0.socketIO = true }
        _ = c.start()
        let (screen, actions) = feed(c, "{\"type\":\"chat\"}\r")
        XCTAssertEqual(actions, [], "nothing goes out: the session would only refuse it")
        XCTAssertTrue(screen.contains("not a Socket.IO event line: unknown member"), screen)
        XCTAssertEqual(c.history, [], "only what was sent is remembered")
        _ = feed(c, "\u{15}")
        let event = #"{"event":"join","data":{"room":"a"},"ns":"/chat","ack":true}"#
        XCTAssertEqual(feed(c, event + "\r").1, [.sendText(Array(event.utf8))])
        for command in ["/text hi", "/binary /etc/hostname"] {
            let (refused, none) = feed(c, command + "\r")
            XCTAssertEqual(none, [], command)
            XCTAssertTrue(refused.contains("--socketio sends event lines, not bare messages"), refused)
            _ = feed(c, "\u{15}")
        }
        XCTAssertFalse(feed(c, "{\"a\" 1}\r").0.contains("/text"), "no advice to use what is refused")
    }

    func testStartDrawsThePrompt() {
        XCTAssertEqual(String(decoding: console().start(), as: UTF8.self), "> \r\(esc)[2C")
    }

    func testTypingRedrawsOncePerRead() {
        let c = console()
        _ = c.start()
        XCTAssertEqual(feed(c, "{}").0, "\(erase)> {}\r\(esc)[4C")
        XCTAssertEqual(feed(c, "\(esc)[D").0, "\(erase)> {}\r\(esc)[3C")
        XCTAssertEqual(feed(c, "\(esc)[2~").0, "", "a key that changes nothing draws nothing")
    }

    func testValidJSONIsSentCompactedAndEchoed() {
        let c = console()
        _ = c.start()
        let (screen, actions) = feed(c, "\(esc)[200~{\r  \"a\": [1, 2]\r}\(esc)[201~\r")
        XCTAssertEqual(actions, [.sendText(Array(#"{"a":[1,2]}"#.utf8))])
        XCTAssertTrue(screen.hasSuffix("\(erase)> 09:08:07.006 {\"a\":[1,2]}\r\n> \r\(esc)[2C"), screen)
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

    func testInvalidJSONStaysWithTheErrorUnderItAndTheCursorAtTheEnd() {
        let c = console()
        _ = c.start()
        let (screen, actions) = feed(c, "{\"a\" 1}\r")
        XCTAssertEqual(actions, [])
        // The whole error, wrapped: where, why, and that /text would send it.
        XCTAssertEqual(screen, "\(erase)> {\"a\" 1}\r\n"
                       + "invalid JSON at 1:6: expected ':' after object key; not\r\n"
                       + "sent (/text sends text as is)"
                       + "\(esc)[2A\r\(esc)[9C", "the cursor stays after the last character")
        // Ctrl-U (what a shell user presses to start over) clears the whole line.
        XCTAssertEqual(feed(c, "\u{15}").0, "\(erase)> \r\(esc)[2C")
        XCTAssertEqual(feed(c, "{\"a\":1}\r").1, [.sendText(Array(#"{"a":1}"#.utf8))])
        XCTAssertEqual(c.history, [#"{"a":1}"#], "only what was sent is remembered")
    }

    func testTheErrorIsMarkedWithColours() {
        let c = console { $0.colors = true }
        _ = c.start()
        let screen = feed(c, "[1,,2]\r").0
        XCTAssertTrue(screen.contains("> \(esc)[0m[1,\(esc)[4;31m,\(esc)[0m2]"), screen.debugDescription)
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
        XCTAssertEqual(receive(c, #"{"n":1}"#), "\(erase)< 09:08:07.006 {\"n\":1}\r\n> {\"par\r\(esc)[6C")
        let (_, actions) = feed(c, "\(esc)[F\":1}\r")
        XCTAssertEqual(actions, [.sendText(Array(#"{"par":1}"#.utf8))], "the line went on where it was")
    }

    func testLifecycleNotesAndResize() {
        let c = console(columns: 30)
        _ = c.start()
        _ = feed(c, String(repeating: "x", count: 30))
        let note = String(decoding: c.show(.reconnecting(attempt: 2, delayMillis: 1000)), as: UTF8.self)
        XCTAssertEqual(note, "\(esc)[1A\(erase)- 09:08:07.006 reconnecting in\r\n               1.0 s (attempt\r\n"
                       + "               2)\r\n> xxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\nxx\r\(esc)[2C", "wrapped at 15 columns")
        let resized = String(decoding: c.resize(columns: 40, rows: 24), as: UTF8.self)
        XCTAssertEqual(resized, "\(esc)[1A\(erase)> xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\(esc)[32C")
        // Messages are laid out for the new width: 25 columns.
        XCTAssertEqual(receive(c, #"{"a":"0123456789012345678901234"}"#),
                       "\(erase)< 09:08:07.006 {\r\n                 \"a\": \"01234567890123456\r\n"
                       + "                   78901234\"\r\n               }\r\n"
                       + "> xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\(esc)[32C")
        XCTAssertEqual(String(decoding: c.finish(), as: UTF8.self), "\(erase)")
    }

    func testEscapeCancelsSearchAfterTheTimeout() {
        let c = console()
        _ = feed(c, "\"one\"\r")
        _ = feed(c, "\u{12}on")
        XCTAssertTrue(feed(c, "\(esc)").0.isEmpty)
        XCTAssertTrue(c.isHoldingEscape)
        let out = c.escapeTimeout()
        XCTAssertEqual(String(decoding: out.bytes, as: UTF8.self), "\(erase)> \r\(esc)[2C")
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
        XCTAssertTrue(start.hasPrefix("- 09:08:07.006 history: cannot read /proc/version/history:\r\n"), start)
        XCTAssertEqual(feed(c, "1\r").1, [.sendText([0x31])])
    }

    // MARK: the transcript

    func testTheFirstTextThatIsNotJSONSuggestsDashT() {
        let c = console(columns: 100)
        _ = c.start()
        let first = receive(c, "hello there")
        XCTAssertTrue(first.contains("< 09:08:07.006 text \"hello there\"\r\n- 09:08:07.006 the server sent text that is not JSON"),
                      first)
        XCTAssertTrue(first.contains("run wspipe with -t"), first)
        XCTAssertFalse(receive(c, "again").contains("-t"), "once")
        XCTAssertFalse(receive(console(format: .text), "plain").contains("-t"), "not when typed lines are text already")
        // -t cannot join --codec: the note says how text goes out there.
        let coded = receive(console(columns: 200) { $0.codec = .msgpack }, "plain")
        XCTAssertFalse(coded.contains("-t"), coded)
        XCTAssertTrue(coded.contains("typed lines are sent as msgpack (--codec); /text TEXT sends a text message"), coded)
    }

    func testFilterHidesAndCountsAndTheStatusLineSaysSo() {
        let c = console(columns: 100, statusLine: true)
        _ = c.start()
        _ = c.show(.connected(url: "ws://h:1/", status: 101, subprotocol: nil, extensions: nil))
        XCTAssertEqual(feed(c, "/filter -type=pong\r").1, [])
        XCTAssertEqual(receive(c, #"{"type":"pong","id":1}"#), "", "hidden: nothing drawn now")
        XCTAssertTrue(c.statusIsStale, "the count changed: the frontend redraws the status row soon")
        let refreshed = String(decoding: c.refreshStatus(), as: UTF8.self)
        XCTAssertTrue(refreshed.contains("connected · in 1 · out 0 · filter -type=pong (1 hidden) · ws://h:1/"), refreshed)
        XCTAssertFalse(c.statusIsStale)
        XCTAssertEqual(c.refreshStatus(), [], "nothing new: nothing drawn")
        let chat = receive(c, #"{"type":"chat","text":"hi"}"#)
        XCTAssertTrue(chat.contains(#"< 09:08:07.006 {"type":"chat","text":"hi"}"#), chat)
        XCTAssertTrue(chat.contains("in 2 · out 0 · filter -type=pong (1 hidden)"), chat)
        // Sent messages are filtered too, and /filter alone says what is on.
        _ = feed(c, "/filter in\r")
        XCTAssertFalse(feed(c, "{\"type\":\"ping\"}\r").0.contains("> 09:08:07.006"), "out: hidden")
        XCTAssertTrue(feed(c, "/filter\r").0.contains("filter: in (1 hidden); /filter off clears it"))
        XCTAssertTrue(feed(c, "/filter off\r").0.contains("filter off: every message is shown (1 were hidden)"))
        XCTAssertTrue(receive(c, #"{"type":"pong"}"#).contains(#"{"type":"pong"}"#))
        // A filter that does not parse stays on the line, with why.
        let (screen, _) = feed(c, "/filter user.=x\r")
        XCTAssertTrue(screen.contains("/filter: user.: a key path is keys separated by dots"), screen)
        XCTAssertTrue(screen.contains("> /filter user.=x"), screen)
    }

    func testANarrowStatusRowStillCountsWhatTheFilterHid() {
        // 40 columns: "filter -type=pong (1 hidden)" after the counts would
        // be cut at the edge; the count comes first and the filter is cut.
        let c = console(columns: 40, statusLine: true)
        _ = c.start()
        _ = c.show(.connected(url: "ws://h:1/", status: 101, subprotocol: nil, extensions: nil))
        _ = feed(c, "/filter -type=pong\r")
        _ = receive(c, #"{"type":"pong","id":1}"#)
        let narrow = String(decoding: c.refreshStatus(), as: UTF8.self)
        XCTAssertTrue(narrow.contains("connected · in 1 · out 0 · 1 hidden by…"), narrow)
        // Wide enough for it all: as before, the URL last.
        let wide = String(decoding: c.resize(columns: 100, rows: 24), as: UTF8.self)
        XCTAssertTrue(wide.contains("connected · in 1 · out 0 · filter -type=pong (1 hidden) · ws://h:1/"), wide)
        // A filter too long for any terminal: the count stays, the expression goes.
        _ = feed(c, "/filter -type=pong -\(String(repeating: "x", count: 120))\r")
        _ = receive(c, #"{"type":"pong","id":2}"#)
        let long = String(decoding: c.refreshStatus(), as: UTF8.self)
        XCTAssertTrue(long.contains("connected · in 2 · out 0 · 1 hidden by filter -type=pong -xxx"), long)
    }

    func testTheStatusLineNeedsEightRows() {
        let tall = console(columns: 80, rows: 8, statusLine: true)
        let drawn = String(decoding: tall.start(), as: UTF8.self)
        XCTAssertEqual(drawn, "> \r\nstarting · in 0 · out 0\(esc)[1A\r\(esc)[2C")
        XCTAssertEqual(String(decoding: tall.resize(columns: 80, rows: 5), as: UTF8.self),
                       "\(erase)> \r\(esc)[2C", "gone at 5 rows")
        XCTAssertTrue(String(decoding: tall.resize(columns: 80, rows: 30), as: UTF8.self).contains("starting · in 0"))
        XCTAssertEqual(String(decoding: console(rows: 30, statusLine: false).start(), as: UTF8.self), "> \r\(esc)[2C",
                       "off with --no-status-line or WSPIPE_PLAIN=1")
        let c = console(columns: 100, rows: 30, statusLine: true)
        _ = c.show(.connecting(url: "ws://h/", attempt: 2))
        c.roundTrip(12_300_000)
        XCTAssertTrue(String(decoding: c.refreshStatus(), as: UTF8.self)
            .contains("connecting (attempt 2) · in 0 · out 0 · rtt 12.3 ms · ws://h/"))
        _ = c.show(.reconnecting(attempt: 3, delayMillis: 2000))
        XCTAssertTrue(String(decoding: c.redraw(), as: UTF8.self).contains("reconnecting in 2.0 s · in 0 · out 0 · rtt 12.3 ms · ws://h/"))
    }

    func testFindShowAndResend() {
        let c = console(columns: 80, rows: 10)
        _ = c.start()
        _ = feed(c, "{\"type\":\"join\",\"room\":\"lobby\"}\r")                    // #1
        _ = receive(c, #"{"type":"joined","members":["ann","bob"]}"#)                 // #2
        for n in 3...30 { _ = receive(c, #"{"type":"tick","n":\#(n)}"#) }
        let found = feed(c, "/find ANN\r").0
        XCTAssertTrue(found.contains("- 09:08:07.006 1 message contains \"ANN\":\r\n"
                                     + "               #2 < 09:08:07.006 {\"type\":\"joined\",\"members\":[\"ann\",\"bob\"]}"),
                      found)
        let shown = feed(c, "/show 2\r").0
        XCTAssertTrue(shown.contains("< 09:08:07.006 {\"type\":\"joined\",\"members\":[\"ann\",\"bob\"]}"), shown)
        XCTAssertEqual(feed(c, "/resend 1\r").1, [.sendText(Array(#"{"type":"join","room":"lobby"}"#.utf8))])
        XCTAssertEqual(feed(c, "/resend\r").1, [.sendText(Array(#"{"type":"join","room":"lobby"}"#.utf8))])
        XCTAssertTrue(feed(c, "/resend 2\r").0.contains("message #2 was received, not sent"))
        _ = feed(c, "\u{15}")
        XCTAssertTrue(feed(c, "/show 99\r").0.contains("there is no message #99 yet"))
        _ = feed(c, "\u{15}")
        XCTAssertTrue(feed(c, "/find\r").0.contains("the last 20 messages:"))
        XCTAssertTrue(feed(c, "/find nothing-like-it\r").0.contains("no message kept contains \"nothing-like-it\""))
        XCTAssertEqual(c.history.suffix(4), ["/resend 1", "/resend", "/find", "/find nothing-like-it"],
                       "refused commands stay out of the history")
    }

    func testFindReadsWhatTheStringsSay() {
        // A Python server's json.dumps writes é as \u00e9.
        let c = console(columns: 80)
        _ = receive(c, #"{"type":"order","name":"Caf\u00e9 Ann"}"#)
        let found = feed(c, "/find café\r").0
        XCTAssertTrue(found.contains("1 message contains \"café\":"), found)
        XCTAssertTrue(found.contains(#"#1 < 09:08:07.006 {"type":"order","name":"Caf\u00e9 Ann"}"#), found)
    }

    func testOnlyTheNewestMessagesAreKept() {
        let hundred = "[" + String(repeating: "1,", count: 48) + "1]"   // 100 bytes
        let c = console { $0.transcriptBytes = 3 * (100 + Transcript.Entry.overhead) }
        for _ in 1...5 { _ = receive(c, hundred) }
        XCTAssertTrue(feed(c, "/show 2\r").0.contains("message #2 is no longer kept (--history-size)"))
        _ = feed(c, "\u{15}")
        XCTAssertFalse(feed(c, "/show 3\r").0.contains("no longer kept"))
    }

    func testAKeptMessageCountsWhatItCostsInMemory() {
        // A slot of the entries array twice over (its capacity), and the
        // payload's heap block beyond its bytes: header 32, malloc's 16.
        // Counting 64 let 4M of tiny messages take 10 MiB.
        XCTAssertGreaterThanOrEqual(Transcript.Entry.overhead, 2 * MemoryLayout<Transcript.Entry>.stride + 48)
    }

    func testPrettyAndCompact() {
        let c = console(columns: 40)
        let wide = #"{"type":"article","title":"longer than a row","n":1}"#
        XCTAssertTrue(receive(c, wide).contains("{\r\n                 \"type\": \"article\","))
        XCTAssertTrue(feed(c, "/compact\r").0.contains("every message on one row"))
        XCTAssertTrue(receive(c, wide).contains(#"< 09:08:07.006 {"type":"article","title…"#))
        _ = feed(c, "/pretty\r")
        XCTAssertTrue(receive(c, wide).contains("{\r\n"))
    }

    // MARK: saved messages

    func testSaveThenSendWithTemplates() throws {
        let path = temporaryDirectory() + "/config/wspipe/messages.ndjson"
        var captured: [String: [UInt8]] = [:]
        let c = console(columns: 120, saved: path) {
            $0.templates = .init(captureNames: ["sid"], captures: { Captured(values: captured) })
        }
        _ = feed(c, "{\"type\":\"hello\"}\r")
        XCTAssertTrue(feed(c, "/save hi\r").0.contains("saved as hi in \(path); /send hi sends it"))
        let saveTemplate = feed(c, "/save join {\"type\":\"join\",\"session\":${sid},\"room\":${.room.id}}\r").0
        XCTAssertTrue(saveTemplate.contains("saved as join"), saveTemplate)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), #"""
            {"name":"hi","message":"{\"type\":\"hello\"}"}
            {"name":"join","message":"{\"type\":\"join\",\"session\":${sid},\"room\":${.room.id}}"}

            """#)
        var st = stat()
        XCTAssertEqual(stat(path, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600)

        // A second session (the file is read at each use).
        var sequence = 0
        let d = console(columns: 120, saved: path) {
            $0.templates = .init(captureNames: ["sid"], captures: { Captured(values: captured) },
                                 nextSequence: { sequence += 1; return sequence }, nowMillis: { 1_700_000_000_123 })
        }
        XCTAssertEqual(feed(d, "/send hi\r").1, [.sendText(Array(#"{"type":"hello"}"#.utf8))])
        XCTAssertEqual(feed(d, "/send join\r").1, [.sendText(Array(#"{"type":"join","session":null,"room":null}"#.utf8))],
                       "nothing captured, nothing received yet: null")
        captured["sid"] = Array(#""s-42""#.utf8)
        _ = receive(d, #"{"type":"welcome","room":{"id":7}}"#)
        XCTAssertEqual(feed(d, "/send join\r").1, [.sendText(Array(#"{"type":"join","session":"s-42","room":7}"#.utf8))])
        XCTAssertEqual(d.history, ["/send hi", "/send join"], "a line sent twice in a row is remembered once")
        let listed = feed(d, "/send\r").0
        XCTAssertTrue(listed.contains("hi  {\"type\":\"hello\"}"), listed)
        XCTAssertTrue(feed(d, "/send nope\r").0.contains("/send: no saved message nope (/send alone lists them)"))
        _ = feed(d, "\u{15}")
        // Saving again replaces; a template that cannot become JSON is refused.
        _ = feed(d, "/save hi [1]\r")
        XCTAssertEqual(feed(d, "/send hi\r").1, [.sendText(Array("[1]".utf8))])
        let bad = feed(d, "/save bad {\"a\":${sid}\r").0
        XCTAssertTrue(bad.contains("/save: column 12: not valid JSON: unexpected end of input; not saved"), bad)
        XCTAssertTrue(bad.contains("; not saved"), bad)
        _ = feed(d, "\u{15}")
        XCTAssertTrue(feed(d, "/save later {\"a\":${nope}}\r").0.contains("saved as later"),
                      "a capture of a later run is fine to save")
        XCTAssertTrue(feed(d, "/send later\r").0.contains("/send later: column 6: unknown variable ${nope} (no --capture nope"))
        _ = feed(d, "\u{15}")
        _ = feed(d, "/save counted {\"n\":${seq},\"at\":${now_ms}}\r")
        XCTAssertEqual(feed(d, "/send counted\r").1, [.sendText(Array(#"{"n":1,"at":1700000000123}"#.utf8))])
        XCTAssertEqual(feed(d, "/send counted\r").1, [.sendText(Array(#"{"n":2,"at":1700000000123}"#.utf8))],
                       "${seq} from the session's counter")
    }

    func testSavedMessagesFileLinesThatCannotBeReadAreKept() throws {
        let path = temporaryDirectory() + "/messages.ndjson"
        try "not json\n{\"name\":\"a\",\"message\":\"1\"}\n".write(toFile: path, atomically: true, encoding: .utf8)
        let c = console(columns: 120, saved: path)
        XCTAssertTrue(feed(c, "/send\r").0.contains("skipped line 1 of \(path)"))
        _ = feed(c, "/save b 2\r")
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "not json\n{\"name\":\"a\",\"message\":\"1\"}\n{\"name\":\"b\",\"message\":\"2\"}\n")
    }

    func testBinaryAndTextThatIsNotJSONAreSavedAsTheirEnvelopes() {
        let path = temporaryDirectory() + "/m.ndjson"
        let c = console(saved: path)
        _ = feed(c, "{\"$binary\":\"AAEC\"}\r")
        _ = feed(c, "/save blob\r")
        XCTAssertEqual(feed(c, "/send blob\r").1, [.sendBinary([0, 1, 2])])
        _ = feed(c, "/text plain \"words\"\r/save words\r")
        XCTAssertEqual(feed(c, "/send words\r").1, [.sendText(Array("plain \"words\"".utf8))], "as its $text envelope")
    }

    // MARK: Tab

    func testTabCompletesCommandsNamesAndPaths() {
        let path = temporaryDirectory() + "/m.ndjson"
        let c = console(columns: 100, saved: path) { options in
            options.listDirectory = { directory in
                directory == "/home/me/" ? [.init(name: "blob.bin", isDirectory: false), .init(name: "bin", isDirectory: true),
                                            .init(name: ".hidden", isDirectory: false)] : nil
            }
        }
        _ = c.start()
        _ = feed(c, "/save greet [1]\r/save gone [2]\r")
        XCTAssertEqual(feed(c, "/sen\t").0, "\(erase)> /send \r\(esc)[8C")
        XCTAssertTrue(feed(c, "g\t").0.hasSuffix("> /send g\r\(esc)[9C"), "two names start with g")
        XCTAssertTrue(feed(c, "\t").0.contains("gone  greet"), "a second Tab lists them")
        XCTAssertTrue(feed(c, "r\t").0.hasSuffix("> /send greet\r\(esc)[13C"))
        XCTAssertEqual(feed(c, "\r").1, [.sendText(Array("[1]".utf8))])
        XCTAssertTrue(feed(c, "/c\t").0.contains("close  compact"))
        XCTAssertTrue(feed(c, "o\t").0.hasSuffix("> /compact\r\(esc)[10C"), "/co: only compact; it takes no argument")
        _ = feed(c, "\u{15}")
        XCTAssertTrue(feed(c, "/binary ~/b\t").0.contains("bin/  blob.bin"), "no longer than typed: listed")
        XCTAssertTrue(feed(c, "l\t").0.hasSuffix("> /binary ~/blob.bin\r\(esc)[20C"))
        _ = feed(c, "\u{15}")
        XCTAssertTrue(feed(c, "/binary ~/bi\t").0.hasSuffix("> /binary ~/bin/\r\(esc)[16C"), "a directory gets its /")
        _ = feed(c, "\u{15}")
        XCTAssertTrue(feed(c, "/binary ~/.\t").0.hasSuffix("> /binary ~/.hidden\r\(esc)[19C"), "hidden only when asked")
        _ = feed(c, "\u{15}")
        XCTAssertEqual(feed(c, "{\"a\":\t").0, "\(erase)> {\"a\":\r\(esc)[7C", "nothing to complete in a message")
    }
}

/// --capture values for the console's templates.
private struct Captured: TemplateCaptures {
    var values: [String: [UInt8]]
    func value(_ name: String) -> [UInt8]? { values[name] }
}
