import XCTest
import WSCore
@testable import WSBridge
@testable import WSConnect

/// RetryPolicy.verdict for every kind of Disconnect (wspipe(1): RECONNECT AND REPLAY; EXIT STATUS).
final class RetryPolicyTests: XCTestCase {
    private func verdict(_ disconnect: Disconnect) -> RetryVerdict {
        RetryPolicy.verdict(for: disconnect)
    }

    private func rejected(_ status: Int) -> Disconnect {
        .handshakeRejected(status: status, statusLine: "HTTP/1.1 \(status) Whatever")
    }

    func testAuthenticationFailuresAreFatal() {
        XCTAssertEqual(verdict(rejected(401)), .fatal(.handshakeRejected))
        XCTAssertEqual(verdict(rejected(403)), .fatal(.handshakeRejected))
    }

    func testTemporaryHTTPStatusesAreRetried() {
        for status in [408, 429, 500, 502, 503, 504, 599] {
            XCTAssertEqual(verdict(rejected(status)), .retry, "status \(status)")
        }
    }

    func testOtherHTTPStatusesAreFatal() {
        for status in [200, 301, 400, 404, 426, 499, 600] {
            XCTAssertEqual(verdict(rejected(status)), .fatal(.handshakeRejected), "status \(status)")
        }
    }

    func testNormalCloseFinishes() {
        XCTAssertEqual(verdict(.closedByServer(code: 1000, reason: "bye")), .finished)
        XCTAssertEqual(verdict(.closedByServer(code: nil, reason: "")), .finished)
    }

    func testOtherClosesAreRetried() {
        for code: CloseCode in [1001, 1006, 1011, 1012, 4000] {
            XCTAssertEqual(verdict(.closedByServer(code: code, reason: "x")), .retry, "code \(code)")
        }
    }

    func testLostConnectionsAreRetried() {
        XCTAssertEqual(verdict(.dropped("connection reset")), .retry)
        XCTAssertEqual(verdict(.pingTimeout), .retry)
        XCTAssertEqual(verdict(.unreachable("connect to 127.0.0.1:9: Connection refused")), .retry)
    }

    func testTLSFailureIsAConnectFailure() {
        XCTAssertEqual(verdict(.tlsFailed("certificate verify failed")), .fatal(.connectFailed))
    }

    func testProtocolProblemsAreFatal() {
        XCTAssertEqual(verdict(.invalidHandshake("missing Sec-WebSocket-Accept")), .fatal(.protocolViolation))
        XCTAssertEqual(verdict(.protocolViolation(code: 1002, reason: "reserved bits set")),
                       .fatal(.protocolViolation))
        XCTAssertEqual(verdict(.protocolViolation(code: 1009, reason: "message too big")),
                       .fatal(.protocolViolation))
    }
}
