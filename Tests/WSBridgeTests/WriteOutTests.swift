import XCTest
@testable import WSBridge

/// -w/--write-out's format (curl's syntax) and values.
final class WriteOutTests: XCTestCase {
    private var values: WriteOutValues {
        var v = WriteOutValues()
        v.url = "ws://h/x"
        v.httpCode = 101
        v.timeConnect = 1_234_567_890
        v.timeTotal = 12_000
        v.messagesIn = 3
        return v
    }

    private func render(_ format: String) throws -> [String] {
        try WriteOutFormat(parsing: format).render(values).map { "\($0.fd):" + String(decoding: $0.bytes, as: UTF8.self) }
    }

    func testVariablesTextAndEscapes() throws {
        XCTAssertEqual(try render("%{http_code} in %{time_connect}s\\n"), ["1:101", "1: in ", "1:1.234567", "1:s\n"])
        XCTAssertEqual(try render("a\\tb\\\\c\\qd %% 100%"), ["1:a\tb\\c\\qd % 100%"])
        XCTAssertEqual(try render("%{time_total}"), ["1:0.000012"])
    }

    func testStreams() throws {
        XCTAssertEqual(try render("a%{stderr}b%{stdout}c"), ["1:a", "2:b", "1:c"])
    }

    func testJSONHasEveryVariableInOrder() throws {
        let json = try render("%{json}")
        XCTAssertEqual(json.count, 1)
        let text = String(json[0].dropFirst(2))
        XCTAssertTrue(text.hasPrefix("{\"url\":\"ws://h/x\",\"url_effective\":\"\",\"num_redirects\":0,\"http_code\":101,"), text)
        XCTAssertTrue(text.contains("\"time_connect\":1.234567,"), text)
        XCTAssertTrue(text.hasSuffix(",\"exitcode\":0}"), text)
        var position = text.startIndex
        for variable in WriteOutVariable.allCases {
            let key = "\"\(variable.rawValue)\":"
            guard let found = text.range(of: key, range: position..<text.endIndex) else {
                return XCTFail("\(variable) missing or out of order")
            }
            position = found.upperBound
        }
    }

    func testErrors() {
        XCTAssertThrowsError(try WriteOutFormat(parsing: "%{nope}")) { error in
            XCTAssertTrue((error as! WriteOutFormat.ParseError).message.hasPrefix("unknown variable %{nope} (known: url, "))
        }
        XCTAssertThrowsError(try WriteOutFormat(parsing: "%{json"))
    }

    func testSecondsAsCurlWritesThem() {
        XCTAssertEqual(WriteOutValues.seconds(0), "0.000000")
        XCTAssertEqual(WriteOutValues.seconds(1_000_250_000), "1.000250")
        XCTAssertEqual(WriteOutValues.seconds(-5), "0.000000")
        XCTAssertEqual(EventLine.milliseconds(12_345_678), Array("12.345".utf8))
    }

    /// A value can come from the peer (a redirect's Location is
    /// url_effective): bound for a terminal, it is escaped; the format's own
    /// text is the user's and is not. Into a pipe it is exact.
    func testValuesForATerminalAreEscaped() throws {
        var peer = values
        peer.urlEffective = "ws://h/a\u{202E}b\u{9B}c\u{1B}"
        let format = try WriteOutFormat(parsing: "%{url_effective}\t%{stderr}%{url_effective}%{json}")
        let shown = format.render(peer, escapes: { $0 == 2 }).map { "\($0.fd):" + String(decoding: $0.bytes, as: UTF8.self) }
        XCTAssertEqual(shown[0], "1:ws://h/a\u{202E}b\u{9B}c\u{1B}", "not a terminal: exact")
        XCTAssertEqual(shown[1], "1:\t")
        XCTAssertEqual(shown[2], "2:ws://h/a\\u202eb\\x9bc\\x1b")
        XCTAssertTrue(shown[3].contains(#""url_effective":"ws://h/a\u202eb\u009bc\u001b""#), shown[3])
    }
}
