import XCTest
@testable import WSJSON

/// Helpers shared by the JSON scanner tests: run the scanner on a String or on
/// raw bytes, and assert the exact outcome with the caller's file and line.
enum JSONTest {
    static func validate(_ text: String) -> JSONValidation {
        validate(bytes: Array(text.utf8))
    }

    static func validate(bytes: [UInt8]) -> JSONValidation {
        bytes.withUnsafeBytes { JSONScanner.validate($0) }
    }

    static func compact(_ text: String) -> String {
        var out: [UInt8] = []
        Array(text.utf8).withUnsafeBytes { JSONScanner.compact($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The raw text of the value at `path`, or nil.
    static func value(at path: [String], in text: String) -> String? {
        let bytes = Array(text.utf8)
        let range = bytes.withUnsafeBytes {
            JSONScanner.valueRange(atPath: path.map { Array($0.utf8) }, in: $0)
        }
        return range.map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    static func unescape(_ token: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        token.withUnsafeBytes { JSONScanner.appendUnescaped(stringToken: $0, into: &out) }
        return out
    }

    static func quote(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        bytes.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        return out
    }
}

func assertValid(_ text: String, needsCompaction: Bool = false,
                 file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(JSONTest.validate(text), .valid(needsCompaction: needsCompaction),
                   "for \(text.debugDescription)", file: file, line: line)
}

func assertValid(bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
    XCTAssertEqual(JSONTest.validate(bytes: bytes), .valid(needsCompaction: false),
                   "for \(bytes)", file: file, line: line)
}

/// Asserts `.invalid` with this exact line, column and reason.
func assertInvalid(_ bytes: [UInt8], at position: (line: Int, column: Int), _ reason: String,
                   file: StaticString = #filePath, line: UInt = #line) {
    let result = JSONTest.validate(bytes: bytes)
    guard case .invalid(let error) = result else {
        XCTFail("expected invalid, got \(result) for \(String(decoding: bytes, as: UTF8.self).debugDescription)",
                file: file, line: line)
        return
    }
    XCTAssertEqual(error.reason, reason, file: file, line: line)
    XCTAssertEqual(error.line, position.line, "line", file: file, line: line)
    XCTAssertEqual(error.column, position.column, "column", file: file, line: line)
}

func assertInvalid(_ text: String, at position: (line: Int, column: Int), _ reason: String,
                   file: StaticString = #filePath, line: UInt = #line) {
    assertInvalid(Array(text.utf8), at: position, reason, file: file, line: line)
}

/// Asserts `.incomplete` ("unexpected end of input") positioned at the end.
func assertIncomplete(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
    let bytes = Array(text.utf8)
    let result = JSONTest.validate(bytes: bytes)
    guard case .incomplete(let error) = result else {
        XCTFail("expected incomplete, got \(result) for \(text.debugDescription)", file: file, line: line)
        return
    }
    XCTAssertEqual(error.reason, "unexpected end of input", file: file, line: line)
    XCTAssertEqual(error.offset, bytes.count, "offset", file: file, line: line)
}
