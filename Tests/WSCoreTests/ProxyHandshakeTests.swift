import XCTest
@testable import WSCore

/// HTTP CONNECT (RFC 9110 §9.3.6) and SOCKS5 (RFC 1928, RFC 1929) client
/// handshakes: golden request bytes, replies fed whole and byte by byte.
final class HTTPConnectHandshakeTests: XCTestCase {
    func testRequestWithoutCredentials() {
        let h = HTTPConnectHandshake(host: "example.com", port: 443)
        XCTAssertEqual(String(decoding: h.request, as: UTF8.self),
                       "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
    }

    func testIPv6TargetInBrackets() {
        let h = HTTPConnectHandshake(host: "::1", port: 8080)
        XCTAssertTrue(String(decoding: h.request, as: UTF8.self).hasPrefix("CONNECT [::1]:8080 HTTP/1.1\r\nHost: [::1]:8080\r\n"))
    }

    /// RFC 7617 §2: base64 of "user:password" ("Aladdin:open sesame" is the RFC's own example).
    func testBasicProxyAuthorization() {
        let h = HTTPConnectHandshake(host: "h", port: 1, credentials: ("Aladdin", "open sesame"))
        XCTAssertEqual(String(decoding: h.request, as: UTF8.self),
                       "CONNECT h:1 HTTP/1.1\r\nHost: h:1\r\nProxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\n\r\n")
    }

    func testAny2xxOpensTheTunnel() {
        for line in ["HTTP/1.1 200 Connection established", "HTTP/1.0 200 OK", "HTTP/1.1 204 No Content"] {
            var h = HTTPConnectHandshake(host: "h", port: 1)
            XCTAssertEqual(feed(&h, line + "\r\nProxy-Agent: x\r\n\r\n"), .established(leftover: []), line)
        }
    }

    func testByteByByte() {
        var h = HTTPConnectHandshake(host: "h", port: 1)
        let reply = Array("HTTP/1.1 200 Connection established\r\n\r\n".utf8)
        for byte in reply.dropLast() {
            XCTAssertEqual([byte].withUnsafeBytes { h.receive($0) }, .needMoreData)
        }
        XCTAssertEqual([reply.last!].withUnsafeBytes { h.receive($0) }, .established(leftover: []))
    }

    func testBytesAfterTheHeadAreHandedBack() {
        var h = HTTPConnectHandshake(host: "h", port: 1)
        XCTAssertEqual(feed(&h, "HTTP/1.1 200 OK\r\n\r\nxy"), .established(leftover: Array("xy".utf8)))
    }

    func test407KeepsTheStatusLine() {
        var h = HTTPConnectHandshake(host: "h", port: 1)
        let outcome = feed(&h, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"
                               + "Content-Length: 5\r\n\r\nnope!")
        XCTAssertEqual(outcome, .refused(status: 407, statusLine: "HTTP/1.1 407 Proxy Authentication Required"))
        XCTAssertEqual(feed(&h, "more"), outcome, "decided once")
    }

    /// The core keeps the proxy's words; what shows them escapes them
    /// (TerminalEscaping, checked in the bridge's tests and test_terminal_escaping.py).
    func testTheStatusLineIsKeptAsSent() {
        var h = HTTPConnectHandshake(host: "h", port: 1)
        XCTAssertEqual(feed(&h, "HTTP/1.1 403 \u{1B}[31mNo\u{7F}\tway\r\n\r\n"),
                       .refused(status: 403, statusLine: "HTTP/1.1 403 \u{1B}[31mNo\u{7F}\tway"))
    }

    func testGarbageIsInvalid() {
        var h = HTTPConnectHandshake(host: "h", port: 1)
        guard case .invalid(let reason) = feed(&h, "SSH-2.0-OpenSSH\r\n\r\n") else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("malformed proxy status line"), reason)
    }

    private func feed(_ h: inout HTTPConnectHandshake, _ text: String) -> HTTPConnectHandshake.Outcome {
        Array(text.utf8).withUnsafeBytes { h.receive($0) }
    }
}

final class SOCKS5HandshakeTests: XCTestCase {
    /// RFC 1928 §3: VER 5, NMETHODS, METHODS.
    func testGreetingOffersWhatWeHave() throws {
        XCTAssertEqual(try SOCKS5Handshake(target: .domain("a"), port: 1).greeting, [5, 1, 0])
        XCTAssertEqual(try SOCKS5Handshake(target: .domain("a"), port: 1, credentials: ("u", "p")).greeting, [5, 2, 0, 2])
    }

    /// §4: VER CMD RSV ATYP DST.ADDR DST.PORT, for each address type.
    func testConnectRequests() throws {
        XCTAssertEqual(try request(.ipv4([127, 0, 0, 1]), port: 8080), [5, 1, 0, 1, 127, 0, 0, 1, 0x1F, 0x90])
        XCTAssertEqual(try request(.ipv6(Array(repeating: 0, count: 15) + [1]), port: 443),
                       [5, 1, 0, 4] + Array(repeating: 0, count: 15) + [1, 0x01, 0xBB])
        XCTAssertEqual(try request(.domain("example.com"), port: 80),
                       [5, 1, 0, 3, 11] + Array("example.com".utf8) + [0, 80])
    }

