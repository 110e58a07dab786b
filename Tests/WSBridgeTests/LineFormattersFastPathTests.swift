import XCTest
import WSJSON
@testable import WSBridge
@testable import WSMessages

/// `LineFormatters.appendText` writes compact valid JSON (verdict 0) into a
/// destination without the formatter: for random texts, valid or not,
/// compact or not, of every verdict the core may hand over, in every format,
/// the lines are byte for byte those of the formatter itself.
final class LineFormattersFastPathTests: XCTestCase {
    private struct Random {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private let pieces = [#"{"type":"chat","seq":"#, "1", "-2.5e3", ",", ":", #""pad":"#, #""x\"y""#, "[", "]", "{",
                          "}", " ", "\n", "\r\n", "\t", "true", "null", #""é日本""#, "\u{1}", "\\", #"""#, "x"]

    func testFastLinesAreTheFormattersLines() {
        var random = Random(state: 36)
        for format in [LineFormat.json, .text, .binary] {
            var options = BridgeOptions()
            options.format = format
            let formatters = options.formatters(anyTerminal: false)
            let plain = OutputFormatter(format: format, binaryOutput: options.binaryOutput, separator: options.separator)
            for round in 0 ..< 4_000 {
                // Every third a chat line; every seventh of the rest a text of an envelope's shape.
                var text = round % 3 == 0 ? #"{"type":"chat","seq":7,"pad":"xxxx"}"#
                    : round % 7 == 1 ? #"{"$binary":"3q2+7w=="}"# : ""
                for _ in 0 ..< random.next(12) { text += pieces[random.next(pieces.count)] }
                let bytes = Array(text.utf8)
                // What the core may hand over: the check's answer, or nothing known.
                let answer = bytes.withUnsafeBytes { JSONScanner.validate($0) }
                var verdicts = [-1]
                if case .valid(let compaction) = answer { verdicts.append(compaction ? 1 : 0) }
                for verdict in verdicts {
                    let destination = Destination(droppingAs: "test")
                    destination.pending = Array("before\n".utf8)
                    var expected = destination.pending
                    bytes.withUnsafeBytes {
                        formatters.appendText($0, verdict: verdict, to: destination)
                        plain.appendText($0, verdict: verdict, to: &expected)
                    }
                    XCTAssertEqual(destination.pending, expected, "\(format) verdict \(verdict): \(text.debugDescription)")
                }
            }
        }
    }
}
