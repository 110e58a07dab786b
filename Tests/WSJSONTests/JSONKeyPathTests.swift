import XCTest
@testable import WSJSON

/// JSONScanner.valueRange(atPath:in:) and soleStringMember.
final class JSONKeyPathTests: XCTestCase {

    // MARK: valueRange

    func testTopLevelKeys() {
        let text = "{\"type\":\"chat\",\"seq\":5,\"ok\":true,\"list\":[1, [2]],\"obj\":{\"a\":{}}}"
        XCTAssertEqual(JSONTest.value(at: ["type"], in: text), "\"chat\"")
        XCTAssertEqual(JSONTest.value(at: ["seq"], in: text), "5")
        XCTAssertEqual(JSONTest.value(at: ["ok"], in: text), "true")
        XCTAssertEqual(JSONTest.value(at: ["list"], in: text), "[1, [2]]")
        XCTAssertEqual(JSONTest.value(at: ["obj"], in: text), "{\"a\":{}}")
    }

    func testRangeIsExactInBytes() {
        let bytes = Array("{\"seq\":12}".utf8)
        let range = bytes.withUnsafeBytes { JSONScanner.valueRange(atPath: [Array("seq".utf8)], in: $0) }
        XCTAssertEqual(range, 7 ..< 9)
    }

    func testWhitespaceAroundTokens() {
        let text = " {\n \"a\" : [ 1 , 2 ] ,\r\n \"b\"\t:\t-0.5e1 \n} "
        XCTAssertEqual(JSONTest.value(at: ["a"], in: text), "[ 1 , 2 ]")
        XCTAssertEqual(JSONTest.value(at: ["b"], in: text), "-0.5e1")
    }

    func testDottedPath() {
        let text = "{\"kind\":\"top\",\"event\": {\"id\": 1, \"kind\": \"x\", \"deep\": {\"kind\": null}}}"
        XCTAssertEqual(JSONTest.value(at: ["event", "kind"], in: text), "\"x\"")
        XCTAssertEqual(JSONTest.value(at: ["event", "deep", "kind"], in: text), "null")
        XCTAssertEqual(JSONTest.value(at: ["kind"], in: text), "\"top\"")
    }

    func testMissingKeys() {
        let text = "{\"event\":{\"kind\":\"x\"},\"type\":\"t\",\"list\":[{\"kind\":1}]}"
        XCTAssertNil(JSONTest.value(at: ["nope"], in: text))
        XCTAssertNil(JSONTest.value(at: ["event", "nope"], in: text))
        XCTAssertNil(JSONTest.value(at: ["type", "x"], in: text))        // a string has no keys
        XCTAssertNil(JSONTest.value(at: ["list", "kind"], in: text))     // nor has an array
        XCTAssertNil(JSONTest.value(at: ["ty"], in: text))               // prefixes do not match
        XCTAssertNil(JSONTest.value(at: ["typex"], in: text))
        XCTAssertNil(JSONTest.value(at: ["type"], in: "{}"))
    }

    func testNonObjectTopLevel() {
        XCTAssertNil(JSONTest.value(at: ["type"], in: "[{\"type\":1}]"))
        XCTAssertNil(JSONTest.value(at: ["type"], in: "\"type\""))
        XCTAssertNil(JSONTest.value(at: ["type"], in: "42"))
        XCTAssertNil(JSONTest.value(at: ["type"], in: ""))
    }

    func testEmptyPathIsTheWholeValue() {
        XCTAssertEqual(JSONTest.value(at: [], in: "  [1, 2] \n"), "[1, 2]")
        XCTAssertEqual(JSONTest.value(at: [], in: " 7 "), "7")
    }

    func testKeyAfterLargeSkippedValues() {
        let pad = String(repeating: "x", count: 1 << 20)
        // Decoys: a "type" inside a skipped object, brackets and quotes inside strings.
        let text = "{\"pad\":\"\(pad)\\\"type\\\":\\\\\",\"nested\":{\"a\":[1,{\"type\":\"no\"}],\"b\":\"}]\"},"
            + "\"arr\":[\"[\",{\"x\":\"{\"}],\"type\":\"yes\"}"
        XCTAssertEqual(JSONTest.validate(text), .valid(needsCompaction: false))
        XCTAssertEqual(JSONTest.value(at: ["type"], in: text), "\"yes\"")
        XCTAssertEqual(JSONTest.value(at: ["nested", "b"], in: text), "\"}]\"")
        XCTAssertEqual(JSONTest.value(at: ["nested", "a"], in: text), "[1,{\"type\":\"no\"}]")
    }

    func testEscapedKeys() {
        XCTAssertEqual(JSONTest.value(at: ["type"], in: "{\"\\u0074ype\":\"a\"}"), "\"a\"")
        XCTAssertEqual(JSONTest.value(at: ["é"], in: "{\"\\u00e9\":1,\"é\":2}"), "1")
        XCTAssertEqual(JSONTest.value(at: ["a\"b"], in: "{\"a\\\"b\":3}"), "3")
        // "a\\nb" in JSON is backslash + n; "a\nb" in JSON is a newline.
        let json = "{\"a\\nb\":1,\"a\\\\nb\":2}"
        XCTAssertEqual(JSONTest.value(at: ["a\nb"], in: json), "1")
        XCTAssertEqual(JSONTest.value(at: ["a\\nb"], in: json), "2")
        XCTAssertNil(JSONTest.value(at: ["a\\u0074"], in: "{\"a\\u0074\":1}"))
        XCTAssertEqual(JSONTest.value(at: ["😀"], in: "{\"\\uD83D\\uDE00\":true}"), "true")
    }

    func testFirstDuplicateWins() {
        XCTAssertEqual(JSONTest.value(at: ["a"], in: "{\"a\":1,\"a\":2}"), "1")
    }

    // MARK: soleStringMember

    private func sole(_ text: String) -> (key: String, value: String)? {
        let bytes = Array(text.utf8)
        guard let found = bytes.withUnsafeBytes({ JSONScanner.soleStringMember($0) }) else { return nil }
        return (String(decoding: found.key, as: UTF8.self), String(decoding: bytes[found.value], as: UTF8.self))
    }

    func testSoleStringMember() {
        let bytes = Array("{\"$binary\":\"AAEC\"}".utf8)
        let found = bytes.withUnsafeBytes { JSONScanner.soleStringMember($0) }
        XCTAssertEqual(found?.key, Array("$binary".utf8))
        XCTAssertEqual(found?.value, 11 ..< 17)

        XCTAssertEqual(sole(" {\n \"$text\" :\t\"hi \\\"there\\\" }\" \r\n} ")?.key, "$text")
        XCTAssertEqual(sole(" {\n \"$text\" :\t\"hi \\\"there\\\" }\" \r\n} ")?.value, "\"hi \\\"there\\\" }\"")
        XCTAssertEqual(sole("{\"\\u0024text\":\"\"}")?.key, "$text")
        XCTAssertEqual(sole("{\"\\u0024text\":\"\"}")?.value, "\"\"")
    }

    func testNotASoleStringMember() {
        XCTAssertNil(sole("{\"$text\":\"a\",\"b\":\"c\"}"))
        XCTAssertNil(sole("{\"$text\":1}"))
        XCTAssertNil(sole("{\"$text\":[\"a\"]}"))
        XCTAssertNil(sole("{\"$text\":null}"))
        XCTAssertNil(sole("{}"))
        XCTAssertNil(sole("[\"a\"]"))
        XCTAssertNil(sole("\"$text\""))
        XCTAssertNil(sole(""))
    }
}
