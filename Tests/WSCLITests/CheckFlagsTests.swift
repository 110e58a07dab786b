import Foundation
import WSBridge
import XCTest
@testable import WSCLI
@testable import WSConnect

/// --check and its flags (wspipe(1): CHECKING A SERVER): the mode, the
/// files and patterns, where each connection goes, what a HAR file lends.
final class CheckFlagsTests: XCTestCase {
    private let pipe = Environment(stdoutIsTerminal: false, noColor: false)
    private var folder = ""

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("wspipe-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { [folder] in try? FileManager.default.removeItem(atPath: folder) }
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = folder + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private let recorded = #"{"t_ms":0,"dir":"event","conn":1,"msg":{"$event":"connected","url":"ws://recorded.example/ws","attempt":1}}"#
        + "\n" + #"{"t_ms":1,"dir":"out","conn":1,"msg":{"type":"ping"}}"# + "\n"
        + #"{"t_ms":2,"dir":"in","conn":1,"msg":{"type":"pong"}}"# + "\n"

    private func check(_ args: [String], file: StaticString = #filePath, line: UInt = #line) throws -> CheckOptions {
        guard case .check(let options, _) = try Plan.resolve(try ArgumentParser.parse(args), pipe) else {
            XCTFail("not a check plan", file: file, line: line)
            throw UsageError("not a check plan")
        }
        return options
    }

    private func assertPlanError(_ args: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do throws(UsageError) {
            _ = try Plan.resolve(try ArgumentParser.parse(args), pipe)
            XCTFail("expected '\(message)'", file: file, line: line)
        } catch {
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    func testTheModeAndItsFlags() throws {
        let path = try write("a.ndjson", recorded)
        XCTAssertEqual(RunMode.of(parseOK(["--check", path]), stdinIsTerminal: true, stdoutIsTerminal: true), .check)
        assertUsageError(["--check", path, "--listen", "9000"], "--listen and --check cannot be used together")
        assertUsageError(["--ignore", "ts", url], "--ignore requires --check")
        assertUsageError(["--check", path, "--rate", "2/s"],
                         "--rate does nothing with --check (the recordings say what is sent and expected)")
        assertUsageError(["--check", path, "-i"],
                         "--interactive does nothing with --check (the recordings say what is sent and expected)")
        assertUsageError(["--check-order", "sorted", "--check", path], "--check-order: invalid value 'sorted' (choose one of: recorded, any)")
        // Without --check, a URL is still needed.
        assertUsageError(["--stats"], "missing URL (see 'wspipe --help')")
        let defaults = parseOK(["--check", path])
        XCTAssertEqual(defaults.checkTimeoutNanos, 5_000_000_000)
        XCTAssertEqual(defaults.checkSettleNanos, 100_000_000)
        XCTAssertEqual(defaults.repeats, 1)
        XCTAssertFalse(defaults.checkOrderAny)
    }

    func testEveryFieldIsSetFromTheOptions() throws {
        let path = try write("a.ndjson", recorded)
        let options = try check(["--check", path, "--check-timeout", "2s", "--check-settle", "1s", "--ignore", "a.*.b",
                                 "--check-order", "any", "--allow-extra", "heartbeat", "--junit", "r.xml", "--repeat", "3",
                                 "--max-reply-p99", "250ms", "--wait", "--backoff", "2s:1m:3", "--jitter", "0.5",
                                 "--max-retries", "4", "-w", "%{http_code}\n", url])
        let initial = Mirror(reflecting: CheckOptions()).children.map { ($0.label!, String(describing: $0.value)) }
        let planned = Dictionary(uniqueKeysWithValues: Mirror(reflecting: options).children.map {
            ($0.label!, String(describing: $0.value))
        })
        for (name, value) in initial where planned[name] == value {
            XCTFail("CheckOptions.\(name) is the struct's own default")
        }
        XCTAssertEqual(options.timeoutNanos, 2_000_000_000)
        XCTAssertEqual(options.settleNanos, 1_000_000_000)
        XCTAssertEqual(options.ignores, [KeyPathPattern(["a", "*", "b"])])
        XCTAssertEqual(options.repeats, 3)
        XCTAssertEqual(options.maxReplyP99Nanos, 250_000_000)
        XCTAssertEqual(options.backoff.minNanos, 2_000_000_000)
    }

    func testPatternsURLsAndErrors() throws {
        let a = try write("a.ndjson", recorded)
        _ = try write("b.ndjson", recorded.replacingOccurrences(of: "recorded.example", with: "other.example"))
        _ = try write("c.txt", "not a recording")
        var options = try check(["--check", folder + "/*.ndjson"])
        XCTAssertEqual(options.scripts.map(\.path), [folder + "/a.ndjson", folder + "/b.ndjson"])
        // Without a URL, each recording's own.
        XCTAssertEqual(options.connections.map { $0.map(\.url.host) }, [["recorded.example"], ["other.example"]])
        options = try check(["--check", a, "--check", a, "ws://127.0.0.1:9/here"])
        XCTAssertEqual(options.connections.flatMap { $0.map(\.url.display) }, ["ws://127.0.0.1:9/here", "ws://127.0.0.1:9/here"])

        assertPlanError(["--check", folder + "/*.json"], "--check \(folder)/*.json: no file matches")
        assertPlanError(["--check", folder + "/missing.ndjson", url],
                        "--check \(folder)/missing.ndjson: No such file or directory")
        assertPlanError(["--check", folder + "/c.txt", url], "--check \(folder)/c.txt:1: column 2: invalid literal, expected 'null'")
        let noURL = try write("nourl.ndjson", #"{"t_ms":1,"dir":"out","conn":1,"msg":{}}"#)
        assertPlanError(["--check", noURL], "--check \(noURL): the recording holds no URL (no connected event); give the server's URL")
        let bad = try write("bad.ndjson", #"{"t_ms":1,"dir":"in","conn":1,"msg":{"a":"${bogus!}"}}"#)
        XCTAssertThrowsError(try check(["--check", bad, url])) { error in
            XCTAssertTrue((error as? UsageError)?.message.hasPrefix("--check \(bad):1: \"${bogus!}\" is no matcher") == true,
                          "\(error)")
        }
    }

    func testWhatAHARFileLends() throws {
        let har = try write("app.har", """
            {"log":{"entries":[{"request":{"url":"wss://chat.example/ws","headers":[
              {"name":"Origin","value":"https://app.example"},{"name":"Sec-WebSocket-Protocol","value":"v2"},
              {"name":"User-Agent","value":"Browser/1"},{"name":"X-Trace","value":"t1"},
              {"name":"Cookie","value":"sid=1"},{"name":"Authorization","value":"Bearer x"}]},
             "_webSocketMessages":[{"type":"send","time":1,"opcode":1,"data":"{}"}]}]}}
            """)
        var c = try XCTUnwrap(try check(["--check", har]).connections.first?.first)
        XCTAssertEqual(c.url.display, "wss://chat.example/ws")
        XCTAssertEqual(c.protocols, ["v2"])
        XCTAssertEqual(c.origin, "https://app.example")
        XCTAssertEqual(c.headers.map(\.name), ["User-Agent", "X-Trace"])
        c = try XCTUnwrap(try check(["--check", har, "--har-credentials", "-H", "x-trace: mine", "--protocol", "v3",
                                     "--origin", "https://o", "--user-agent", "ua/1", "ws://127.0.0.1:1/"])
            .connections.first?.first)
        XCTAssertEqual(c.url.display, "ws://127.0.0.1:1/")
        XCTAssertEqual(c.protocols, ["v3"])
        XCTAssertEqual(c.origin, "https://o")
        XCTAssertEqual(c.headers.map { "\($0.name): \($0.value)" }, ["Cookie: sid=1", "Authorization: Bearer x", "x-trace: mine"])
        let plain = try write("p.ndjson", recorded)
        assertPlanError(["--check", plain, "--har-credentials"], "--har-credentials: none of the --check files is a HAR file")
        // --replay takes a HAR file too, and its URL.
        guard case .client(let client, _, let bridge) = try Plan.resolve(try ArgumentParser.parse(["--replay", har]), pipe) else {
            return XCTFail("not a client plan")
        }
        XCTAssertEqual(client.url.display, "wss://chat.example/ws")
        XCTAssertEqual(client.headers.map(\.name), ["User-Agent", "X-Trace"])
        XCTAssertEqual(bridge.script.replay?.format, .har)
        assertPlanError(["--replay", plain, "--har-credentials", url], "--har-credentials: the --replay file is not a HAR file")
    }
}
