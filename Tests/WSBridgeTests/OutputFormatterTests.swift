import XCTest
@testable import WSBridge

final class OutputFormatterTests: XCTestCase {
    private func text(_ s: String, _ f: OutputFormatter = OutputFormatter(format: .json, binaryOutput: .raw, separator: 10)) -> String {
        var out: [UInt8] = []
        Array(s.utf8).withUnsafeBytes { f.appendText($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    private func binary(_ b: [UInt8], _ f: OutputFormatter) -> [UInt8] {
        var out: [UInt8] = []
        b.withUnsafeBytes { f.appendBinary($0, to: &out) }
        return out
    }

    func testJSONTextIsWrittenAsIs() {
        XCTAssertEqual(text(#"{"a": 1}"#), "{\"a\": 1}\n")
    }

    func testMultiLineJSONIsCompacted() {
        XCTAssertEqual(text("{\r\n  \"a\": \"x y\",\n  \"b\": [1, 2]\n}\n"), "{\"a\":\"x y\",\"b\":[1,2]}\n")
    }

    func testNonJSONTextIsWrapped() {
        XCTAssertEqual(text("hello \"you\"\n"), "{\"$text\":\"hello \\\"you\\\"\\n\"}\n")
        XCTAssertEqual(text(""), "{\"$text\":\"\"}\n")
    }

    func testBinaryIsBase64Wrapped() {
        let f = OutputFormatter(format: .json, binaryOutput: .raw, separator: 10)
        XCTAssertEqual(String(decoding: binary([0, 1, 2, 3], f), as: UTF8.self), "{\"$binary\":\"AAECAw==\"}\n")
    }

    func testRawModeOutputs() {
        let raw = OutputFormatter(format: .text, binaryOutput: .raw, separator: 0)
        XCTAssertEqual(text("a\nb", raw), "a\nb\0")
        XCTAssertEqual(binary([1, 2], raw), [1, 2, 0])
        XCTAssertEqual(binary([0, 1, 2, 3], OutputFormatter(format: .text, binaryOutput: .base64, separator: 10)), Array("AAECAw==\n".utf8))
        XCTAssertEqual(binary([1], OutputFormatter(format: .binary, binaryOutput: .drop, separator: 10)), [])
    }
}
