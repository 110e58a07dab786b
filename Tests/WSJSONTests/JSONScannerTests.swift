import XCTest
@testable import WSJSON

/// JSONScanner.validate: RFC 8259 acceptance, exact error positions and reasons,
/// incomplete input, nesting limits and large inputs.
final class JSONScannerTests: XCTestCase {

    // MARK: valid documents

    func testTopLevelScalars() {
        for text in ["true", "false", "null", "0", "42", "-7", "\"\"", "\"x\"", " 1 ", "\t\"a\"\t"] {
            assertValid(text)
        }
    }

    func testContainers() {
        assertValid("{}")
        assertValid("[]")
        assertValid("[[]]")
        assertValid("{\"a\":{}}")
        assertValid("[{}, [], {\"a\": [1, {\"b\": null}]}]")
        assertValid("{\"type\":\"chat\",\"seq\":1,\"pad\":\"xxxx\"}")
        assertValid(" { \"a\" : [ 1 , 2 , { } , [ ] ] , \"b\" : false } ")
        assertValid("{\"\":\"\"}")
    }

    func testNumbersAtTheGrammarEdges() {
        for text in ["0", "-0", "0.0", "-0.0", "0e0", "0E0", "0e+0", "0e-0", "-0.0e-0", "1E+2",
                     "1e-2", "10", "-10.25", "123456789012345678901234567890",
                     "1.7976931348623157e308", "5e-324", "1e999", "[0,-0,0.1,9.99e+09]",
                     "{\"n\":-1.5E10}"] {
            assertValid(text)
        }
    }

