import XCTest
@testable import WSCore

final class ClientHandshakeTests: XCTestCase {
    /// With this pool the key is base64 of 16 x 0x01.
    private func makeHandshake(protocols: [String] = [], headers: [(name: String, value: String)] = [])
        -> ClientHandshake {
        var entropy = EntropyPool(fixed: [1])
        return ClientHandshake(host: "example.com:8080", path: "/chat?x=1", headers: headers, protocols: protocols,
                               origin: "http://example.com", userAgent: "wspipe/0.1.0", entropy: &entropy)
    }

    private func response(_ handshake: ClientHandshake, status: String = "101 Switching Protocols",
                          extra: String = "", accept: String? = nil) -> String {
        "HTTP/1.1 \(status)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(accept ?? webSocketAccept(forKey: handshake.key))\r\n" + extra + "\r\n"
    }

    private func receive(_ handshake: inout ClientHandshake, _ text: String) -> ClientHandshakeResult {
        Array(text.utf8).withUnsafeBytes { handshake.receive($0) }
    }

    private func invalidReason(_ result: ClientHandshakeResult) -> String? {
        if case .invalid(let reason) = result { return reason }
        return nil
    }

    func testRequestBytes() {
        let handshake = makeHandshake(protocols: ["chat", "superchat"], headers: [("Authorization", "Bearer t"), ("X-A", "1")])
        XCTAssertEqual(handshake.key, "AQEBAQEBAQEBAQEBAQEBAQ==")
        let expected = "GET /chat?x=1 HTTP/1.1\r\nHost: example.com:8080\r\nUpgrade: websocket\r\n"
            + "Connection: Upgrade\r\nSec-WebSocket-Key: AQEBAQEBAQEBAQEBAQEBAQ==\r\nSec-WebSocket-Version: 13\r\n"
            + "Origin: http://example.com\r\nUser-Agent: wspipe/0.1.0\r\nSec-WebSocket-Protocol: chat, superchat\r\n"
            + "Authorization: Bearer t\r\nX-A: 1\r\n\r\n"
        XCTAssertEqual(String(decoding: handshake.requestBytes, as: UTF8.self), expected)
    }

    /// curl's rule: a Host, Origin or User-Agent of the user's replaces
    /// ours (one of each is sent, the last given), it is not sent twice.
    func testUserHostOriginAndUserAgentReplaceOurs() {
        let handshake = makeHandshake(headers: [("host", "api.example.com"), ("X-A", "1"), ("User-Agent", "a"),
                                                ("user-agent", "b"), ("Origin", "https://o.example")])
        let text = String(decoding: handshake.requestBytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("GET /chat?x=1 HTTP/1.1\r\nHost: api.example.com\r\n"), text)
        for name in ["host:", "user-agent:", "origin:"] {
            let lines = text.lowercased().split(separator: "\r\n" as Character)
            XCTAssertEqual(lines.filter { $0.hasPrefix(name) }.count, 1, "one \(name) in \(text)")
        }
        XCTAssertTrue(text.contains("\r\nUser-Agent: b\r\n"), text)
        XCTAssertTrue(text.contains("\r\nOrigin: https://o.example\r\n"), text)
        XCTAssertTrue(text.hasSuffix("\r\nX-A: 1\r\n\r\n"), text)
    }

    func testReservedHeaders() {
        for name in ["sec-websocket-key", "Sec-WebSocket-Version", "SEC-WEBSOCKET-ACCEPT", "Sec-WebSocket-Extensions",
                     "upgrade", "Connection", "content-length", "Transfer-Encoding"] {
            XCTAssertNotNil(ClientHandshake.reservedHeader(name), name)
        }
        for name in ["Host", "Authorization", "Sec-WebSocket-Protocol", "Cookie", "Upgrade-Insecure-Requests"] {
            XCTAssertNil(ClientHandshake.reservedHeader(name), name)
        }
    }

