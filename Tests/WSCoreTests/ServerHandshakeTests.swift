import XCTest
@testable import WSCore

final class ServerHandshakeTests: XCTestCase {
    private let validRequest = "GET /chat?room=1 HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        + "Origin: http://example.com\r\nSec-WebSocket-Protocol: chat, superchat\r\nSec-WebSocket-Version: 13\r\n\r\n"

    private func receive(_ text: String) -> ServerHandshakeResult {
        var handshake = ServerHandshake()
        return Array(text.utf8).withUnsafeBytes { handshake.receive($0) }
    }

    private func status(_ result: ServerHandshakeResult) -> Int? {
        if case .invalid(let status, _) = result { return status }
        return nil
    }

    func testParsesValidRequest() {
        guard case .request(let request, let leftover) = receive(validRequest + "\u{1}") else {
            return XCTFail("valid request rejected")
        }
        XCTAssertEqual(request.method, "GET")
        XCTAssertEqual(request.target, "/chat?room=1")
        XCTAssertEqual(request.path, "/chat")
        XCTAssertEqual(request.key, "dGhlIHNhbXBsZSBub25jZQ==")
        XCTAssertEqual(request.protocols, ["chat", "superchat"])
        XCTAssertEqual(request.header("origin"), "http://example.com")
        XCTAssertNil(request.header("Cookie"))
        XCTAssertEqual(leftover, [1])
    }

    func testByteAtATime() {
        var handshake = ServerHandshake()
        var last: ServerHandshakeResult = .needMoreData
        for byte in Array(validRequest.utf8) {
            if case .request = last { return XCTFail("completed early") }
            last = [byte].withUnsafeBytes { handshake.receive($0) }
        }
        guard case .request = last else { return XCTFail("did not complete") }
    }

    func testWrongMethodIs405() {
        XCTAssertEqual(status(receive(validRequest.replacingFirst("GET", with: "POST"))), 405)
    }

    func testHTTP10Is400() {
        XCTAssertEqual(status(receive(validRequest.replacingFirst("HTTP/1.1", with: "HTTP/1.0"))), 400)
    }

    func testMissingUpgradeOrConnectionIs400() {
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Upgrade: websocket", with: "Upgrade: h2c"))), 400)
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Connection: Upgrade", with: "Connection: close"))), 400)
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Host: server.example.com\r\n", with: ""))), 400)
    }

    func testAcceptResponseWithExtensions() {
        let text = String(decoding: ServerHandshake.acceptResponse(key: "dGhlIHNhbXBsZSBub25jZQ==", protocol: nil,
                                                                   extensions: "permessage-deflate"), as: UTF8.self)
        XCTAssertTrue(text.hasSuffix("\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n"))
        guard case .request(let request, _) = receive(validRequest.replacing(
            "Sec-WebSocket-Version", with: "Sec-WebSocket-Extensions: a\r\nsec-websocket-extensions: b\r\nSec-WebSocket-Version"))
        else { return XCTFail("rejected") }
        XCTAssertEqual(request.headerValues("Sec-WebSocket-Extensions"), ["a", "b"])
    }

    func testDuplicateHostIs400() {
        let twice = validRequest.replacing("Host: server.example.com\r\n",
                                           with: "Host: a.example\r\nHost: b.example\r\n")
        XCTAssertEqual(status(receive(twice)), 400)
        let missing = validRequest.replacing("Host: server.example.com\r\n", with: "")
        XCTAssertEqual(status(receive(missing)), 400)
    }

    func testWrongVersionIs426() {
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Version: 13", with: "Version: 8"))), 426)
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Sec-WebSocket-Version: 13\r\n", with: ""))), 426)
    }

    func testBadKeyIs400() {
        XCTAssertEqual(status(receive(validRequest.replacingFirst("dGhlIHNhbXBsZSBub25jZQ==", with: "c2hvcnQ="))), 400)
        XCTAssertEqual(status(receive(validRequest.replacingFirst("dGhlIHNhbXBsZSBub25jZQ==", with: "!!!"))), 400)
        XCTAssertEqual(status(receive(validRequest.replacingFirst("Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n",
                                                                  with: ""))), 400)
    }

    func testOversizedRequest() {
        let big = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 17_000) + "\r\n\r\n"
        XCTAssertEqual(status(receive(big)), 431)
    }

    func testAcceptResponse() {
        let text = String(decoding: ServerHandshake.acceptResponse(key: "dGhlIHNhbXBsZSBub25jZQ==", protocol: "chat"),
                          as: UTF8.self)
        XCTAssertEqual(text, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: chat\r\n\r\n")
    }

    func testAcceptResponseSatisfiesClientHandshake() {
        var entropy = EntropyPool()
        var client = ClientHandshake(host: "h", path: "/", headers: [], protocols: ["p"], origin: nil, userAgent: nil,
                                     entropy: &entropy)
        let response = ServerHandshake.acceptResponse(key: client.key, protocol: "p")
        guard case .accepted(let proto, _, _, _) = response.withUnsafeBytes({ client.receive($0) }) else {
            return XCTFail("client rejected our own server's response")
        }
        XCTAssertEqual(proto, "p")
    }

    func testErrorResponse() {
        let text = String(decoding: ServerHandshake.errorResponse(status: 404, reason: "Not Found", body: "no\n"),
                          as: UTF8.self)
        XCTAssertEqual(text, "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n"
                       + "Connection: close\r\n\r\nno\n")
        let upgrade = String(decoding: ServerHandshake.errorResponse(status: 426, reason: "Upgrade Required", body: ""),
                             as: UTF8.self)
        XCTAssertTrue(upgrade.contains("\r\nSec-WebSocket-Version: 13\r\n"))
    }
}

extension String {
    /// Replaces the first occurrence of `target` (tests only; no Foundation).
    func replacingFirst(_ target: String, with replacement: String) -> String {
        let chars: [Character] = Array(self)
        let needle: [Character] = Array(target)
        guard needle.count <= chars.count else { return self }
        for start in 0...(chars.count - needle.count) where Array(chars[start..<start + needle.count]) == needle {
            let head = String(chars[..<start])
            let tail = String(chars[(start + needle.count)...])
            return head + replacement + tail
        }
        return self
    }
}
