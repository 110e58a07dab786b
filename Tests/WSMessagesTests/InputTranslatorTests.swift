import XCTest
@testable import WSMessages

final class InputTranslatorTests: XCTestCase {
    enum Sent: Equatable { case text(String), binary([UInt8]) }

    private func run(_ lines: [String], format: LineFormat = .json, lenient: Bool = false,
                     maxPending: Int = 1 << 20) -> (sent: [Sent], rejected: [String]) {
        var translator = InputTranslator(format: format, lenient: lenient, maxPendingBytes: maxPending)
        var sent: [Sent] = []
        var rejected: [String] = []
        let collect: (OutgoingMessage) -> Void = { message in
            switch message {
            case .text(let b): sent.append(.text(String(decoding: b, as: UTF8.self)))
            case .binary(let b): sent.append(.binary(Array(b)))
            }
        }
        for line in lines {
            let bytes = Array(line.utf8)
            let outcome = bytes.withUnsafeBytes { translator.translate($0, collect) }
            outcome.forEachRejection { rejected.append($0.message) }
        }
        translator.finish(collect)?.forEachRejection { rejected.append($0.message) }
        return (sent, rejected)
    }

    func testValidJSONIsSentByteForByte() {
        let r = run([#"  {"type":"chat", "n": 1}  "#, "42", #""s""#])
        XCTAssertEqual(r.sent, [.text(#"  {"type":"chat", "n": 1}  "#), .text("42"), .text(#""s""#)])
        XCTAssertEqual(r.rejected, [])
    }

    func testEmptyLinesAreSkipped() {
        XCTAssertEqual(run(["", "1", ""]).sent, [.text("1")])
    }

    func testEnvelopesAreUnwrapped() {
        let r = run([#"{"$binary":"AAECAw=="}"#, #"{ "$text" : "a\"b\n\u00e9" }"#, #"{"$binary":"AA\/w"}"#])
        XCTAssertEqual(r.sent, [.binary([0, 1, 2, 3]), .text("a\"b\n\u{e9}"), .binary([0, 15, 240])])
    }

    func testEnvelopeWithMoreKeysIsPlainJSON() {
        let line = #"{"$text":"x","y":1}"#
        XCTAssertEqual(run([line]).sent, [.text(line)])
    }

    func testInvalidBase64IsRejectedWithPosition() {
        let r = run([#"{"$binary":"@@@"}"#])
        XCTAssertEqual(r.sent, [])
        XCTAssertEqual(r.rejected, ["stdin:1:13: invalid base64 in $binary"])
    }

    func testInvalidLineIsReportedAndTheRunGoesOn() {
        let r = run(["1", #"{"a":1,}"#, "2"])
        XCTAssertEqual(r.sent, [.text("1"), .text("2")])
        XCTAssertEqual(r.rejected.count, 1)
        XCTAssertTrue(r.rejected[0].hasPrefix("stdin:2:8: "), r.rejected[0])
    }

    func testPrettyPrintedValueIsJoinedAndCompacted() {
        let r = run(["{", #"  "a": 1,"#, #"  "b": [1,"#, "   2]", "}", "3"])
        XCTAssertEqual(r.sent, [.text(#"{"a":1,"b":[1,2]}"#), .text("3")])
        XCTAssertEqual(r.rejected, [])
    }

    func testErrorInsideJoinedValueCountsLinesFromItsStart() {
        let r = run(["7", "{", #"  "a" 1"#, "}"])
        XCTAssertEqual(r.sent, [.text("7")])
        XCTAssertEqual(r.rejected.count, 1)
        XCTAssertTrue(r.rejected[0].hasPrefix("stdin:3:"), r.rejected[0])
    }

    func testUnterminatedStringIsRejectedAtOnce() {
        let r = run([#""abc"#, "1"])
        XCTAssertEqual(r.sent, [.text("1")])
        XCTAssertEqual(r.rejected.count, 1)
        XCTAssertTrue(r.rejected[0].hasPrefix("stdin:1:"), r.rejected[0])
    }

    func testUnfinishedValueAtEndOfInputIsReported() {
        let r = run(["[1,", "2,"])
        XCTAssertEqual(r.sent, [])
        XCTAssertEqual(r.rejected.count, 1)
        XCTAssertTrue(r.rejected[0].hasPrefix("stdin:"), r.rejected[0])
    }

    func testLenientSendsInvalidLinesAsText() {
        let r = run(["not json", "1"], lenient: true)
        XCTAssertEqual(r.sent, [.text("not json"), .text("1")])
        XCTAssertEqual(r.rejected, [])
    }

    func testRawModesSendLinesAsIs() {
        XCTAssertEqual(run(["not json", ""], format: .text).sent, [.text("not json"), .text("")])
        XCTAssertEqual(run(["ab"], format: .binary).sent, [.binary([97, 98])])
    }

    // MARK: stray lines and lone surrogates (issue: hostile input)

    func testAStrayOpenerIsReportedAloneAndTheLinesAfterItAreSent() {
        let r = run(["[", #"{"a":1}"#, #"{"b":2}"#, #"{"c":3}"#])
        XCTAssertEqual(r.sent, [.text(#"{"a":1}"#), .text(#"{"b":2}"#), .text(#"{"c":3}"#)])
        XCTAssertEqual(r.rejected, ["stdin:1:2: unterminated JSON value (line 3 cannot continue it)"])
    }

    func testAStrayObjectOpenerEndsAtTheFirstLineThatCannotContinueIt() {
        let r = run(["{", #"{"a":1}"#, "2"])
        XCTAssertEqual(r.sent, [.text(#"{"a":1}"#), .text("2")])
        XCTAssertEqual(r.rejected, ["stdin:1:2: unterminated JSON value (line 2 cannot continue it)"])
    }

    func testLinesAfterAStrayOpenerMayStartAValueOfTheirOwn() {
        let r = run(["[", #"{"a":"#, "1}", #"{"b":2}"#])
        XCTAssertEqual(r.sent, [.text(#"{"a":1}"#), .text(#"{"b":2}"#)])
        XCTAssertEqual(r.rejected, ["stdin:1:2: unterminated JSON value (line 4 cannot continue it)"])
    }

    func testAStrayOpenerAtTheEndOfInputGivesBackTheValuesAfterIt() {
        let r = run(["1", "[", "2"])
        XCTAssertEqual(r.sent, [.text("1"), .text("2")])
        XCTAssertEqual(r.rejected, ["stdin:2:2: unterminated JSON value (input ended)"])
    }

    func testAValidPrettyPrintedArrayOfScalarsIsStillOneMessage() {
        XCTAssertEqual(run(["[", "  1", "]"]).sent, [.text("[1]")])
        XCTAssertEqual(run(["[", "  {\"a\": 1}", "]"]).sent, [.text(#"[{"a":1}]"#)])
    }

    func testAMissingCommaInAPrettyPrintedValueIsReportedWhereItIs() {
        let r = run(["{", #"  "a": 1"#, #"  "b": 2"#, "}", "3"])
        XCTAssertEqual(r.sent, [.text("3")])
        XCTAssertEqual(r.rejected.first, "stdin:3:3: expected ',' or '}' after object member")
    }

    func testAStrayOpenerIsSentAsTextWhenLenient() {
        let r = run(["[", #"{"a":1}"#, #"{"b":2}"#], lenient: true)
        XCTAssertEqual(r.sent, [.text("["), .text(#"{"a":1}"#), .text(#"{"b":2}"#)])
        XCTAssertEqual(r.rejected, [])
    }

    func testPendingInputIsBoundedByTheLimit() {
        let r = run(["["] + Array(repeating: "  1,", count: 30) + [#"{"a":1}"#], maxPending: 64)
        XCTAssertEqual(r.rejected.first, "stdin:1:1: unterminated JSON value longer than 64 bytes")
        XCTAssertEqual(r.sent, [.text(#"{"a":1}"#)], "the value was dropped at the limit, not kept growing")
    }

    func testTextWithALoneSurrogateIsRejected() {
        let r = run([#"{"$text":"a\ud800"}"#, #"{"$text":"\udc00b"}"#, #"{"$text":"\ud83d\ude00 \u00e9"}"#])
        XCTAssertEqual(r.sent, [.text("\u{1F600} \u{e9}")])
        XCTAssertEqual(r.rejected, [#"stdin:1:12: invalid $text: lone surrogate \ud800"#,
                                    #"stdin:2:11: invalid $text: lone surrogate \udc00"#])
    }

    func testPlainJSONWithALoneSurrogateEscapeIsSentAsIs() {
        XCTAssertEqual(run([#"{"s":"\ud800"}"#]).sent, [.text(#"{"s":"\ud800"}"#)])
    }
}
