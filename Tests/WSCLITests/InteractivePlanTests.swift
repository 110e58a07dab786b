import WSBridge
import XCTest
@testable import WSCLI
@testable import WSConsole

/// When the client is interactive (wspipe(1): INTERACTIVE MODE), and where
/// it draws: decided from the terminals and -i, never in a pipe.
final class InteractivePlanTests: XCTestCase {
    private func environment(stdin: Bool, stdout: Bool, stderr: Bool = true, noColor: Bool = false,
                             stateHome: String? = nil, home: String? = "/home/ann",
                             historyFile: String? = nil, configHome: String? = nil,
                             plain: Bool = false) -> Environment {
        Environment(stdoutIsTerminal: stdout, noColor: noColor, stdinIsTerminal: stdin, stderrIsTerminal: stderr,
                    stateHome: stateHome, home: home, historyFile: historyFile, configHome: configHome, plain: plain)
    }

    private func settings(_ args: [String], _ environment: Environment,
                          file: StaticString = #filePath, line: UInt = #line) throws -> InteractiveSettings? {
        guard case .client(_, let policy, _) = try Plan.resolve(parseOK(args + [url], file: file, line: line), environment)
        else {
            XCTFail("not a client plan", file: file, line: line)
            return nil
        }
        return policy.interactive
    }

    private func assertPlanError(_ args: [String], _ environment: Environment, _ message: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try Plan.resolve(parseOK(args + [url], file: file, line: line), environment),
                             file: file, line: line) { error in
            XCTAssertEqual((error as? UsageError)?.message, message, file: file, line: line)
        }
    }

    func testBothTerminalsMakeTheClientInteractive() throws {
        let s = try XCTUnwrap(try settings([], environment(stdin: true, stdout: true)))
        XCTAssertEqual(s.terminalFD, 1)
        XCTAssertTrue(s.colors)
        XCTAssertEqual(s.historyPath, "/home/ann/.local/state/wspipe/history")
        XCTAssertEqual(s.home, "/home/ann")
    }

    func testAPipeOnEitherSideIsNeverInteractive() throws {
        XCTAssertNil(try settings([], environment(stdin: false, stdout: true)))
        XCTAssertNil(try settings([], environment(stdin: true, stdout: false)))
        XCTAssertNil(try settings([], environment(stdin: false, stdout: false)))
    }

    func testStateHomeHoldsTheHistory() throws {
        let s = try settings([], environment(stdin: true, stdout: true, stateHome: "/state"))
        XCTAssertEqual(s?.historyPath, "/state/wspipe/history")
    }

    /// WSPIPE_HISTFILE names the file; set and empty, no history is kept on disk.
    func testHistfileVariableReplacesOrTurnsOffTheHistoryFile() throws {
        let named = try settings([], environment(stdin: true, stdout: true, stateHome: "/state", historyFile: "/tmp/h"))
        XCTAssertEqual(named?.historyPath, "/tmp/h")
        let empty = try XCTUnwrap(try settings([], environment(stdin: true, stdout: true, historyFile: "")))
        XCTAssertNil(empty.historyPath)
        XCTAssertEqual(try settings([], environment(stdin: true, stdout: true))?.historyPath,
                       "/home/ann/.local/state/wspipe/history", "unset: the default")
    }

    func testNoColorTurnsTheColoursOff() throws {
        XCTAssertEqual(try settings([], environment(stdin: true, stdout: true, noColor: true))?.colors, false)
    }

    func testReceiveOnlyReadsNoStdinSoIsNotInteractive() throws {
        XCTAssertNil(try settings(["-U"], environment(stdin: true, stdout: true)))
        assertUsageError(["-i", "-U", url], "--interactive and --unidirectional-reverse cannot be used together")
    }

    func testDashIDrawsOnStderrWhenStdoutIsRedirected() throws {
        let s = try XCTUnwrap(try settings(["-i"], environment(stdin: true, stdout: false)))
        XCTAssertEqual(s.terminalFD, 2)
        XCTAssertEqual(try settings(["--interactive"], environment(stdin: true, stdout: true))?.terminalFD, 1)
    }

    func testDashINeedsATerminal() {
        assertPlanError(["-i"], environment(stdin: false, stdout: true), "--interactive: stdin is not a terminal")
        assertPlanError(["-i"], environment(stdin: true, stdout: false, stderr: false),
                        "--interactive: neither stdout nor stderr is a terminal to draw on")
    }

    func testDashIIsForTheClient() {
        assertUsageError(["-i", "--listen", "9000"], "--interactive is for client mode (not with --listen)")
    }

    func testTranscriptSizeStatusLineAndSavedMessages() throws {
        let s = try XCTUnwrap(try settings([], environment(stdin: true, stdout: true)))
        XCTAssertEqual(s.transcriptBytes, 4 << 20, "--history-size's default")
        XCTAssertTrue(s.statusLine)
        XCTAssertEqual(s.savedMessagesPath, "/home/ann/.config/wspipe/messages.ndjson")
        let t = try XCTUnwrap(try settings(["-i", "--history-size", "64K", "--no-status-line"],
                                           environment(stdin: true, stdout: true, configHome: "/config")))
        XCTAssertEqual(t.transcriptBytes, 64 << 10)
        XCTAssertFalse(t.statusLine)
        XCTAssertEqual(t.savedMessagesPath, "/config/wspipe/messages.ndjson")
        XCTAssertEqual(try settings([], environment(stdin: true, stdout: true, plain: true))?.statusLine, false,
                       "WSPIPE_PLAIN=1 for screen readers")
        assertUsageError(["-i", "--history-size", "0", url], "--history-size: size must be greater than 0")
        assertUsageError(["--no-status-line", url],
                         "--no-status-line works in interactive mode only (stdin and stdout a terminal, or -i)")
        assertUsageError(["--listen", "9000", "--history-size", "1M"], "--history-size is for client mode (not with --listen)")
    }
}
