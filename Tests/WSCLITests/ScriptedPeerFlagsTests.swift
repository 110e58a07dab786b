import XCTest
import WSBridge
@testable import WSCLI

/// The scripted peer's flags (wspipe(1): SCRIPTED PEER, TEMPLATES): parsing,
/// the templates checked when the run is planned, and what cannot go together.
final class ScriptedPeerFlagsTests: XCTestCase {
    private let pipe = Environment(stdoutIsTerminal: false, noColor: false)
    private let terminal = Environment(stdoutIsTerminal: true, noColor: false, stdinIsTerminal: true)

    private func plan(_ args: [String], _ environment: Environment? = nil) throws(UsageError) -> Plan {
        let environment = environment ?? pipe
        let terminal = environment.stdinIsTerminal && environment.stdoutIsTerminal
        return try Plan.resolve(try ArgumentParser.parse(args, terminal: terminal), environment)
    }

    private func assertPlanError(_ args: [String], _ message: String, _ environment: Environment? = nil,
                                 file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try plan(args, environment)
            XCTFail("expected usage error '\(message)'", file: file, line: line)
        } catch {
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    private func bridge(_ args: [String]) throws -> BridgeOptions {
        switch try plan(args) {
        case .client(_, _, let bridge), .server(_, let bridge), .check(_, let bridge): return bridge
        case .print: throw UsageError("printed")
        }
    }

    func testDefaults() {
        let o = parseOK([url])
        XCTAssertTrue(o.answers.isEmpty)
        XCTAssertNil(o.heartbeat)
        XCTAssertEqual(o.heartbeatIntervalNanos, 20_000_000_000)
        XCTAssertNil(o.heartbeatTimeoutNanos)
        XCTAssertNil(o.wrap)
        XCTAssertNil(o.record)
        XCTAssertNil(o.replay)
        XCTAssertEqual(o.replaySpeed, 1)
    }

    func testAnswersKeepTheirOrderAndSplitAtTheFirstEquals() throws {
        let o = parseOK(["--answer", #"ping={"type":"pong","id":${.id}}"#, "--answer", "a=b={}", url])
        XCTAssertEqual(o.answers, [#"ping={"type":"pong","id":${.id}}"#, "a=b={}"])
        assertUsageError(["--answer", "ping", url], "--answer: expected TYPE=TEMPLATE, got 'ping'")
        assertUsageError(["--answer", "={}", url], "--answer: expected TYPE=TEMPLATE, got '={}'")
        assertUsageError(["--answer", "ping=", url], "--answer: expected TYPE=TEMPLATE, got 'ping='")
        let rules = try bridge(["--answer", #"ping={"id":${.id}}"#, "--answer", #"a={"b=c":1}"#, url]).script.answers
        XCTAssertEqual(rules.map(\.type), ["ping", "a"])
        XCTAssertEqual(rules.map(\.template.source), [#"{"id":${.id}}"#, #"{"b=c":1}"#])
        XCTAssertEqual(rules.first?.template.variables, [.field(["id"])])
    }

    func testValues() {
        XCTAssertEqual(parseOK(["--heartbeat", "{}", "--heartbeat-interval", "250ms", url]).heartbeatIntervalNanos, 250_000_000)
        XCTAssertEqual(parseOK(["--heartbeat-timeout", "3s", url]).heartbeatTimeoutNanos, 3_000_000_000)
        XCTAssertNil(parseOK(["--heartbeat-timeout", "off", url]).heartbeatTimeoutNanos)
        XCTAssertEqual(parseOK(["--replay", "r", "--replay-speed", "0.5", url]).replaySpeed, 0.5)
        assertUsageError(["--replay", "r", "--replay-speed", "0", url], "--replay-speed: expected a number greater than 0, got '0'")
        assertUsageError(["--replay", "r", "--replay-speed", "-2", url], "--replay-speed: expected a number greater than 0, got '-2'")
        assertUsageError(["--heartbeat-interval", "1s", url], "--heartbeat-interval requires --heartbeat")
        // Issue 33: 100 ns was accepted, and sent in a near busy loop.
        assertUsageError(["--heartbeat", "{}", "--heartbeat-interval", "0.0000001s", url],
                         "--heartbeat-interval: '0.0000001s' is too short: an interval must be at least 10ms")
        XCTAssertEqual(parseOK(["--heartbeat", "{}", "--heartbeat-interval", "10ms", url]).heartbeatIntervalNanos, 10_000_000)
        assertUsageError(["--replay-speed", "2", url], "--replay-speed requires --replay")
        assertUsageError(["--capture", "line=a", url], "--capture: 'line' is a built-in template variable (${line}); choose another name")
    }

    func testTemplatesAreCheckedWhenTheRunIsPlanned() {
        assertPlanError(["--answer", #"ping={"id":"${.id}"}"#, url],
                        #"--answer ping: template '{"id":"${.id}"}': column 8: not valid JSON with a value in place of ${.id}: expected ',' or '}' after object member (a variable is a whole JSON value, a string with its quotes: it cannot be put inside a string)"#)
        assertPlanError(["--heartbeat", #"{"ref":${seq}"#, url],
                        #"--heartbeat: template '{"ref":${seq}': column 14: not valid JSON: unexpected end of input"#)
        assertPlanError(["--on-reconnect", #"{"s":${sid}}"#, url],
                        #"--on-reconnect: template '{"s":${sid}}': column 6: unknown variable ${sid} (no --capture sid; write \u0024 for a literal $ in a string)"#)
        XCTAssertNoThrow(try plan(["--on-reconnect", #"{"s":${sid}}"#, "--capture", "sid=s", url]))
    }

    func testOnConnectGreetsInServerModeWithoutCaptures() throws {
        guard case .server(let server, _) = try plan(["--listen", "9000", "--on-connect", #"{"n":${seq}}"#]) else {
            return XCTFail("not a server")
        }
        XCTAssertEqual(server.onConnect.map(\.source), [#"{"n":${seq}}"#])
        assertPlanError(["--listen", "9000", "--on-connect", #"{"a":${line}}"#],
                        #"--on-connect: template '{"a":${line}}': column 6: ${line} is the stdin line, and there is none here (only in --wrap)"#)
    }

    func testWhatCannotGoTogether() {
        assertPlanError(["--wrap", "${line}", "-b", url], "--wrap and --binary cannot be used together")
        assertPlanError(["--wrap", "${line}", "--lenient", url], "--wrap and --lenient cannot be used together")
        assertPlanError(["--listen", "9000", "--exec", "cat", "--answer", "a={}"],
                        "--answer does nothing with --exec (the programs take the place of stdin and stdout)")
        assertPlanError(["--listen", "9000", "--exec", "cat", "--record", "r"],
                        "--record does nothing with --exec (the programs take the place of stdin and stdout)")
        assertPlanError(["-U", "--replay", "/dev/null", url],
                        "--replay: not with -U in client mode (the recording is what is sent)")
        assertPlanError(["--replay", "/dev/null", "--replay-speed", "2", "--rate", "2/s", url],
                        "--replay-speed and --rate cannot be used together")
        assertPlanError(["--replay", "/dev/null", "--wrap", "${line}", url],
                        "--wrap: not with --replay in client mode (the recording is the input, not stdin)")
        assertPlanError(["-i", "--wrap", "${line}", url],
                        "--wrap does nothing in interactive mode (stdin and stdout are a terminal, or -i)", terminal)
    }

    /// At a terminal, --wrap and --replay take the place of the line editor.
    func testWrapAndReplayAreNeverInteractive() throws {
        for args in [["--wrap", "${line}", url], ["--replay", "/dev/null", url]] {
            guard case .client(_, let policy, _) = try plan(args, terminal) else { return XCTFail("not a client") }
            XCTAssertNil(policy.interactive, "\(args)")
        }
        guard case .client(_, let policy, _) = try plan([url], terminal) else { return XCTFail("not a client") }
        XCTAssertNotNil(policy.interactive)
    }

    func testReplayFileIsReadAndCheckedWhenTheRunIsPlanned() {
        assertPlanError(["--replay", "/nonexistent/rec.ndjson", url],
                        "--replay /nonexistent/rec.ndjson: No such file or directory")
    }
}