    func testStringEscapes() {
        assertValid(#""\"\\\/\b\f\n\r\t""#)
        assertValid(#""\u0041\u00e9\u00E9\uabcd\uABCD""#)
        assertValid(#""\uD83D\uDE00""#)           // surrogate pair
        assertValid(#""\uD800""#)                 // lone high surrogate: grammatical
        assertValid(#""\uDFFF\uD800x""#)          // reversed pair: grammatical
        assertValid(#"{"\u0074ype":"\\"}"#)
    }

    func testMultiByteUTF8() {
        assertValid("\"héllo wörld 日本語 😀\"")
        assertValid("{\"é\":\"ü\",\"日本\":[\"😀😀😀😀😀😀😀😀😀😀😀😀\"]}")
        // Boundary code points of each sequence length (RFC 3629 table).
        let edges: [[UInt8]] = [[0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF],
                                [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80], [0xF0, 0x90, 0x80, 0x80],
                                [0xF4, 0x8F, 0xBF, 0xBF], [0x7F]]
        for seq in edges {
            assertValid(bytes: [0x22] + seq + [0x22])
            assertValid(bytes: [0x22] + Array(repeating: 0x61, count: 13) + seq + [0x22])
        }
    }

    func testEveryLanePositionOfTheFastPath() {
        // A stop byte at each position of the 16-byte stride must be seen.
        for length in 0 ..< 40 {
            let plain = String(repeating: "a", count: length)
            assertValid("\"\(plain)\"")
            assertValid("\"\(plain)\\n\(plain)\"")
            assertValid("[\"\(plain)é\(plain)\",\"\(plain)\"]")
            assertInvalid("\"\(plain)\u{1}\(plain)\"", at: (1, length + 2), "control character U+0001 in string")
            assertInvalid(Array("\"\(plain)".utf8) + [0xFF] + Array("\(plain)\"".utf8),
                          at: (1, length + 2), "invalid UTF-8 in string")
            assertIncomplete("\"\(plain)")
        }
    }

    func testNeedsCompaction() {
        assertValid("[1, 2]\t", needsCompaction: false)
        assertValid("{\"a\":\"x\\ny\\r\"}", needsCompaction: false)   // escaped, inside a string
        assertValid("[1,\n2]", needsCompaction: true)
        assertValid("[1,\r2]", needsCompaction: true)
        assertValid("{\r\n  \"a\": 1\r\n}", needsCompaction: true)
        assertValid("1\n", needsCompaction: true)
        assertValid("\n\"x\"", needsCompaction: true)
    }

    // MARK: invalid documents, exact positions

    func testStructuralErrors() {
        assertInvalid("{\"a\":1,}", at: (1, 8), "trailing comma in object")
        assertInvalid("[1,]", at: (1, 4), "trailing comma in array")
        assertInvalid("[1 2]", at: (1, 4), "expected ',' or ']' in array")
        assertInvalid("{\"a\" 1}", at: (1, 6), "expected ':' after object key")
        assertInvalid("{\"a\":1 \"b\":2}", at: (1, 8), "expected ',' or '}' after object member")
        assertInvalid("[1}", at: (1, 3), "expected ',' or ']' in array")
        assertInvalid("{\"a\":1]", at: (1, 7), "expected ',' or '}' after object member")
        assertInvalid("{1:2}", at: (1, 2), "expected string key or '}'")
        assertInvalid("{\"a\":1,2:3}", at: (1, 8), "expected string key after ','")
        assertInvalid("{'a':1}", at: (1, 2), "expected string key or '}'")
        assertInvalid("{\"a\":}", at: (1, 6), "expected value")
        assertInvalid("[,1]", at: (1, 2), "expected value")
        assertInvalid("]", at: (1, 1), "expected value")
        assertInvalid("}", at: (1, 1), "expected value")
        assertInvalid("1 2", at: (1, 3), "trailing characters after JSON value")
        assertInvalid("[1,2]]", at: (1, 6), "trailing characters after JSON value")
        assertInvalid("{} x", at: (1, 4), "trailing characters after JSON value")
        assertInvalid("\"a\"\"b\"", at: (1, 4), "trailing characters after JSON value")
    }

    func testNotJSONAtAll() {
        assertInvalid("hello", at: (1, 1), "expected value")
        assertInvalid("+1", at: (1, 1), "expected value")
        assertInvalid(".5", at: (1, 1), "expected value")
        assertInvalid("[NaN]", at: (1, 2), "expected value")
        assertInvalid("[Infinity]", at: (1, 2), "expected value")
        assertInvalid("True", at: (1, 1), "expected value")
        assertInvalid("// comment\n1", at: (1, 1), "expected value")
        assertInvalid("[1]/*x*/", at: (1, 4), "trailing characters after JSON value")
        // Only space, tab, LF, CR are whitespace (RFC 8259 §2).
        assertInvalid("[\u{0C}1]", at: (1, 2), "expected value")
        assertInvalid("[\u{0B}1]", at: (1, 2), "expected value")
        assertInvalid("\u{A0}1", at: (1, 1), "expected value")
        assertInvalid(Array("[1,".utf8) + [0x00] + Array("2]".utf8), at: (1, 4), "expected value")
    }

    func testNumberErrors() {
        assertInvalid("01", at: (1, 2), "invalid number: leading zero")
        assertInvalid("-01", at: (1, 3), "invalid number: leading zero")
        assertInvalid("[00]", at: (1, 3), "invalid number: leading zero")
        assertInvalid("[1.]", at: (1, 4), "invalid number: expected digit after '.'")
        assertInvalid("1.e5", at: (1, 3), "invalid number: expected digit after '.'")
        assertInvalid("-a", at: (1, 2), "invalid number: expected digit after '-'")
        assertInvalid("[-]", at: (1, 3), "invalid number: expected digit after '-'")
        assertInvalid("[1e]", at: (1, 4), "invalid number: expected digit in exponent")
        assertInvalid("[1e+]", at: (1, 5), "invalid number: expected digit in exponent")
        assertInvalid("1e+-2", at: (1, 4), "invalid number: expected digit in exponent")
        assertInvalid("0x1F", at: (1, 2), "trailing characters after JSON value")
        assertInvalid("[1.5.2]", at: (1, 5), "expected ',' or ']' in array")
    }

    func testLiteralErrors() {
        assertInvalid("[tru]", at: (1, 5), "invalid literal, expected 'true'")
        assertInvalid("trUe", at: (1, 3), "invalid literal, expected 'true'")
        assertInvalid("falsy", at: (1, 5), "invalid literal, expected 'false'")
        assertInvalid("{\"a\":nulL}", at: (1, 9), "invalid literal, expected 'null'")
        assertInvalid("[True]", at: (1, 2), "expected value")
        assertInvalid("truefalse", at: (1, 5), "trailing characters after JSON value")
    }

    func testStringErrors() {
        assertInvalid("\"\\x\"", at: (1, 2), "invalid escape '\\x' in string")
        assertInvalid("[\"ab\\'\"]", at: (1, 5), "invalid escape '\\'' in string")
        assertInvalid("\"\\U0041\"", at: (1, 2), "invalid escape '\\U' in string")
        assertInvalid(Array("\"\\".utf8) + [0xC3, 0xA9, 0x22], at: (1, 2), "invalid escape in string")
        assertInvalid("\"\\u12G4\"", at: (1, 2), "invalid \\u escape in string: expected 4 hex digits")
        assertInvalid("\"\\u12\"", at: (1, 2), "invalid \\u escape in string: expected 4 hex digits")
        assertInvalid("\"a\tb\"", at: (1, 3), "control character U+0009 in string")
        assertInvalid("\"a\nb\"", at: (1, 3), "control character U+000A in string")
        assertInvalid("{\"k\u{1F}\":1}", at: (1, 4), "control character U+001F in string")
        assertInvalid([0x22, 0x00, 0x22], at: (1, 2), "control character U+0000 in string")
        assertValid(bytes: [0x22, 0x7F, 0x22])   // DEL is not a control character for JSON
    }

    func testInvalidUTF8() {
        let cases: [(bytes: [UInt8], column: Int)] = [
            ([0x22, 0x61, 0xFF, 0x22], 3),                  // never valid
            ([0x22, 0x80, 0x22], 2),                        // lone continuation byte
            ([0x22, 0xC0, 0x80, 0x22], 2),                  // overlong NUL
            ([0x22, 0xC1, 0xBF, 0x22], 2),                  // overlong
            ([0x22, 0xE0, 0x80, 0x80, 0x22], 2),            // overlong 3-byte
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),            // UTF-16 surrogate D800
            ([0x22, 0xF0, 0x80, 0x80, 0x80, 0x22], 2),      // overlong 4-byte
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),      // above U+10FFFF
            ([0x22, 0xF5, 0x80, 0x80, 0x80, 0x22], 2),
            ([0x22, 0xE2, 0x28, 0xA1, 0x22], 2),            // bad second byte
            ([0x22, 0xE2, 0x82, 0x22], 2),                  // sequence cut by the quote
            ([0x22, 0xC3, 0xA9, 0xC3, 0x22], 3),            // é, then a truncated é
        ]
        for (bytes, column) in cases {
            assertInvalid(bytes, at: (1, column), "invalid UTF-8 in string")
        }
    }

    func testErrorOnLaterLineCountsCharactersNotBytes() {
        let text = "{\n  \"a\": 1,\n  \"é😀\": tru }"
        // Line 3 is `  "é😀": tru }`: 'r', 'u' fine, then ' ' where 'e' belongs.
        assertInvalid(text, at: (3, 12), "invalid literal, expected 'true'")
        assertInvalid("[\r\n1,\r\n  \"日本\" 2]", at: (3, 8), "expected ',' or ']' in array")
        let error = JSONTest.validate("[\n1\n,\n]").error
        XCTAssertEqual(error, JSONError(offset: 6, line: 4, column: 1, reason: "trailing comma in array"))
        XCTAssertEqual(error?.description, "4:1: trailing comma in array")
    }

    func testEmptyInput() {
        XCTAssertEqual(JSONTest.validate(""),
                       .invalid(JSONError(offset: 0, line: 1, column: 1, reason: "empty input")))
        XCTAssertEqual(JSONTest.validate("  \t"),
                       .invalid(JSONError(offset: 3, line: 1, column: 4, reason: "empty input")))
        XCTAssertEqual(JSONTest.validate("\r\n").error?.reason, "empty input")
    }

    // MARK: incomplete input

    func testIncomplete() {
        for text in ["{", "[", "[1,", "[1", "{\"a\"", "{\"a\":", "{\"a\":1", "{\"a\":1,", "\"abc",
                     "\"\\", "\"\\u00", "tru", "f", "nul", "-", "1.", "1e", "1e+", "-0.5E",
                     "[[[[[", "{\"a\":[{\"b\":", "  [ \n"] {
            assertIncomplete(text)
        }
        // A UTF-8 sequence cut by the end of input.
        let cut = JSONTest.validate(bytes: [0x22, 0xE2, 0x82])
        XCTAssertEqual(cut, .incomplete(JSONError(offset: 3, line: 1, column: 3,
                                                  reason: "unexpected end of input")))
        XCTAssertEqual(JSONTest.validate("{\n\"a\": 1,"),
                       .incomplete(JSONError(offset: 9, line: 2, column: 8, reason: "unexpected end of input")))
    }

    func testEveryPrefixOfADocumentIsIncomplete() {
        let text = "{\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n é😀\"], \"b\": {\"c\": {}}}"
        let bytes = Array(text.utf8)
        assertValid(text)
        for length in 1 ..< bytes.count {
            let result = JSONTest.validate(bytes: Array(bytes[..<length]))
            guard case .incomplete(let error) = result else {
                XCTFail("prefix \(length): \(result)")
                continue
            }
            XCTAssertEqual(error.offset, length)
        }
    }

    // MARK: nesting

    func testNestingLimit() {
        let limit = 10_000
        assertValid(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
        let deeper = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        assertInvalid(deeper, at: (1, limit + 1), "nesting deeper than 10000")
        let objects = String(repeating: "{\"a\":", count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        assertInvalid(objects, at: (1, limit * 5 + 1), "nesting deeper than 10000")
    }

    func testHundredThousandOpenBracketsDoNotOverflow() {
        let bytes = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        assertInvalid(bytes, at: (1, 10_001), "nesting deeper than 10000")
    }

    func testMixedNestingAcrossStackWords() {
        // Objects and arrays alternate over 300 levels (several 64-level words),
        // so every close must find the right kind again after a spill.
        let depth = 300
        var open = ""
        var close: [String] = []
        for level in 0 ..< depth {
            if level % 3 == 0 {
                open += "{\"k\":"
                close.append("}")
            } else {
                open += "["
                close.append("]")
            }
        }
        let good = open + "1" + close.reversed().joined()
        assertValid(good)
        // Swap the closer of level 64 (the first level of the second word).
        var wrong = Array(close.reversed())
        let index = depth - 1 - 64
        wrong[index] = wrong[index] == "]" ? "}" : "]"
        let offset = open.utf8.count + 1 + index
        let reason = close[64] == "]" ? "expected ',' or ']' in array" : "expected ',' or '}' after object member"
        assertInvalid(open + "1" + wrong.joined(), at: (1, offset + 1), reason)
        // Popping back from level 64 to the object at level 63 must restore the
        // spilled word: the ',' after the inner arrays belongs to that object.
        let arrays = String(repeating: "[", count: 63)
        let inner = String(repeating: "[", count: 10) + String(repeating: "]", count: 10)
        let closeArrays = String(repeating: "]", count: 63)
        assertValid(arrays + "{\"a\":" + inner + ",\"b\":1}" + closeArrays)
        assertInvalid(arrays + "{\"a\":" + inner + "]" + closeArrays,
                      at: (1, 63 + 5 + 20 + 1), "expected ',' or '}' after object member")
    }

    // MARK: large input

    func testFourMiBString() {
        let size = 4 << 20
        var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: size)
        bytes[0] = 0x22
        bytes[size - 1] = 0x22
        assertValid(bytes: bytes)
        // An escape and some UTF-8 in the middle change nothing.
        bytes.replaceSubrange(1000 ..< 1006, with: Array("\\u00e9".utf8))
        bytes.replaceSubrange(2_000_000 ..< 2_000_004, with: [0xF0, 0x9F, 0x98, 0x80])
        assertValid(bytes: bytes)
        // A raw newline near the end is found at its exact offset.
        bytes[size - 3] = 0x0A
        let error = JSONTest.validate(bytes: bytes).error
        XCTAssertEqual(error?.offset, size - 3)
        XCTAssertEqual(error?.reason, "control character U+000A in string")
        // Missing closing quote: incomplete, at the end.
        bytes[size - 3] = UInt8(ascii: "x")
        bytes[size - 1] = UInt8(ascii: "x")
        XCTAssertEqual(JSONTest.validate(bytes: bytes).error?.offset, size)
        XCTAssertEqual(JSONTest.validate(bytes: bytes).error?.reason, "unexpected end of input")
    }

    func testBenchmarkShapedMessages() {
        let pad = String(repeating: "x", count: 1 << 20)
        for seq in 0 ..< 3 {
            assertValid("{\"type\":\"chat\",\"seq\":\(seq),\"pad\":\"\(pad)\"}")
        }
    }
}
