import XCTest
@testable import WSJSON

final class JSONPrettyPrinterTests: XCTestCase {
    private func pretty(_ json: String, newline: String = "\n") -> (String, Int) {
        var out: [UInt8] = []
        let lines = Array(json.utf8).withUnsafeBytes { JSONScanner.appendPretty($0, newline: Array(newline.utf8), into: &out) }
        return (String(decoding: out, as: UTF8.self), lines)
    }

    func testNestedValues() {
        let (text, lines) = pretty(#"{"a":1,"b":[true,null,{"c":"x, y: {z}"}],"d":{}, "e" : [ ] }"#)
        XCTAssertEqual(text, """
            {
              "a": 1,
              "b": [
                true,
                null,
                {
                  "c": "x, y: {z}"
                }
              ],
              "d": {},
              "e": []
            }
            """)
        XCTAssertEqual(lines, 12)
    }

    func testScalarsAndEscapes() {
        XCTAssertEqual(pretty("  -1.5e+3 ").0, "-1.5e+3")
        XCTAssertEqual(pretty(#""q\"uote\\ [1,2]""#).0, #""q\"uote\\ [1,2]""#)
        XCTAssertEqual(pretty("[ ]").1, 1)
    }

    func testReformatsAnyWhitespaceAndIsTheSameValue() {
        let input = "{\r\n\t\"k\" :\n[1 ,2]\n}"
        let (text, _) = pretty(input)
        XCTAssertEqual(text, "{\n  \"k\": [\n    1,\n    2\n  ]\n}")
        var compactInput: [UInt8] = []
        var compactOutput: [UInt8] = []
        Array(input.utf8).withUnsafeBytes { JSONScanner.compact($0, into: &compactInput) }
        Array(text.utf8).withUnsafeBytes { JSONScanner.compact($0, into: &compactOutput) }
        XCTAssertEqual(compactOutput, compactInput)
    }

    func testCustomLineBreak() {
        XCTAssertEqual(pretty("[1,2]", newline: "\r\n>").0, "[\r\n>  1,\r\n>  2\r\n>]")
    }
}