    func testNoAuthenticationThenSuccess() throws {
        var h = try SOCKS5Handshake(target: .domain("example.com"), port: 80)
        XCTAssertEqual(feed(&h, [5, 0]), .send([5, 1, 0, 3, 11] + Array("example.com".utf8) + [0, 80]))
        XCTAssertEqual(feed(&h, [5, 0, 0, 1, 10, 0, 0, 1, 0x30, 0x39]), .established(leftover: []))
    }

    /// RFC 1929 §2: VER 1, ULEN, UNAME, PLEN, PASSWD; STATUS 0 is success.
    func testUsernamePassword() throws {
        var h = try SOCKS5Handshake(target: .ipv4([1, 2, 3, 4]), port: 1, credentials: ("alice", "s3cret"))
        XCTAssertEqual(feed(&h, [5, 2]), .send([1, 5] + Array("alice".utf8) + [6] + Array("s3cret".utf8)))
        XCTAssertEqual(feed(&h, [1, 0]), .send([5, 1, 0, 1, 1, 2, 3, 4, 0, 1]))
        XCTAssertEqual(feed(&h, [5, 0, 0, 4] + Array(repeating: 0, count: 16) + [0, 0]), .established(leftover: []))
    }

    func testRejectedCredentials() throws {
        var h = try SOCKS5Handshake(target: .domain("x"), port: 1, credentials: ("alice", "bad"))
        _ = feed(&h, [5, 2])
        XCTAssertEqual(feed(&h, [1, 1]), .failed(.authenticationFailed))
        XCTAssertEqual(SOCKS5Handshake.Failure.authenticationFailed.description, "user name or password rejected")
    }

    /// RFC 1929 §2: the reply's VER is 1; a reply of another version (a
    /// SOCKS5 reply, say) is not an answer to our credentials, even with STATUS 0.
    func testAuthenticationReplyOfAnotherVersionFails() throws {
        for version: UInt8 in [0, 5, 2] {
            var h = try SOCKS5Handshake(target: .domain("x"), port: 1, credentials: ("alice", "s3cret"))
            _ = feed(&h, [5, 2])
            XCTAssertEqual(feed(&h, [version, 0]), .failed(.invalid("malformed authentication reply (version \(version))")))
        }
    }

    func testNoAcceptableMethod() throws {
        var h = try SOCKS5Handshake(target: .domain("x"), port: 1)
        XCTAssertEqual(feed(&h, [5, 0xFF]), .failed(.noAcceptableMethod(offeredCredentials: false)))
        XCTAssertTrue("\(SOCKS5Handshake.Failure.noAcceptableMethod(offeredCredentials: false))".contains("user name and password"))
    }

    /// §6: each reply code's meaning is what the user reads.
    func testReplyCodesAreNamed() throws {
        let names: [UInt8: String] = [1: "general SOCKS server failure", 2: "connection not allowed by ruleset",
                                      3: "network unreachable", 4: "host unreachable", 5: "connection refused",
                                      6: "TTL expired", 7: "command not supported", 8: "address type not supported",
                                      9: "unassigned reply code 9"]
        for (code, name) in names {
            var h = try SOCKS5Handshake(target: .domain("x"), port: 1)
            _ = feed(&h, [5, 0])
            XCTAssertEqual(feed(&h, [5, code, 0, 1, 0, 0, 0, 0, 0, 0]), .failed(.refused(code: code)))
            XCTAssertEqual("\(SOCKS5Handshake.Failure.refused(code: code))", name)
        }
    }

    /// A reply with a domain BND.ADDR, one byte at a time.
    func testReplyByteByByte() throws {
        var h = try SOCKS5Handshake(target: .domain("x"), port: 1)
        _ = feed(&h, [5, 0])
        let reply: [UInt8] = [5, 0, 0, 3, 4] + Array("host".utf8) + [0, 80]
        for byte in reply.dropLast() { XCTAssertEqual(feed(&h, [byte]), .needMoreData) }
        XCTAssertEqual(feed(&h, [reply.last!]), .established(leftover: []))
    }

    func testNotASOCKS5Server() throws {
        var h = try SOCKS5Handshake(target: .domain("x"), port: 1)
        guard case .failed(.invalid(let reason)) = feed(&h, Array("HTTP/1.1 400".utf8)) else { return XCTFail() }
        XCTAssertTrue(reason.contains("not a SOCKS5 server"), reason)
    }

    func testLimitsOfOneLengthOctet() {
        XCTAssertThrowsError(try SOCKS5Handshake(target: .domain(String(repeating: "a", count: 256)), port: 1))
        XCTAssertThrowsError(try SOCKS5Handshake(target: .domain("a"), port: 1,
                                                 credentials: (String(repeating: "u", count: 256), "p")))
        XCTAssertNoThrow(try SOCKS5Handshake(target: .domain(String(repeating: "a", count: 255)), port: 1))
    }

    private func request(_ target: SOCKS5Handshake.Target, port: UInt16) throws -> [UInt8] {
        var h = try SOCKS5Handshake(target: target, port: port)
        guard case .send(let bytes) = feed(&h, [5, 0]) else { XCTFail("no request"); return [] }
        return bytes
    }

    private func feed(_ h: inout SOCKS5Handshake, _ bytes: [UInt8]) -> SOCKS5Handshake.Outcome {
        bytes.withUnsafeBytes { h.receive($0) }
    }
}
