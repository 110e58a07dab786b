import XCTest
@testable import WSTerminal

final class EditorRendererTests: XCTestCase {
    private func view(_ text: String, cursor: Int? = nil, status: String? = nil) -> EditorView {
        let chars = Array(text)
        return EditorView(prompt: "> ", isSearch: false, text: chars, cursor: cursor ?? chars.count,
                          status: status, indent: 2)
    }

    private func draw(_ r: inout EditorRenderer, _ v: EditorView) -> String {
        var out: [UInt8] = []
        r.draw(v, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private let esc = "\u{1B}"
    /// How the renderer clears from its first row down (EditorRenderer.clearFromRowStart).
    private let erase = "\r\u{1B}[K\u{1B}[C\u{1B}[J\r"

    func testPromptAndCursorColumn() {
        var r = EditorRenderer(columns: 20, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("hello")), "> hello\r\(esc)[7C")
        XCTAssertEqual(draw(&r, view("hello!", cursor: 1)), "\(erase)> hello!\r\(esc)[3C",
                       "a redraw starts by erasing the row")
        XCTAssertEqual(draw(&r, view("")), "\(erase)> \r\(esc)[2C")
    }

    func testLongLinesWrap() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("abcdefghij")), "> abcdefgh\r\nij\r\(esc)[2C")
        XCTAssertEqual(r.cursorRow, 1)
        // The next drawing goes up to the first row first.
        XCTAssertEqual(draw(&r, view("abcdefghij", cursor: 0)), "\(esc)[1A\(erase)> abcdefgh\r\nij\(esc)[1A\r\(esc)[2C")
        XCTAssertEqual(r.cursorRow, 0)
    }

    func testCursorAfterAFullRowIsOnTheNextRow() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("abcdefgh")), "> abcdefgh\r\n\r")
        XCTAssertEqual(r.drawnWidths, [10, 0])
    }

    func testWideCharactersAreNeverSplitAcrossRows() {
        var r = EditorRenderer(columns: 5, screenRows: 24, colors: false)
        // "> ab" takes 4 columns: 世 (2) does not fit in the fifth and starts a row.
        XCTAssertEqual(draw(&r, view("ab世界")), "> ab\r\n世界\r\(esc)[4C")
        XCTAssertEqual(r.drawnWidths, [4, 4])
        var r2 = EditorRenderer(columns: 6, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r2, view("ab世界", cursor: 3)), "> ab世\r\n界\r",
                       "cursor on 界, which wrapped")
        var r3 = EditorRenderer(columns: 5, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r3, view("ab世界", cursor: 2)), "> ab\r\n世界\r",
                       "cursor on 世, not in the blank column it left")
    }

    func testMultiLineTextIsIndentedUnderThePrompt() {
        var r = EditorRenderer(columns: 40, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("{\n\"a\": 1\n}", cursor: 8)),
                       "> {\r\n  \"a\": 1\r\n  }\(esc)[1A\r\(esc)[8C")
    }

    func testControlCharactersAreShownNotSent() {
        var r = EditorRenderer(columns: 40, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("a\u{1B}[2Jb\u{7F}\tc")), "> a^[[2Jb^?  c\r\(esc)[14C")
    }

    func testStatusLineUnderTheText() {
        var r = EditorRenderer(columns: 20, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("{x}", cursor: 1, status: "invalid JSON")),
                       "> {x}\r\ninvalid JSON\(esc)[1A\r\(esc)[3C")
        // Wrapped, not cut: "not sent (/text ...)" ends the message, and is read.
        XCTAssertEqual(draw(&r, view("{x}", cursor: 1, status: "a message far too long for the row")),
                       "\(erase)> {x}\r\na message far too\r\nlong for the row\(esc)[2A\r\(esc)[3C")
        XCTAssertEqual(r.drawnWidths, [5, 17, 16])
    }

    func testAStatusWordLongerThanARowIsCutWhereTheRowEnds() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        XCTAssertEqual(draw(&r, view("x", status: "at 1:1 abcdefghijklmn end")),
                       "> x\r\nat 1:1 ab\r\ncdefghijk\r\nlmn end\(esc)[3A\r\(esc)[3C")
    }

    func testAStatusTallerThanHalfTheScreenIsCutWithAnEllipsis() {
        var r = EditorRenderer(columns: 10, screenRows: 6, colors: false)
        // Three rows at most (half of 6): the third ends in "…".
        XCTAssertEqual(draw(&r, view("x", status: "one two three four five six seven eight")),
                       "> x\r\none two\r\nthree\r\nfour fiv…\(esc)[3A\r\(esc)[3C")
    }

    func testPrintAboveKeepsTheLineBeingTyped() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        _ = draw(&r, view("abcdefghij", cursor: 3))
        var out: [UInt8] = []
        r.printAbove(Array("< 12:00:00.000 {}\r\n".utf8), view: view("abcdefghij", cursor: 3), into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self),
                       "\(erase)< 12:00:00.000 {}\r\n> abcdefgh\r\nij\(esc)[1A\r\(esc)[5C")
    }

    func testEraseLeavesTheCursorWhereTheAreaStarted() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        _ = draw(&r, view("abcdefghijklmnop"))
        var out: [UInt8] = []
        r.erase(into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\(esc)[1A\(erase)")
        out = []
        r.erase(into: &out)
        XCTAssertEqual(out, [], "nothing drawn, nothing to erase")
    }

    func testAreaTallerThanTheScreenShowsTheRowsAroundTheCursor() {
        var r = EditorRenderer(columns: 20, screenRows: 3, colors: false)
        let text = "1\n2\n3\n4\n5"
        XCTAssertEqual(draw(&r, view(text)), "  3\r\n  4\r\n  5\r\(esc)[3C")
        // Moving up inside the window does not scroll it.
        XCTAssertEqual(draw(&r, view(text, cursor: 4)), "\(esc)[2A\(erase)  3\r\n  4\r\n  5\(esc)[2A\r\(esc)[2C")
        // Above it, it does.
        XCTAssertEqual(draw(&r, view(text, cursor: 0)), "\(erase)> 1\r\n  2\r\n  3\(esc)[2A\r\(esc)[2C")
    }

    func testNarrowerTerminalErasesTheRowsItReflowed() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        _ = draw(&r, view("abcdefghijklmnop"))   // rows of 10 and 8 columns, cursor on the second
        r.resize(columns: 5, screenRows: 24)
        var out: [UInt8] = []
        r.erase(into: &out)
        // The first row became 2 rows and the cursor (column 8) is on the 2nd of its own.
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\(esc)[3A\(erase)")
        XCTAssertEqual(draw(&r, view("abcdefghijklmnop")), "> abc\r\ndefgh\r\nijklm\r\nnop\r\(esc)[3C")
    }

    func testWiderTerminalKeepsRowCount() {
        var r = EditorRenderer(columns: 10, screenRows: 24, colors: false)
        _ = draw(&r, view("abcdefghijklmnop"))
        r.resize(columns: 40, screenRows: 24)
        var out: [UInt8] = []
        r.erase(into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\(esc)[1A\(erase)")
    }

    func testColoursOnThePromptAndStatus() {
        var r = EditorRenderer(columns: 20, screenRows: 24, colors: true)
        XCTAssertEqual(draw(&r, view("x", status: "bad")),
                       "\(esc)[1m> \(esc)[0mx\r\n\(esc)[31mbad\(esc)[0m\(esc)[1A\r\(esc)[3C")
        var search = view("found")
        search.prompt = "(reverse-i-search)`f': "
        search.isSearch = true
        search.cursor = 0
        var narrow = EditorRenderer(columns: 12, screenRows: 24, colors: true)
        // A style cut by a row break is closed and reopened.
        XCTAssertEqual(draw(&narrow, search),
                       "\(esc)[33m(reverse-i-s\(esc)[0m\r\n\(esc)[33mearch)`f': \(esc)[0mf\r\nound\(esc)[1A\r\(esc)[11C")
    }

    func testClearScreen() {
        var r = EditorRenderer(columns: 20, screenRows: 24, colors: false)
        _ = draw(&r, view("abc"))
        var out: [UInt8] = []
        r.clearScreen(view("abc"), into: &out)
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "\(esc)[H\(esc)[2J> abc\r\(esc)[5C")
    }
}
