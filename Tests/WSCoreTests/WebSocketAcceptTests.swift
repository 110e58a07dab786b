import XCTest
@testable import WSCore

final class WebSocketAcceptTests: XCTestCase {
    func testRFC6455Section1_3Example() {
        XCTAssertEqual(webSocketAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    func testDifferentKeysGiveDifferentAccepts() {
        XCTAssertNotEqual(webSocketAccept(forKey: "AAAAAAAAAAAAAAAAAAAAAA=="),
                          webSocketAccept(forKey: "dGhlIHNhbXBsZSBub25jZQ=="))
        XCTAssertEqual(webSocketAccept(forKey: "x").utf8.count, 28)
    }
}
