import XCTest
@testable import WSJSON

/// JSONScanner.compact: whitespace outside strings goes, every token stays.
final class JSONCompactionTests: XCTestCase {

    func testPrettyPrintedObjectWithCRLF() {
        let pretty = "{\r\n  \"a\" : 1,\r\n  \"b\" : [ true , null , -1.5e3 ],\r\n  \"c\" : { }\r\n}\r\n"
        XCTAssertEqual(JSONTest.compact(pretty), "{\"a\":1,\"b\":[true,null,-1.5e3],\"c\":{}}")
    }

    func testWhitespaceInsideStringsIsKept() {
        XCTAssertEqual(JSONTest.compact("{ \"a b\" : \" x \\t y \" ,\n \"c\":\"  \" }"),
                       "{\"a b\":\" x \\t y \",\"c\":\"  \"}")
    }

    func testEscapedQuotesAndBackslashesAreNotStringEnds() {
        XCTAssertEqual(JSONTest.compact("[ \"a\\\"b\" ,\n \"c\\\\\" , \"d\" ]"),
                       "[\"a\\\"b\",\"c\\\\\",\"d\"]")
        XCTAssertEqual(JSONTest.compact("[\"\\\\\\\"  \" , \"\\\\\"\n]"), "[\"\\\\\\\"  \",\"\\\\\"]")
        // Long strings: the escape sits past the 16-byte fast path.
        let long = String(repeating: "p", count: 37)
        XCTAssertEqual(JSONTest.compact("[ \"\(long)\\\" \(long)\" ,\r\n \"\(long)\\\\\" ]"),
                       "[\"\(long)\\\" \(long)\",\"\(long)\\\\\"]")
    }

    func testAlreadyCompactIsCopiedUnchanged() {
        let text = "{\"type\":\"chat\",\"seq\":1,\"text\":\"héllo 😀\"}"
        XCTAssertEqual(JSONTest.compact(text), text)
        XCTAssertEqual(JSONTest.compact("  42 \n"), "42")
        XCTAssertEqual(JSONTest.compact("\"  x  \""), "\"  x  \"")
    }

    func testAppendsToExistingOutput() {
        var out = Array("prefix:".utf8)
        Array("[ 1 ,\n 2 ]".utf8).withUnsafeBytes { JSONScanner.compact($0, into: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "prefix:[1,2]")
    }

    func testCompactedOutputValidatesAsOneLine() {
        let pretty = """
        {
          "event": {
            "kind": "message",
            "items": [ 1, 2, { "x": "a\\nb" } ]
          },
          "pad": "\(String(repeating: "z", count: 5000))"
        }
        """
        XCTAssertEqual(JSONTest.validate(pretty), .valid(needsCompaction: true))
        let compacted = JSONTest.compact(pretty)
        XCTAssertEqual(JSONTest.validate(compacted), .valid(needsCompaction: false))
        XCTAssertFalse(compacted.contains(" "))
        XCTAssertFalse(compacted.contains("\n"))
        XCTAssertEqual(compacted.utf8.count, pretty.utf8.count - pretty.utf8.filter { $0 == 0x20 || $0 == 0x0A }.count)
    }
}
