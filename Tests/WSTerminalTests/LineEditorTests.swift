import XCTest
@testable import WSTerminal

final class LineEditorTests: XCTestCase {
    /// The text with "|" where the cursor is.
    private func shown(_ e: LineEditor) -> String {
        String(e.text[..<e.cursor]) + "|" + String(e.text[e.cursor...])
    }

    @discardableResult
    private func press(_ e: inout LineEditor, _ keys: Key...) -> [LineEditor.Action] {
        keys.map { e.handle($0) }
    }

    private func editor(history: [String] = []) -> LineEditor {
        LineEditor(history: HistoryList(limit: 100, entries: history))
    }

    func testTypingAndCursorMotion() {
        var e = editor()
        press(&e, .text("hello"), .left, .left, .text("X"))
        XCTAssertEqual(shown(e), "helX|lo")
        press(&e, .home, .text(">"), .end, .text("<"))
        XCTAssertEqual(shown(e), ">helXlo<|")
        press(&e, .ctrl("a"), .ctrl("f"), .ctrl("f"), .ctrl("b"))
        XCTAssertEqual(shown(e), ">|helXlo<")
        press(&e, .ctrl("e"), .right)
        XCTAssertEqual(shown(e), ">helXlo<|", "Right at the end stays")
        press(&e, .home, .left)
        XCTAssertEqual(shown(e), "|>helXlo<", "Left at the start stays")
    }

    func testBackspaceAndDelete() {
        var e = editor()
        press(&e, .text("abcd"), .left, .left, .backspace)
        XCTAssertEqual(shown(e), "a|cd")
        press(&e, .delete)
        XCTAssertEqual(shown(e), "a|d")
        press(&e, .ctrl("d"))
        XCTAssertEqual(shown(e), "a|", "Ctrl-D on a non-empty line deletes forward")
        press(&e, .delete, .home, .backspace)
        XCTAssertEqual(shown(e), "|a")
    }

    func testKillAndYank() {
        var e = editor()
        press(&e, .text("one two three"), .wordLeft, .ctrl("k"))
        XCTAssertEqual(shown(e), "one two |")
        press(&e, .home, .ctrl("y"))
        XCTAssertEqual(shown(e), "three|one two ")
        press(&e, .ctrl("u"))
        XCTAssertEqual(shown(e), "|one two ")
        press(&e, .end, .ctrl("w"))
        XCTAssertEqual(shown(e), "one |", "Ctrl-W takes the blanks and the word before them")
        press(&e, .ctrl("y"), .ctrl("y"))
        XCTAssertEqual(shown(e), "one two two |")
    }

