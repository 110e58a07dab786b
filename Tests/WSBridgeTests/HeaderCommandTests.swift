import XCTest
import WSTransport
@testable import WSBridge
@testable import WSConnect

/// --header-command: its output parsed as headers, and the command run on a
/// real loop without blocking it.
final class HeaderCommandTests: XCTestCase {
    private func parse(_ text: String) -> Result<[String], HeaderCommand.Failure> {
        HeaderCommand.parse(Array(text.utf8)).map { $0.map { "\($0.name)=\($0.value)" } }
    }

    func testLinesAreHeaders() {
        XCTAssertEqual(try parse("Authorization: Bearer abc\r\n\n# comment\n  \nX-Id:7\nX-Empty:\n").get(),
                       ["Authorization=Bearer abc", "X-Id=7", "X-Empty="])
        XCTAssertEqual(try parse("").get(), [])
        XCTAssertEqual(try parse("X-A: 1").get(), ["X-A=1"], "a last line without a newline counts")
    }

    func testMalformedLinesFail() {
        for (text, reason) in [("no colon\n", "line 1: expected 'Name: value'"),
                               ("X-A: 1\nBad Name: 2\n", "line 2: expected 'Name: value'"),
                               (": value\n", "line 1: expected 'Name: value'"),
                               ("X-A: a\u{1}b\n", "line 1: control character in the value")] {
            guard case .failure(let failure) = parse(text) else { return XCTFail("\(text) parsed") }
            XCTAssertEqual(failure.reason, reason)
        }
    }

    private func run(_ command: String) -> Result<[(name: String, value: String)], HeaderCommand.Failure>? {
        let loop = EventLoop()
        var result: Result<[(name: String, value: String)], HeaderCommand.Failure>?
        let runner = HeaderCommand(command: command, loop: loop)
        runner.start { result = $0 }
        runLoop(loop) { result != nil }
        return result
    }

    func testRunsTheCommandWithStdinFromDevNull() throws {
        let headers = try XCTUnwrap(run("read -r x || echo \"X-Stdin: empty\"; echo 'X-Token: t1'")).get()
        XCTAssertEqual(headers.map(\.name), ["X-Stdin", "X-Token"])
        XCTAssertEqual(headers.map(\.value), ["empty", "t1"])
    }

    func testFailingCommandFails() {
        guard case .failure(let failure)? = run("echo 'X-A: 1'; exit 3") else { return XCTFail("succeeded") }
        XCTAssertEqual(failure.description, "--header-command: 'echo 'X-A: 1'; exit 3' exited with status 3")
    }

    func testTooMuchOutputFails() {
        guard case .failure(let failure)? = run("yes 'X-A: 1'") else { return XCTFail("succeeded") }
        XCTAssertEqual(failure.reason, "more than 65536 bytes of output")
    }

    func testCancelKillsTheCommand() {
        let loop = EventLoop()
        let runner = HeaderCommand(command: "sleep 30", loop: loop)
        var called = false
        runner.start { _ in called = true }
        let started = monotonicNanos()
        runner.cancel()
        XCTAssertLessThan(monotonicNanos() - started, 5_000_000_000, "cancel does not wait for the command")
        XCTAssertFalse(called)
    }
}
