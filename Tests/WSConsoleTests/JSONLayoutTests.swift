import XCTest
@testable import WSConsole
import WSTerminal

final class JSONLayoutTests: XCTestCase {
    /// The rows of `json` pretty-printed at `width`, without colours.
    private func pretty(_ json: String, width: Int, colors: Bool = false) -> [String] {
        var writer = RowWriter(width: width, colors: colors)
        Array(json.utf8).withUnsafeBytes { JSONLayout($0).writePretty(into: &writer) }
        let (rows, widths) = writer.finish()
        for (row, columns) in zip(rows, widths) {
            XCTAssertLessThanOrEqual(columns, width, String(decoding: row, as: UTF8.self))
        }
        return rows.map { String(decoding: $0, as: UTF8.self) }
    }

    private func compact(_ json: String, width: Int) -> String {
        var writer = RowWriter(width: width, colors: false)
        Array(json.utf8).withUnsafeBytes { JSONLayout($0).writeCompact(into: &writer) }
        let rows = writer.finish().rows
        XCTAssertEqual(rows.count, 1)
        return String(decoding: rows[0], as: UTF8.self)
    }

    private let article = #"{"type":"article","id":12345,"title":"Streaming JSON over WebSockets without losing a message","tags":["alpha","beta","gamma","delta"],"author":{"name":"Ann","email":"ann@example.com"},"body":"A long body of text that goes on and on, well past the edge of any terminal one would care to use."}"#

    func testPrettyWithAnArrayOfScalarsOnOneLine() {
        XCTAssertEqual(pretty(article, width: 85), [
            "{",
            #"  "type": "article","#,
            #"  "id": 12345,"#,
            #"  "title": "Streaming JSON over WebSockets without losing a message","#,
            #"  "tags": ["alpha", "beta", "gamma", "delta"],"#,
            #"  "author": {"#,
            #"    "name": "Ann","#,
            #"    "email": "ann@example.com""#,
            "  },",
            #"  "body": "A long body of text that goes on and on, well past the edge of any "#,
            #"    terminal one would care to use.""#,
            "}",
        ])
    }

    func testNarrowRowsBreakBetweenTokensOrInsideLongStrings() {
        XCTAssertEqual(pretty(article, width: 40), [
            "{",
            #"  "type": "article","#,
            #"  "id": 12345,"#,
            #"  "title": "Streaming JSON over "#,
            #"    WebSockets without losing a "#,
            #"    message","#,
            #"  "tags": ["#,
            #"    "alpha","#,
            #"    "beta","#,
            #"    "gamma","#,
            #"    "delta""#,
            "  ],",
            #"  "author": {"#,
            #"    "name": "Ann","#,
            #"    "email": "ann@example.com""#,
            "  },",
            #"  "body": "A long body of text that "#,
            #"    goes on and on, well past the edge "#,
            #"    of any terminal one would care to "#,
            #"    use.""#,
            "}",
        ])
    }

    func testAStringThatFitsARowOfItsOwnMovesThereWhole() {
        let json = #"{"k":1,"description":"exactly thirty characters!!","n":[1,2,3]}"#
        XCTAssertEqual(pretty(json, width: 40), [
            "{",
            #"  "k": 1,"#,
            #"  "description":"#,
            #"    "exactly thirty characters!!","#,
            #"  "n": [1, 2, 3]"#,
            "}",
        ])
    }

    func testArraysOfContainersAndEmptyOnes() {
        XCTAssertEqual(pretty(#"[{"a":[]},{},[[1],[]],null]"#, width: 60), [
            "[",
            "  {",
            #"    "a": []"#,
            "  },",
            "  {},",
            "  [",
            "    [1],",
            "    []",
            "  ],",
            "  null",
            "]",
        ])
        XCTAssertEqual(pretty("  42 ", width: 10), ["42"])
        XCTAssertEqual(pretty(#""text""#, width: 10), [#""text""#])
    }

    func testDeepNestingStopsIndentingAtHalfTheWidth() {
        let deep = String(repeating: "[", count: 30) + "1" + String(repeating: "]", count: 30)
        let rows = pretty(deep, width: 20)
        XCTAssertEqual(rows.count, 59, "29 rows of [, the innermost array inline, 29 of ]")
        XCTAssertEqual(rows[4], "        [")
        XCTAssertEqual(rows[29], String(repeating: " ", count: 10) + "[1]")
        XCTAssertEqual(rows[58], "]")
    }

    func testNoCharacterOrEscapeIsEverSplit() {
        // Wide characters (2 columns) and escapes (\u001b: 6 columns) across narrow rows.
        let json = #"["日本語のテキストです", "a\u001bb\u001bc\u001bd\u001be"]"#
        let rows = pretty(json, width: 12)
        for row in rows {
            XCTAssertFalse(row.hasSuffix("\\u00") || row.hasSuffix("\\u0") || row.hasSuffix("\\"), row)
        }
        let joined = rows.map { $0.trimmingLeadingBlanks }.joined()
        XCTAssertEqual(joined, #"["日本語のテキストです","a\u001bb\u001bc\u001bd\u001be"]"#)
    }

    func testPeerControlCharactersAreEscaped() {
        // DEL, C1 CSI and a bidi override inside a valid JSON string.
        XCTAssertEqual(pretty("[\"x\u{7F}\u{9B}31m\u{202E}\"]", width: 40), [#"["x\u007f\u009b31m\u202e"]"#])
    }

    func testCompactIsCutWithAnEllipsis() {
        XCTAssertEqual(compact(#"{"a":[1,2,3]}"#, width: 20), #"{"a":[1,2,3]}"#)
        XCTAssertEqual(compact(#"{"type":"tick","n":123456}"#, width: 12), #"{"type":"ti…"#)
        XCTAssertEqual(compact(#"["日本語"]"#, width: 5), #"["日…"#, "a wide character that does not fit is left out")
    }

    func testColoursOpenAndCloseOnEveryRow() {
        let rows = pretty(#"{"k":"one two three four"}"#, width: 16, colors: true)
        for row in rows where row.contains("\u{1B}[") {
            XCTAssertTrue(row.hasSuffix("\u{1B}[0m"), "a colour never runs into the next row: \(row.debugDescription)")
        }
        XCTAssertTrue(rows[1].hasPrefix("  \u{1B}[34;1m\"k\""), rows[1].debugDescription)
    }
}

private extension String {
    var trimmingLeadingBlanks: String { String(drop { $0 == " " }) }
}
