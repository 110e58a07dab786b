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
        XCTAssertEqual(DisplayWidth.of(Character("👍🏽")), 2, "skin tone modifier joins")
        XCTAssertEqual(DisplayWidth.of(Character("👨‍👩‍👧")), 2, "ZWJ sequence counted once")
        XCTAssertEqual(DisplayWidth.of(Character("🇫🇷")), 2, "a flag")
        XCTAssertEqual(DisplayWidth.of(Character("❤")), 1, "text presentation by default")
        XCTAssertEqual(DisplayWidth.of(Character("❤\u{FE0F}")), 2, "VS16 asks for emoji presentation")
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