    func testWordMotionAndWordKills() {
        var e = editor()
        press(&e, .text(#"{"type": "hello_world", "id": 12}"#))
        press(&e, .alt("b"))
        XCTAssertEqual(shown(e), #"{"type": "hello_world", "id": |12}"#)
        press(&e, .alt("b"), .alt("b"))
        XCTAssertEqual(shown(e), #"{"type": "|hello_world", "id": 12}"#, "underscore is part of a word")
        press(&e, .alt("f"))
        XCTAssertEqual(shown(e), #"{"type": "hello_world|", "id": 12}"#)
        press(&e, .altBackspace)
        XCTAssertEqual(shown(e), #"{"type": "|", "id": 12}"#)
        press(&e, .home, .alt("d"))
        XCTAssertEqual(shown(e), #"|": "", "id": 12}"#)
        // Ctrl-W is space-delimited: it takes the whole JSON-ish token.
        var w = editor()
        press(&w, .text(#"{"a": "b c"}"#), .ctrl("w"))
        XCTAssertEqual(shown(w), #"{"a": "b |"#)
    }

    func testWideAndCombiningCharactersStayWhole() {
        var e = editor()
        press(&e, .text("a世😀b"), .left, .left, .backspace)
        XCTAssertEqual(shown(e), "a|😀b")
        press(&e, .delete)
        XCTAssertEqual(shown(e), "a|b")
        // A combining accent typed after its letter joins it: one character.
        press(&e, .text("e"), .text("\u{301}"))
        XCTAssertEqual(e.text.count, 3)
        XCTAssertEqual(shown(e), "ae\u{301}|b")
        press(&e, .backspace)
        XCTAssertEqual(shown(e), "a|b", "Backspace removes the letter with its accent")
        // A family emoji (ZWJ sequence) and a flag are one character each.
        press(&e, .text("👨‍👩‍👧🇫🇷"), .left, .left)
        XCTAssertEqual(shown(e), "a|👨‍👩‍👧🇫🇷b")
    }

    func testEnterSubmitsAndAcceptStartsANewLine() {
        var e = editor()
        XCTAssertEqual(press(&e, .enter), [.none], "Enter on an empty line does nothing")
        press(&e, .text(#"{"a":1}"#))
        XCTAssertEqual(press(&e, .enter), [.submit(#"{"a":1}"#)])
        XCTAssertEqual(shown(e), #"{"a":1}|"#, "the text stays until the caller accepts it")
        e.history.add(#"{"a":1}"#)
        e.accept()
        XCTAssertEqual(shown(e), "|")
        press(&e, .up)
        XCTAssertEqual(shown(e), #"{"a":1}|"#)
    }

    func testRejectKeepsTheTextWithTheCursorAtTheEndAndMarksTheError() {
        var e = editor()
        press(&e, .text(#"{"é": tru}"#), .left, .left)
        // The error offset is in UTF-8 bytes: `{"é": ` is 7 bytes, 6 characters.
        e.reject("invalid JSON", atUTF8Offset: 7)
        XCTAssertEqual(shown(e), #"{"é": tru}|"#, "the cursor at the end, where Ctrl-U and typing expect it")
        XCTAssertEqual(e.view.mark, 6, "the character the error is about")
        XCTAssertEqual(e.view.status, "invalid JSON")
        press(&e, .left)
        XCTAssertEqual(e.view.status, "invalid JSON", "moving keeps the message")
        XCTAssertEqual(e.view.mark, 6)
        press(&e, .text("e"))
        XCTAssertNil(e.view.status, "editing removes it")
        XCTAssertNil(e.view.mark)
        // Ctrl-U right after a rejection starts over.
        e.reject("invalid JSON", atUTF8Offset: 0)
        press(&e, .ctrl("u"))
        XCTAssertEqual(shown(e), "|")
        // An error at the end (input ended too soon) marks nothing.
        press(&e, .text("[1,"))
        e.reject("unexpected end", atUTF8Offset: 3)
        XCTAssertNil(e.view.mark)
    }

    func testCompletionReplacesWhatIsBeforeTheCursor() {
        var e = editor()
        press(&e, .text("/se x"), .left, .left)
        e.complete("/send ")
        XCTAssertEqual(shown(e), "/send | x")
    }

    func testCtrlCClearsThenInterrupts() {
        var e = editor()
        press(&e, .text("abc"))
        XCTAssertEqual(press(&e, .ctrl("c")), [.none])
        XCTAssertEqual(shown(e), "|")
        XCTAssertEqual(press(&e, .ctrl("c")), [.interrupt])
        XCTAssertEqual(press(&e, .ctrl("d")), [.endOfInput])
        XCTAssertEqual(press(&e, .ctrl("l"), .ctrl("z")), [.clearScreen, .suspend])
    }

    func testHistoryBrowsingKeepsUnsentEdits() {
        var e = editor(history: ["first", "second"])
        press(&e, .text("draft"), .up)
        XCTAssertEqual(shown(e), "second|")
        press(&e, .text("!"), .up)
        XCTAssertEqual(shown(e), "first|")
        press(&e, .up)
        XCTAssertEqual(shown(e), "first|", "Up at the oldest entry stays")
        press(&e, .down)
        XCTAssertEqual(shown(e), "second!|", "an edited entry comes back edited")
        press(&e, .down)
        XCTAssertEqual(shown(e), "draft|", "the line being typed comes back")
        press(&e, .down)
        XCTAssertEqual(shown(e), "draft|")
        XCTAssertEqual(e.history.entries, ["first", "second"], "browsing never changes the history")
        press(&e, .ctrl("p"), .ctrl("p"), .ctrl("n"))
        XCTAssertEqual(shown(e), "second!|")
    }

    func testUpAndDownMoveBetweenLinesOfAMultiLineText() {
        var e = editor(history: ["old"])
        press(&e, .paste("{\n  \"key\": 1,\n  \"b\": 2\n}"))
        XCTAssertEqual(shown(e), "{\n  \"key\": 1,\n  \"b\": 2\n}|")
        press(&e, .up)
        XCTAssertEqual(shown(e), "{\n  \"key\": 1,\n | \"b\": 2\n}", "column 1 kept, lines are not history")
        press(&e, .end, .up)
        XCTAssertEqual(shown(e), "{\n  \"key\":| 1,\n  \"b\": 2\n}", "column 8 kept")
        press(&e, .ctrl("a"))
        XCTAssertEqual(shown(e), "{\n|  \"key\": 1,\n  \"b\": 2\n}", "Ctrl-A goes to the start of the line")
        press(&e, .up, .up)
        XCTAssertEqual(shown(e), "old|", "Up on the first line is history")
        press(&e, .down)
        XCTAssertEqual(shown(e), "{\n  \"key\": 1,\n  \"b\": 2\n}|")
        press(&e, .altEnter, .text("x"))
        XCTAssertEqual(shown(e), "{\n  \"key\": 1,\n  \"b\": 2\n}\nx|")
    }

    func testCtrlKAndCtrlUJoinLinesAtTheirEdges() {
        var e = editor()
        press(&e, .paste("ab\ncd"), .up, .end)
        XCTAssertEqual(shown(e), "ab|\ncd")
        press(&e, .ctrl("k"))
        XCTAssertEqual(shown(e), "ab|cd")
        press(&e, .altEnter, .ctrl("u"))
        XCTAssertEqual(shown(e), "ab|cd")
    }

    func testPasteInsertsAtTheCursor() {
        var e = editor()
        press(&e, .text("[]"), .left, .paste("1,\n2"))
        XCTAssertEqual(shown(e), "[1,\n2|]")
        XCTAssertEqual(press(&e, .enter), [.submit("[1,\n2]")])
    }

    // MARK: Ctrl-R

    private let searchHistory = [#"{"op":"subscribe","ch":"btc"}"#, #"{"op":"ping"}"#,
                                 #"{"op":"subscribe","ch":"eth"}"#, "/ping hello"]

    func testReverseSearchNarrowsAsYouType() {
        var e = editor(history: searchHistory)
        press(&e, .text("typed"), .ctrl("r"))
        XCTAssertEqual(e.view.prompt, "(reverse-i-search)`': ")
        XCTAssertEqual(String(e.view.text), "typed", "nothing matched yet: the line is shown")
        press(&e, .text("p"))
        XCTAssertEqual(String(e.view.text), "/ping hello")
        XCTAssertEqual(e.view.cursor, 1)
        press(&e, .text("i"), .text("n"), .text("g\""))
        XCTAssertEqual(e.view.prompt, "(reverse-i-search)`ping\"': ")
        XCTAssertEqual(String(e.view.text), #"{"op":"ping"}"#)
        XCTAssertEqual(e.view.cursor, 7)
        XCTAssertTrue(e.view.isSearch)
    }

    func testCtrlRAgainFindsOlderMatchesAndFailsAtTheEnd() {
        var e = editor(history: searchHistory)
        press(&e, .ctrl("r"), .text("subscribe"))
        XCTAssertEqual(String(e.view.text), #"{"op":"subscribe","ch":"eth"}"#)
        press(&e, .ctrl("r"))
        XCTAssertEqual(String(e.view.text), #"{"op":"subscribe","ch":"btc"}"#)
        press(&e, .ctrl("r"))
        XCTAssertEqual(e.view.prompt, "(failed reverse-i-search)`subscribe': ")
        XCTAssertEqual(String(e.view.text), #"{"op":"subscribe","ch":"btc"}"#, "the last match stays")
        press(&e, .ctrl("s"))
        XCTAssertEqual(String(e.view.text), #"{"op":"subscribe","ch":"eth"}"#, "Ctrl-S goes back to newer")
        press(&e, .text("zzz"))
        XCTAssertEqual(e.view.prompt, "(failed reverse-i-search)`subscribezzz': ")
        press(&e, .backspace, .backspace, .backspace)
        XCTAssertEqual(e.view.prompt, "(reverse-i-search)`subscribe': ")
    }

    func testEnterAcceptsTheMatchAndSubmitsIt() {
        var e = editor(history: searchHistory)
        press(&e, .ctrl("r"), .text("btc"))
        XCTAssertEqual(press(&e, .enter), [.submit(#"{"op":"subscribe","ch":"btc"}"#)])
        XCTAssertFalse(e.view.isSearch)
    }

    func testAnEditingKeyAcceptsTheMatchForEditing() {
        var e = editor(history: searchHistory)
        press(&e, .text("draft"), .ctrl("r"), .text("eth"), .right)
        XCTAssertFalse(e.view.isSearch)
        XCTAssertEqual(shown(e), #"{"op":"subscribe","ch":"e|th"}"#, "cursor at the match, then Right")
        press(&e, .down)
        XCTAssertEqual(shown(e), "/ping hello|", "history continues from the match")
        press(&e, .down)
        XCTAssertEqual(shown(e), "draft|", "and the line typed before the search is kept")
    }

    func testCtrlGAndEscapeCancelTheSearch() {
        for cancel in [Key.ctrl("g"), .escape, .ctrl("c")] {
            var e = editor(history: searchHistory)
            press(&e, .text("mine"), .left, .ctrl("r"), .text("btc"), cancel)
            XCTAssertFalse(e.view.isSearch)
            XCTAssertEqual(shown(e), "min|e", "\(cancel) restores the line and cursor")
        }
    }

    func testCtrlRWithAnEmptyQueryReusesTheLastOne() {
        var e = editor(history: searchHistory)
        press(&e, .ctrl("r"), .text("op"), .ctrl("g"), .ctrl("r"), .ctrl("r"))
        XCTAssertEqual(e.view.prompt, "(reverse-i-search)`op': ")
        XCTAssertEqual(String(e.view.text), #"{"op":"subscribe","ch":"eth"}"#)
    }

    func testSearchSkipsRepeatsOfTheShownEntry() {
        var e = editor(history: ["b", "a", "b", "b2", "b"])
        press(&e, .ctrl("r"), .text("b"))
        XCTAssertEqual(String(e.view.text), "b")
        press(&e, .ctrl("r"))
        XCTAssertEqual(String(e.view.text), "b2")
        press(&e, .ctrl("r"))
        XCTAssertEqual(String(e.view.text), "b")
        XCTAssertFalse(e.view.prompt.contains("failed"))
    }

    func testHistoryListIsBoundedAndSkipsRepeats() {
        var h = HistoryList(limit: 3)
        XCTAssertTrue(h.add("a"))
        XCTAssertFalse(h.add("a"))
        XCTAssertFalse(h.add(""))
        h.add("b"); h.add("c"); h.add("d")
        XCTAssertEqual(h.entries, ["b", "c", "d"])
        XCTAssertEqual(HistoryList(limit: 2, entries: ["1", "2", "3"]).entries, ["2", "3"])
    }
}
