import XCTest
@testable import WSBridge
@testable import WSConnect

final class WebSocketURLTests: XCTestCase {
    func testPlainURLWithDefaults() throws {
        let url = try WebSocketURL(parsing: "ws://example.com")
        XCTAssertFalse(url.secure)
        XCTAssertEqual(url.host, "example.com")
        XCTAssertEqual(url.port, 80)
        XCTAssertEqual(url.target, "/")
        XCTAssertEqual(url.hostHeader, "example.com")
    }

    func testSecurePortPathQueryAndFragment() throws {
        let url = try WebSocketURL(parsing: "wss://api.example.com:8443/chat/room?id=7#frag")
        XCTAssertTrue(url.secure)
        XCTAssertEqual(url.port, 8443)
        XCTAssertEqual(url.target, "/chat/room?id=7")
        XCTAssertEqual(url.hostHeader, "api.example.com:8443")
        XCTAssertEqual(url.display, "wss://api.example.com:8443/chat/room?id=7")
    }

    func testQueryWithoutPathGetsSlash() throws {
        XCTAssertEqual(try WebSocketURL(parsing: "ws://h?x=1").target, "/?x=1")
    }

    func testIPv6LiteralKeepsBracketsOnlyInHostHeader() throws {
        let url = try WebSocketURL(parsing: "ws://[::1]:9001/x")
        XCTAssertEqual(url.host, "::1")
        XCTAssertEqual(url.port, 9001)
        XCTAssertEqual(url.hostHeader, "[::1]:9001")
    }

    func testUserInfoIsSeparated() throws {
        let url = try WebSocketURL(parsing: "ws://bob:secret@h:1/")
        XCTAssertEqual(url.userInfo, "bob:secret")
        XCTAssertEqual(url.host, "h")
    }

    func testRejectsOtherSchemesAndBadPorts() {
        XCTAssertThrowsError(try WebSocketURL(parsing: "http://x")) { XCTAssertEqual($0 as? WebSocketURL.ParseError, .scheme) }
        XCTAssertThrowsError(try WebSocketURL(parsing: "ws://x:99999")) { XCTAssertEqual($0 as? WebSocketURL.ParseError, .port("99999")) }
        XCTAssertThrowsError(try WebSocketURL(parsing: "ws://:80/")) { XCTAssertEqual($0 as? WebSocketURL.ParseError, .host) }
    }
}

final class ListenAddressTests: XCTestCase {
    func testForms() {
        XCTAssertEqual(ListenAddress(parsing: "8080"), ListenAddress(host: "127.0.0.1", port: 8080, path: nil))
        XCTAssertEqual(ListenAddress(parsing: ":8080"), ListenAddress(host: "127.0.0.1", port: 8080, path: nil))
        XCTAssertEqual(ListenAddress(parsing: "0.0.0.0:8080"), ListenAddress(host: "0.0.0.0", port: 8080, path: nil))
        XCTAssertEqual(ListenAddress(parsing: "[::]:8080/x")?.url(secure: true), "wss://[::]:8080/x")
        XCTAssertEqual(ListenAddress(parsing: "8080")?.url(secure: false), "ws://127.0.0.1:8080/")
        XCTAssertEqual(ListenAddress(parsing: "127.0.0.1:0/ws"), ListenAddress(host: "127.0.0.1", port: 0, path: "/ws"))
        XCTAssertEqual(ListenAddress(parsing: "[::1]:9000/a/b"), ListenAddress(host: "::1", port: 9000, path: "/a/b"))
        XCTAssertEqual(ListenAddress(parsing: "localhost:1"), ListenAddress(host: "localhost", port: 1, path: nil))
    }

    func testRejectsGarbage() {
        XCTAssertNil(ListenAddress(parsing: "host"))
        XCTAssertNil(ListenAddress(parsing: "h:70000"))
        XCTAssertNil(ListenAddress(parsing: "[::1]9000"))
    }
}
