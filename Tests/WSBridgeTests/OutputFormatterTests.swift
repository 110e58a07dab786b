import XCTest
@testable import WSBridge
@testable import WSMessages

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

    /// A text of an envelope's shape was printed as itself, so the next
    /// wspipe sent a binary message (or the inner text) in its place.
    func testEnvelopeShapedTextIsWrappedSoTheLineGivesItBack() {
        XCTAssertEqual(text(#"{"$binary":"3q2+7w=="}"#), #"{"$text":"{\"$binary\":\"3q2+7w==\"}"}"# + "\n")
        XCTAssertEqual(text(#"{"$text":"x"}"#), #"{"$text":"{\"$text\":\"x\"}"}"# + "\n")
        XCTAssertEqual(text("{\n \"$text\" : \"y\"\n}"), #"{"$text":"{\n \"$text\" : \"y\"\n}"}"# + "\n",
                       "kept exact, not compacted")
        XCTAssertEqual(text(#"{"$binary":"!"}"#), #"{"$text":"{\"$binary\":\"!\"}"}"# + "\n")
        // Not envelopes: as they came.
        XCTAssertEqual(text(#"{"$text":"x","b":1}"#), #"{"$text":"x","b":1}"# + "\n")
        XCTAssertEqual(text(#"{"$binary":1}"#), #"{"$binary":1}"# + "\n")
        XCTAssertEqual(text(#"{"$other":"x"}"#), #"{"$other":"x"}"# + "\n")
        XCTAssertEqual(text(#"{"\u0024text":"x"}"#), #"{"\u0024text":"x"}"# + "\n", "stdin sends it as it is")
        // Read back by stdin's translator: the very text.
        for original in [#"{"$binary":"3q2+7w=="}"#, #"{"$text":"x"}"#, "{ \"$text\":\"\\ud800\" }"] {
            var translator = InputTranslator(format: .json, lenient: false, maxPendingBytes: 1 << 20)
            var sent: [String] = []
            let line = Array(text(original).utf8.dropLast())
            _ = line.withUnsafeBytes { raw in
                translator.translate(raw) { message in
                    if case .text(let bytes) = message { sent.append(String(decoding: bytes, as: UTF8.self)) }
                }
            }
            XCTAssertEqual(sent, [original])
        }
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

    /// The formatter for a terminal escapes the message, not the separator.
    func testTerminalFormatters() {
        var raw = OutputFormatter(format: .text, binaryOutput: .raw, separator: 0)
        raw.escapesForTerminal = true
        var out: [UInt8] = []
        Array("a\u{1B}b".utf8).withUnsafeBytes { raw.appendText($0, to: &out) }
        XCTAssertEqual(out, Array("a\\x1bb".utf8) + [0])
        out = []
        ([0x00, 0x41, 0x9B] as [UInt8]).withUnsafeBytes { raw.appendBinary($0, to: &out) }
        XCTAssertEqual(out, Array("\\x00A\\x9b".utf8) + [0])

        var json = OutputFormatter(format: .json, binaryOutput: .raw, separator: 10)
        json.escapesForTerminal = true
        out = []
        Array("{\"a\":\"\u{9B}\"}".utf8).withUnsafeBytes { json.appendText($0, to: &out) }
        XCTAssertEqual(String(decoding: out, as: UTF8.self), "{\"a\":\"\\u009b\"}\n")
        json.colorize = true
        out = []
        Array("{\"a\":\"\u{1B}\u{9B}\"}".utf8).withUnsafeBytes { json.appendText($0, to: &out) }
        let text = String(decoding: out, as: UTF8.self)
        XCTAssertTrue(text.contains("\\u001b\\u009b"), text)
        XCTAssertFalse(out.contains(0xC2), "no raw C1 in the coloured line")
    }

    /// --tag: the member goes into the plain line, so a coloured or escaped
    /// line names its client like a line for a pipe.
    func testTaggedLinesInEveryFormatter() {
        func tagged(_ f: OutputFormatter, _ s: String) -> String {
            var out: [UInt8] = Array("earlier\n".utf8)
            Array(s.utf8).withUnsafeBytes { f.appendText($0, verdict: -1, taggedWith: 7, to: &out) }
            return String(decoding: out, as: UTF8.self)
        }
        let plain = OutputFormatter(format: .json, binaryOutput: .raw, separator: 10)
        XCTAssertEqual(tagged(plain, #"{"a":1}"#), "earlier\n{\"$client\":7,\"a\":1}\n")
        XCTAssertEqual(tagged(plain, "x"), "earlier\n{\"$client\":7,\"$text\":\"x\"}\n")
        var escaping = plain
        escaping.escapesForTerminal = true
        XCTAssertEqual(tagged(escaping, "{\"a\":\"\u{9B}\"}"), "earlier\n{\"$client\":7,\"a\":\"\\u009b\"}\n")
        var colour = escaping
        colour.colorize = true
        let shown = tagged(colour, #"{"a":1}"#)
        XCTAssertTrue(shown.hasPrefix("earlier\n"), shown)
        XCTAssertTrue(shown.contains("\"$client\""), shown)
        var out: [UInt8] = []
        ([1, 2] as [UInt8]).withUnsafeBytes { colour.appendBinary($0, taggedWith: 7, to: &out) }
        XCTAssertTrue(String(decoding: out, as: UTF8.self).contains("$client"))
    }
}
