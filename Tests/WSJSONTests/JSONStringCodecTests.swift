import XCTest
@testable import WSJSON

/// JSONScanner.appendUnescaped and appendQuoted.
final class JSONStringCodecTests: XCTestCase {

    private func unescaped(_ token: String) -> [UInt8] {
        JSONTest.unescape(Array(token.utf8))
    }

    private func quoted(_ text: String) -> String {
        String(decoding: JSONTest.quote(Array(text.utf8)), as: UTF8.self)
    }

    // MARK: appendUnescaped

    func testShortEscapes() {
        XCTAssertEqual(unescaped(#""a\"b\\c\/d\b\f\n\r\t""#),
                       Array("a\"b\\c/d".utf8) + [0x08, 0x0C, 0x0A, 0x0D, 0x09])
        XCTAssertEqual(unescaped("\"\""), [])
        XCTAssertEqual(unescaped("\"plain\""), Array("plain".utf8))
    }

    func testUnicodeEscapes() {
        XCTAssertEqual(unescaped(#""\u0041\u00e9\u00E9\u20ac\uFFFF""#),
                       Array("Aéé€\u{FFFF}".utf8))
        XCTAssertEqual(unescaped(#""\u0000""#), [0x00])
        XCTAssertEqual(unescaped(#""\uD83D\uDE00 \ud834\udd1e""#), Array("😀 𝄞".utf8))
        XCTAssertEqual(unescaped(#""\uDBFF\uDFFF""#), Array("\u{10FFFF}".utf8))
    }

    func testLoneSurrogatesBecomeReplacementCharacter() {
        let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]
        XCTAssertEqual(unescaped(#""\uD800x""#), replacement + [0x78])
        XCTAssertEqual(unescaped(#""\uD800""#), replacement)
        XCTAssertEqual(unescaped(#""\uDC00""#), replacement)
        XCTAssertEqual(unescaped(#""\uD800\u0041""#), replacement + [0x41])
        XCTAssertEqual(unescaped(#""\uDE00\uD83D""#), replacement + replacement)
        XCTAssertEqual(unescaped(#""\uD83D\n""#), replacement + [0x0A])
    }

    func testRawUTF8AndLongRunsPassThrough() {
        let long = String(repeating: "abcdefgh", count: 5)
        XCTAssertEqual(unescaped("\"\(long)日本語\\n\(long)😀\""), Array("\(long)日本語\n\(long)😀".utf8))
    }

    // MARK: appendQuoted

    func testQuotedOutputIsExact() {
        XCTAssertEqual(quoted(""), "\"\"")
        XCTAssertEqual(quoted("a\"b\\c\n"), #""a\"b\\c\n""#)
        XCTAssertEqual(quoted("\u{08}\u{0C}\n\r\t"), #""\b\f\n\r\t""#)
        XCTAssertEqual(quoted("\u{0}\u{1}\u{1F}\u{0B}"), #""\u0000\u0001\u001f\u000b""#)
        XCTAssertEqual(quoted("/\u{7F}é日本😀"), "\"/\u{7F}é日本😀\"")     // no escaping needed
    }

    func testQuotedAppendsToExistingOutput() {
        var out = Array("{\"$text\":".utf8)
        Array("hi\n".utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        out.append(UInt8(ascii: "}"))
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\"$text\":\"hi\\n\"}")
    }

    /// quote -> validate -> unescape gives back the original bytes.
    private func assertRoundTrip(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let token = JSONTest.quote(bytes)
        XCTAssertEqual(JSONTest.validate(bytes: token), .valid(needsCompaction: false), file: file, line: line)
        XCTAssertEqual(JSONTest.unescape(token), bytes, file: file, line: line)
        XCTAssertFalse(token.contains(0x0A), file: file, line: line)
    }

    func testRoundTripOfEveryASCIIByte() {
        let all = (0 ..< 0x80).map { UInt8($0) }
        assertRoundTrip(all)
        for b in all {
            assertRoundTrip([b])
            // At every lane of the eight-byte fast path.
            for prefix in 0 ..< 9 {
                assertRoundTrip([UInt8](repeating: 0x61, count: prefix) + [b] + [UInt8](repeating: 0x62, count: 11))
            }
        }
    }

    func testRoundTripOfMultiByteText() {
        assertRoundTrip(Array("héllo wörld, 日本語のテキスト, emoji 😀🎉, \"quoted\"\t\\path\\".utf8))
        assertRoundTrip(Array("\u{10FFFF}\u{FFFD}\u{80}\u{7FF}\u{800}".utf8))
    }

    func testRoundTripOfALargeText() {
        var bytes = [UInt8]()
        bytes.reserveCapacity(1 << 20)
        var state: UInt32 = 12345
        while bytes.count < 1 << 20 {
            state = state &* 1_103_515_245 &+ 12345
            switch state >> 24 {
            case 0: bytes.append(0x22)
            case 1: bytes.append(0x5C)
            case 2: bytes.append(UInt8((state >> 16) & 0x1F))
            case 3: bytes += [0xE6, 0x97, 0xA5]
            default: bytes.append(UInt8(0x20 + (state >> 16) % 0x5F))
            }
        }
        assertRoundTrip(bytes)
    }
}