    func testMinimalRequestOmitsOptionalHeaders() {
        var entropy = EntropyPool()
        let handshake = ClientHandshake(host: "h", path: "", headers: [], protocols: [], origin: nil, userAgent: nil,
                                        entropy: &entropy)
        let text = String(decoding: handshake.requestBytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("GET / HTTP/1.1\r\nHost: h\r\n"))
        XCTAssertFalse(text.contains("Origin"))
        XCTAssertFalse(text.contains("User-Agent"))
        XCTAssertFalse(text.contains("Sec-WebSocket-Protocol"))
        XCTAssertEqual(Base64.decode(handshake.key)?.count, 16)
    }

    func testHeaderValuesCannotInjectLines() {
        let handshake = makeHandshake(headers: [("X-A", "1\r\nEvil: yes")])
        XCTAssertFalse(String(decoding: handshake.requestBytes, as: UTF8.self).contains("\r\nEvil"))
    }

    func testAcceptedWithLeftoverFrames() {
        var handshake = makeHandshake()
        let result = receive(&handshake, response(handshake) + "\u{81}\u{02}hi")
        guard case .accepted(let proto, let extensions, let headers, let leftover) = result else {
            return XCTFail("expected accepted, got \(result)")
        }
        XCTAssertNil(proto)
        XCTAssertNil(extensions)
        XCTAssertEqual(headers.count, 3)
        XCTAssertEqual(leftover, [0xC2, 0x81, 0x02, 0x68, 0x69])  // "\u{81}" is 2 bytes in UTF-8
    }

    func testAcceptedByteAtATime() {
        var handshake = makeHandshake()
        let bytes = Array(response(handshake).utf8) + [0x81, 0x00]
        var results: [ClientHandshakeResult] = []
        for byte in bytes {
            results.append([byte].withUnsafeBytes { handshake.receive($0) })
        }
        let finals = results.enumerated().filter { if case .needMoreData = $0.element { return false }; return true }
        XCTAssertEqual(finals.first?.offset, bytes.count - 3, "accepted exactly when the empty line ends")
        guard case .accepted(_, _, _, let leftover) = finals.first?.element else { return XCTFail("not accepted") }
        XCTAssertEqual(leftover, [])
    }

    func testHeaderNamesAndTokensAreCaseInsensitive() {
        var handshake = makeHandshake()
        let text = "HTTP/1.1 101 Switching Protocols\r\nupgrade: WebSocket\r\nCONNECTION: keep-alive, UPGRADE\r\n"
            + "sec-websocket-accept: \(webSocketAccept(forKey: handshake.key))\r\n\r\n"
        guard case .accepted = receive(&handshake, text) else { return XCTFail("case-insensitive names rejected") }
    }

    func testRejectedWith401StatusLine() {
        var handshake = makeHandshake()
        let result = receive(&handshake, "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\nContent-Length: 0\r\n\r\n")
        guard case .rejected(let status, let line, let headers) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(status, 401)
        XCTAssertEqual(line, "HTTP/1.1 401 Unauthorized")
        XCTAssertEqual(headers.first?.name, "WWW-Authenticate")
    }

    func testMissingAccept() {
        var handshake = makeHandshake()
        let text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"
        XCTAssertEqual(invalidReason(receive(&handshake, text)), "missing Sec-WebSocket-Accept header")
    }

    func testDuplicateAccept() {
        var handshake = makeHandshake()
        let accept = webSocketAccept(forKey: handshake.key)
        let text = response(handshake, extra: "Sec-WebSocket-Accept: \(accept)\r\n")
        XCTAssertEqual(invalidReason(receive(&handshake, text)), "duplicate Sec-WebSocket-Accept header")
    }

