import XCTest
@testable import WSCore

/// Sec-WebSocket-Extensions grammar (RFC 6455 §9.1).
final class ExtensionElementTests: XCTestCase {
    private typealias P = ExtensionElement.Parameter

    func testListOfElementsWithParameters() {
        let parsed = ExtensionElement.parseList([
            "permessage-deflate; client_max_window_bits=10 ;server_no_context_takeover, foo",
            "bar;x=\"y\"",
        ])
        XCTAssertEqual(parsed, [
            ExtensionElement(name: "permessage-deflate",
                             parameters: [P(name: "client_max_window_bits", value: "10"),
                                          P(name: "server_no_context_takeover")]),
            ExtensionElement(name: "foo"),
            ExtensionElement(name: "bar", parameters: [P(name: "x", value: "y")]),
        ])
    }

    func testQuotedValueIsUnquotedAndMustBeAToken() {
        XCTAssertEqual(ExtensionElement.parseList(["a; b=\"1\\0\""])?.first?.parameters, [P(name: "b", value: "10")])
        XCTAssertNil(ExtensionElement.parseList(["a; b=\"1 0\""]), "a space is not a token character")
        XCTAssertNil(ExtensionElement.parseList(["a; b=\"\""]))
        XCTAssertNil(ExtensionElement.parseList(["a; b=\"10"]), "no closing quote")
    }

    func testEmptyElementsAreSkipped() {
        XCTAssertEqual(ExtensionElement.parseList([" , a ,, "]), [ExtensionElement(name: "a")])
        XCTAssertEqual(ExtensionElement.parseList([]), [])
    }

    func testMalformedLists() {
        for bad in ["a;", "a; =1", "a; b=", "a b", ";a", "a; b=1 2", "a=1", "a; b==1"] {
            XCTAssertNil(ExtensionElement.parseList([bad]), bad)
        }
    }
}
