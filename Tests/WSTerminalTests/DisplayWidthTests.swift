import XCTest
@testable import WSTerminal

final class DisplayWidthTests: XCTestCase {
    func testASCIIAndLatin() {
        XCTAssertEqual(DisplayWidth.of(Array("hello, world")), 12)
        XCTAssertEqual(DisplayWidth.of(Character("é")), 1)
        XCTAssertEqual(DisplayWidth.of(Character("e\u{301}")), 1, "letter plus combining accent")
    }

    func testEastAsianWide() {
        XCTAssertEqual(DisplayWidth.of(Array("世界")), 4)
        XCTAssertEqual(DisplayWidth.of(Character("한")), 2)      // Hangul syllable
        XCTAssertEqual(DisplayWidth.of(Character("カ")), 2)     // katakana
        XCTAssertEqual(DisplayWidth.of(Character("ｶ")), 1)     // halfwidth katakana
        XCTAssertEqual(DisplayWidth.of(Character("Ａ")), 2)     // fullwidth A
        XCTAssertEqual(DisplayWidth.of(Character("\u{3000}")), 2)  // ideographic space
        XCTAssertEqual(DisplayWidth.of(Character("\u{20000}")), 2)  // CJK extension B
    }

    func testEmoji() {
        XCTAssertEqual(DisplayWidth.of(Character("😀")), 2)
        XCTAssertEqual(DisplayWidth.of(Character("❤")), 1, "text presentation by default")
    }

    /// Emoji sequences take what tmux 3.3 draws them in (measured with
    /// printf and #{cursor_x}; test_interactive_edges.py checks the editor's
    /// cursor against the same terminal): the scalars side by side, the
    /// zero-width ones and the one after a ZWJ in the cell before.
    func testEmojiSequencesAsTheTerminalDrawsThem() {
        XCTAssertEqual(DisplayWidth.of(Character("👍🏽")), 4, "a skin tone modifier takes two columns of its own")
        XCTAssertEqual(DisplayWidth.of(Character("\u{270C}\u{1F3FD}")), 3, "after a narrow base too")
        XCTAssertEqual(DisplayWidth.of(Character("👩‍💻")), 2, "ZWJ sequence: the first emoji's width")
        XCTAssertEqual(DisplayWidth.of(Character("👨‍👩‍👧")), 2)
        XCTAssertEqual(DisplayWidth.of(Character("👩🏽‍💻")), 4, "modifier, then a joined emoji")
        XCTAssertEqual(DisplayWidth.of(Character("🏳️‍🌈")), 1, "joined onto a narrow base")
        XCTAssertEqual(DisplayWidth.of(Character("🏃‍♂️")), 2)
        XCTAssertEqual(DisplayWidth.of(Character("🇫🇷")), 2, "a flag: two regional indicators of one column")
        XCTAssertEqual(DisplayWidth.of(Character("🏴󠁧󠁢󠁥󠁮󠁧󠁿")), 2, "tag sequence: the tags take nothing")
        XCTAssertEqual(DisplayWidth.of(Character("1\u{FE0F}\u{20E3}")), 1, "a keycap: its digit's column")
        XCTAssertEqual(DisplayWidth.of(Character("#\u{20E3}")), 1)
        XCTAssertEqual(DisplayWidth.of(Character("❤\u{FE0F}")), 1, "VS16 widens nothing in tmux 3.3")
        XCTAssertEqual(DisplayWidth.of(Character("\u{231A}\u{FE0E}")), 2, "nor does VS15 narrow")
        XCTAssertEqual(DisplayWidth.of(Character("👩\u{200D}\u{200D}💻")), 2, "joiners in a row")
        XCTAssertEqual(DisplayWidth.of(Array("a\u{200D}b")), 2, "ASCII after a joiner keeps its cell")
    }

    func testZeroWidthAndControls() {
        XCTAssertEqual(DisplayWidth.of(Unicode.Scalar(0x200B)!), 0)   // zero width space
        XCTAssertEqual(DisplayWidth.of(Unicode.Scalar(0x0301)!), 0)
        XCTAssertEqual(DisplayWidth.of(Unicode.Scalar(0x1160)!), 0)   // Hangul medial vowel filler
        XCTAssertEqual(DisplayWidth.of(Unicode.Scalar(0x3099)!), 0, "a combining mark inside a wide block")
        XCTAssertEqual(DisplayWidth.of(Character("\u{1B}")), 2, "shown as ^[")
        XCTAssertEqual(DisplayWidth.of(Character("\t")), 2)
        XCTAssertEqual(DisplayWidth.of(Character("\u{9B}")), 1, "C1 shown as U+FFFD")
    }

    func testTablesAreSortedAndDisjoint() {
        for table in [DisplayWidth.zeroWidth, DisplayWidth.wide] {
            for (a, b) in zip(table, table.dropFirst()) {
                XCTAssertLessThan(a.upperBound, b.lowerBound, "\(a) then \(b)")
            }
        }
    }
}