    func testWrongAccept() {
        var handshake = makeHandshake()
        let text = response(handshake, accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        XCTAssertEqual(invalidReason(receive(&handshake, text)), "wrong Sec-WebSocket-Accept value")
    }

    func testBadUpgradeOrConnection() {
        var a = makeHandshake()
        let noUpgrade = "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(webSocketAccept(forKey: a.key))\r\n\r\n"
        XCTAssertEqual(invalidReason(receive(&a, noUpgrade)), "missing Upgrade header")
        var b = makeHandshake()
        let badConnection = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: keep-alive\r\n"
            + "Sec-WebSocket-Accept: \(webSocketAccept(forKey: b.key))\r\n\r\n"
        XCTAssertEqual(invalidReason(receive(&b, badConnection)), "Connection header lacks the Upgrade token")
    }

    func testOfferedProtocolAccepted() {
        var handshake = makeHandshake(protocols: ["chat", "superchat"])
        let result = receive(&handshake, response(handshake, extra: "Sec-WebSocket-Protocol: superchat\r\n"))
        guard case .accepted(let proto, _, _, _) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(proto, "superchat")
    }

    func testUnrequestedProtocol() {
        var handshake = makeHandshake(protocols: ["chat"])
        let result = receive(&handshake, response(handshake, extra: "Sec-WebSocket-Protocol: other\r\n"))
        XCTAssertEqual(invalidReason(result), "server selected subprotocol 'other' that was not offered")
        var none = makeHandshake()
        XCTAssertNotNil(invalidReason(receive(&none, response(none, extra: "Sec-WebSocket-Protocol: chat\r\n"))))
    }

    func testUnrequestedExtension() {
        var handshake = makeHandshake()
        let result = receive(&handshake, response(handshake, extra: "Sec-WebSocket-Extensions: permessage-deflate\r\n"))
        XCTAssertEqual(invalidReason(result), "server selected extension 'permessage-deflate' that was not requested")
    }

    func testExtensionOfferedThroughExtraHeaders() {
        var handshake = makeHandshake(headers: [("Sec-WebSocket-Extensions", "permessage-deflate; client_max_window_bits")])
        let result = receive(&handshake, response(handshake,
                                                  extra: "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover\r\n"))
        guard case .accepted(_, let extensions, _, _) = result else { return XCTFail("got \(result)") }
        XCTAssertEqual(extensions, "permessage-deflate; server_no_context_takeover")
    }

    private func compressingHandshake() -> ClientHandshake {
        var entropy = EntropyPool(fixed: [1])
        return ClientHandshake(host: "h", path: "/", headers: [], protocols: [], origin: nil, userAgent: nil,
                               offersCompression: true, entropy: &entropy)
    }

    func testCompressionOfferAndAcceptedParameters() {
        var handshake = compressingHandshake()
        XCTAssertTrue(String(decoding: handshake.requestBytes, as: UTF8.self)
            .contains("\r\nSec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"))
        let extensions = "Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_max_window_bits=10\r\n"
        guard case .accepted = receive(&handshake, response(handshake, extra: extensions)) else {
            return XCTFail("not accepted")
        }
        XCTAssertEqual(handshake.compression,
                       DeflateParameters(serverNoContextTakeover: true, clientMaxWindowBits: 10))
    }

    func testCompressionDeclinedByServer() {
        var handshake = compressingHandshake()
        guard case .accepted = receive(&handshake, response(handshake)) else { return XCTFail("not accepted") }
        XCTAssertNil(handshake.compression)
    }

    func testInvalidCompressionResponseFailsTheHandshake() {
        for value in ["permessage-deflate; server_max_window_bits=16", "permessage-deflate; mystery",
                      "permessage-deflate; client_no_context_takeover; client_no_context_takeover",
                      "permessage-deflate; x=\"open"] {
            var handshake = compressingHandshake()
            let result = receive(&handshake, response(handshake, extra: "Sec-WebSocket-Extensions: \(value)\r\n"))
            XCTAssertNotNil(invalidReason(result), value)
            XCTAssertNil(handshake.compression)
        }
    }

    func testOversizedResponse() {
        var handshake = makeHandshake()
        let text = "HTTP/1.1 101 Switching Protocols\r\nX-Big: " + String(repeating: "a", count: 17_000) + "\r\n\r\n"
        XCTAssertEqual(invalidReason(receive(&handshake, text)), "response header too large")
    }

    func testMalformedStatusLine() {
        var handshake = makeHandshake()
        XCTAssertEqual(invalidReason(receive(&handshake, "SSH-2.0-OpenSSH\r\n\r\n")), "malformed status line")
    }

    func testFinalResultIsSticky() {
        var handshake = makeHandshake()
        _ = receive(&handshake, "HTTP/1.1 404 Not Found\r\n\r\n")
        guard case .rejected(let status, _, _) = receive(&handshake, "more") else { return XCTFail() }
        XCTAssertEqual(status, 404)
    }
}
