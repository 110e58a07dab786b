import XCTest
@testable import WSCore

final class HTTPHeaderParserTests: XCTestCase {
    private func receive(_ parser: inout HTTPHeaderParser, _ text: String) -> HTTPHeaderParser.Result {
        Array(text.utf8).withUnsafeBytes { parser.receive($0) }
    }

    func testParsesHeadAndKeepsLeftover() {
        var parser = HTTPHeaderParser()
        guard case .complete(let head, let leftover) = receive(&parser, "HTTP/1.1 200 OK\r\nA:  1 \r\nb-c:\t2\r\n\r\nXY")
        else { return XCTFail("expected a complete head") }
        XCTAssertEqual(head.startLine, "HTTP/1.1 200 OK")
        XCTAssertEqual(head.headers.map(\.name), ["A", "b-c"])
        XCTAssertEqual(head.headers.map(\.value), ["1", "2"])
        XCTAssertEqual(head.value("B-C"), "2")
        XCTAssertEqual(leftover, Array("XY".utf8))
    }

    func testTerminatorSplitAcrossCalls() {
        var parser = HTTPHeaderParser()
        for piece in ["HTTP/1.1 200 OK\r\nA: 1\r", "\n", "\r"] {
            guard case .needMoreData = receive(&parser, piece) else { return XCTFail("too early at '\(piece)'") }
        }
        guard case .complete(let head, let leftover) = receive(&parser, "\n") else { return XCTFail("not complete") }
        XCTAssertEqual(head.value("a"), "1")
        XCTAssertEqual(leftover, [])
    }

    func testBareLFLineEnds() {
        var parser = HTTPHeaderParser()
        guard case .complete(let head, _) = receive(&parser, "HTTP/1.1 200 OK\nA: 1\n\n") else {
            return XCTFail("LF-only head not accepted")
        }
        XCTAssertEqual(head.value("A"), "1")
    }

    func testListValuesAcrossLines() {
        var parser = HTTPHeaderParser()
        guard case .complete(let head, _) = receive(&parser, "X 1\r\nC: a, b\r\nc: ,c\r\n\r\n") else {
            return XCTFail()
        }
        XCTAssertEqual(head.listValues("C"), ["a", "b", "c"])
        XCTAssertEqual(head.values("c").count, 2)
    }

    func testMalformedFieldsRejected() {
        for bad in ["HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
                    "HTTP/1.1 200 OK\r\n: empty\r\n\r\n", "HTTP/1.1 200 OK\r\nA: 1\r\n folded\r\n\r\n"] {
            var parser = HTTPHeaderParser()
            guard case .malformed = receive(&parser, bad) else { return XCTFail("accepted: \(bad)") }
        }
    }

    /// RFC 9110 §5.5: a CR or NUL inside a value (or the request line) is
    /// refused, never passed on (a NUL would cut a CGI variable short).
    func testCROrNULInsideALineRejected() {
        for bad in ["GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", "GET / HTTP/1.1\r\nX-Nul: a\u{0}b\r\n\r\n",
                    "GET / HTTP/1.1\r\nX-A: ab\r\r\n\r\n", "GET /\u{0} HTTP/1.1\r\nHost: h\r\n\r\n"] {
            var parser = HTTPHeaderParser()
            guard case .malformed(let reason) = receive(&parser, bad) else { return XCTFail("accepted: \(bad.debugDescription)") }
            XCTAssertTrue(reason.contains("RFC 9110"), reason)
        }
        var parser = HTTPHeaderParser()
        guard case .complete(let head, _) = receive(&parser, "GET / HTTP/1.1\r\nX-Tab: a\tb\r\n\r\n") else {
            return XCTFail("a tab is allowed in a value")
        }
        XCTAssertEqual(head.value("X-Tab"), "a\tb")
    }

    func testSixteenKiBLimit() {
        var parser = HTTPHeaderParser()
        let filler = "X-Filler: " + String(repeating: "a", count: 1000) + "\r\n"
        var result = receive(&parser, "HTTP/1.1 200 OK\r\n")
        for _ in 0..<17 where { if case .needMoreData = result { return true }; return false }() {
            result = receive(&parser, filler)
        }
        guard case .tooLarge = result else { return XCTFail("expected tooLarge, got \(result)") }

        // Just under the limit is fine.
        var small = HTTPHeaderParser()
        let head = "HTTP/1.1 200 OK\r\n" + String(repeating: filler, count: 15) + "\r\n"
        XCTAssertLessThan(head.utf8.count, 16 * 1024)
        guard case .complete = receive(&small, head) else { return XCTFail("head under 16 KiB rejected") }
    }

    /// A request (wspipe's server): a bare LF is refused, so that a header
    /// cannot hide behind another for a proxy that ends lines only at CRLF.
    func testARequestNeedsCRLFLineEnds() {
        for bad in ["GET / HTTP/1.1\r\nX-A: a\nX-Forwarded-For: 6.6.6.6\r\n\r\n", "GET / HTTP/1.1\nHost: h\n\n",
                    "GET / HTTP/1.1\r\nHost: h\r\n\n"] {
            var parser = HTTPHeaderParser(requiresCRLF: true)
            guard case .malformed(let reason) = receive(&parser, bad) else { return XCTFail("accepted: \(bad.debugDescription)") }
            XCTAssertTrue(reason.contains("LF without CR"), reason)
        }
        var parser = HTTPHeaderParser(requiresCRLF: true)
        guard case .complete(let head, let leftover) = receive(&parser, "GET / HTTP/1.1\r\nHost: h\r\n\r\n\nX") else {
            return XCTFail("a CRLF head is accepted")
        }
        XCTAssertEqual(head.value("Host"), "h")
        XCTAssertEqual(leftover, Array("\nX".utf8), "what follows the head is not looked at")
    }
}
