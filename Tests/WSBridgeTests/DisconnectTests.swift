import XCTest
@testable import WSBridge
@testable import WSConnect

/// How a rejected handshake reads on stderr: the status once, then what the
/// body says (wspipe(1): EXIT STATUS, 4).
final class DisconnectTests: XCTestCase {
    private func rejected(_ line: String, _ body: String) -> Disconnect {
        .handshakeRejected(status: Int(line.split(separator: " ")[1])!, statusLine: line, body: body)
    }

    func testABodyThatRepeatsTheStatusSaysOnlyWhatFollows() {
        XCTAssertEqual(rejected("HTTP/1.1 503 Service Unavailable",
                                "503 Service Unavailable: 2 programs running, the --max-programs limit; try again later").description,
                       "handshake rejected by the server: HTTP/1.1 503 Service Unavailable: 2 programs running, "
                       + "the --max-programs limit; try again later")
        // Go's http.Error: the status and a newline, nothing more.
        XCTAssertEqual(rejected("HTTP/1.1 429 Too Many Requests", "429 Too Many Requests").description,
                       "handshake rejected by the server: HTTP/1.1 429 Too Many Requests")
        XCTAssertEqual(rejected("HTTP/1.1 404 Not Found", "404 Not Found\nno such path").report.headline,
                       "handshake rejected by the server: HTTP/1.1 404 Not Found: no such path")
    }

    func testAnyOtherBodyIsSaidWhole() {
        XCTAssertEqual(rejected("HTTP/1.1 403 Forbidden", "rejected with 403").description,
                       "handshake rejected by the server: HTTP/1.1 403 Forbidden: rejected with 403")
        // Only a whole status is taken off: "403 Forbiddenness" is the body's own word.
        XCTAssertEqual(Disconnect.withoutStatus("403 Forbiddenness", of: "HTTP/1.1 403 Forbidden"), "403 Forbiddenness")
        XCTAssertEqual(Disconnect.withoutStatus("", of: "HTTP/1.1 403 Forbidden"), "")
        let lines = rejected("HTTP/1.1 401 Unauthorized", "token expired\nlog in again").report
        XCTAssertEqual(lines.headline, "handshake rejected by the server: HTTP/1.1 401 Unauthorized:")
        XCTAssertEqual(lines.details, ["token expired", "log in again"])
    }
}
