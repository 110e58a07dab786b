import XCTest
@testable import WSTerminal

/// The one escaping of peer text for a terminal: what is escaped, how, and
/// that everything else stays byte for byte.
final class TerminalEscapingTests: XCTestCase {
    private func escaped(_ bytes: [UInt8], _ context: TerminalEscaping.Context) -> String {
        String(decoding: TerminalEscaping.escaped(bytes, in: context), as: UTF8.self)
    }

    private func escaped(_ text: String, _ context: TerminalEscaping.Context) -> String {
        escaped(Array(text.utf8), context)
    }

    func testC0DELAndC1AsHexInALine() {
        XCTAssertEqual(escaped("a\u{1B}]0;title\u{07}b", .line), "a\\x1b]0;title\\x07b")
        XCTAssertEqual(escaped("tab\tlf\ncr\rdel\u{7F}", .line), "tab\\x09lf\\x0acr\\x0ddel\\x7f")
        XCTAssertEqual(escaped("csi\u{9B}31m nel\u{85}", .line), "csi\\x9b31m nel\\x85")
        XCTAssertEqual(TerminalEscaping.escaping("x\u{1B}[2J"), "x\\x1b[2J")
    }

    func testBidiOverridesAndIsolates() {
        for scalar in [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069] {
            let text = "a" + String(UnicodeScalar(scalar)!) + "b"
            let hex = String(scalar, radix: 16)
            XCTAssertEqual(escaped(text, .line), "a\\u\(hex)b")
            XCTAssertEqual(escaped(text, .json), "a\\u\(hex)b")
        }
        // Their neighbours are ordinary text.
        XCTAssertEqual(escaped("\u{2027}\u{202F}\u{2065}\u{206A}", .line), "\u{2027}\u{202F}\u{2065}\u{206A}")
    }

    /// The invisible marks that reorder neutral characters around them, the
    /// Unicode line and paragraph separators and the byte-order mark.
    func testDirectionMarksSeparatorsAndByteOrderMark() {
        for scalar in [0x200E, 0x200F, 0x061C, 0x2028, 0x2029, 0xFEFF] {
            let text = "a" + String(UnicodeScalar(scalar)!) + "b"
            let hex = String(scalar, radix: 16)
            let padded = String(repeating: "0", count: 4 - hex.count) + hex
            XCTAssertEqual(escaped(text, .line), "a\\u\(padded)b")
            XCTAssertEqual(escaped(text, .json), "a\\u\(padded)b")
            Array(text.utf8).withUnsafeBytes { XCTAssertFalse(TerminalEscaping.isSafe($0, in: .lines)) }
        }
        XCTAssertEqual(escaped("\u{200D}\u{061B}\u{FEFE}", .line), "\u{200D}\u{061B}\u{FEFE}", "their neighbours")
    }

    func testLinesKeepLineFeedsAndTabs() {
        XCTAssertEqual(escaped("one\ttwo\nthree\r\n\u{1B}[31m", .lines), "one\ttwo\nthree\\x0d\n\\x1b[31m")
    }

    /// In JSON the escape is the JSON one: the line is still the same value.
    func testJSONKeepsTheValue() {
        XCTAssertEqual(escaped("{\"a\":\"x\u{9B}y\u{7F}\u{202E}\"}", .json), #"{"a":"x\u009by\u007f\u202e"}"#)
        XCTAssertEqual(escaped("{\"a\":1}\n", .json), "{\"a\":1}\n")
    }

    func testBytesThatAreNotUTF8() {
        XCTAssertEqual(escaped([0x61, 0x9B, 0x62, 0xC2], .lines), "a\\x9bb\\xc2")
        XCTAssertEqual(escaped([0xE2, 0x80], .line), "\\xe2\\x80", "cut short")
        XCTAssertEqual(escaped([0xC0, 0x9B], .line), "\\xc0\\x9b", "overlong")
        XCTAssertEqual(escaped([0xED, 0xA0, 0x80], .line), "\\xed\\xa0\\x80", "a surrogate")
        XCTAssertEqual(escaped([0xF4, 0x90, 0x80, 0x80], .line), "\\xf4\\x90\\x80\\x80", "above U+10FFFF")
    }

    func testEverythingElseIsExact() {
        let text = "plain ASCII, é, 中文, 😀, U+00A0 \u{A0}, U+2027 \u{2027}"
        XCTAssertEqual(escaped(text, .line), text)
        Array(text.utf8).withUnsafeBytes { XCTAssertTrue(TerminalEscaping.isSafe($0, in: .line)) }
        XCTAssertEqual(TerminalEscaping.escaping(text), text)
    }

    /// Every byte value alone: nothing a terminal acts on survives, in any context.
    func testNoControlSurvives() {
        for context in [TerminalEscaping.Context.line, .lines, .json] {
            for byte in 0...255 {
                let out = TerminalEscaping.escaped([UInt8(byte)], in: context)
                let kept: Set<UInt8> = context == .line ? [] : context == .lines ? [9, 10] : [9, 10, 13]
                for b in out where b < 0x20 || b >= 0x7F {
                    XCTAssertTrue(kept.contains(b), "\(context): byte \(byte) -> \(out)")
                }
            }
        }
    }
}
