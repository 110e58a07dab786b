import XCTest
@testable import WSCore

final class ClosePayloadTests: XCTestCase {
    private func parse(_ bytes: [UInt8]) -> ClosePayload.Parsed {
        bytes.withUnsafeBytes { ClosePayload.parse($0) }
    }

    func testParse() {
        XCTAssertEqual(parse([]), .valid(code: nil, reason: ""))
        XCTAssertEqual(parse([0x03, 0xE8]), .valid(code: 1000, reason: ""))
        XCTAssertEqual(parse([0x0F, 0xA0] + Array("héllo".utf8)), .valid(code: 4000, reason: "héllo"))
        XCTAssertEqual(parse([0x03]), .invalid(.protocolError, "close frame with a 1-byte payload"))
        XCTAssertEqual(parse([0x03, 0xED]), .invalid(.protocolError, "invalid close code 1005"))
        XCTAssertEqual(parse([0x03, 0xE8, 0xC3]), .invalid(.invalidPayload, "invalid UTF-8 in close reason"))
    }

    func testEncode() {
        XCTAssertEqual(ClosePayload.encode(code: nil, reason: "x"), [])
        XCTAssertEqual(ClosePayload.encode(code: .normal, reason: "ok"), [0x03, 0xE8, 0x6F, 0x6B])
    }

    func testTruncationKeepsWholeCharacters() {
        let long = String(repeating: "€", count: 50)  // 3 bytes each
        let cut = ClosePayload.truncated(long, to: 123)
        XCTAssertEqual(cut.count, 123)  // 41 whole characters
        XCTAssertEqual(ClosePayload.truncated("ab😀", to: 5), ArraySlice(Array("ab".utf8)))
        XCTAssertEqual(ClosePayload.truncated("ab😀", to: 6), ArraySlice(Array("ab😀".utf8)))
        XCTAssertEqual(ClosePayload.encode(code: .normal, reason: long).count, 125)
        let reason = String(repeating: "x", count: 121) + "😀"  // 125 bytes -> keep 121
        XCTAssertEqual(ClosePayload.truncated(reason, to: 123).count, 121)
    }
}
