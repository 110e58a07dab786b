import Foundation
import WSBridge
import XCTest
@testable import WSCLI
@testable import WSConnect

/// The last step of the options pipeline: `Options` (and the files and
/// environment they point at) to the bridge's option structs.
final class PlanTests: XCTestCase {
    private let terminal = Environment(stdoutIsTerminal: true, noColor: false, stdinIsTerminal: true)
    private let pipe = Environment(stdoutIsTerminal: false, noColor: false)

    private func plan(_ args: [String], _ environment: Environment? = nil,
                      file: StaticString = #filePath, line: UInt = #line) -> Plan? {
        do {
            return try Plan.resolve(parseOK(args, file: file, line: line), environment ?? pipe)
        } catch {
            XCTFail("unexpected usage error: \(error.message)", file: file, line: line)
            return nil
        }
    }

    private func client(_ args: [String], _ environment: Environment? = nil, file: StaticString = #filePath,
                        line: UInt = #line) -> (ClientOptions, SessionPolicy, BridgeOptions)? {
        guard case .client(let c, let p, let b) = plan(args, environment, file: file, line: line) else {
            XCTFail("not a client plan", file: file, line: line)
            return nil
        }
        return (c, p, b)
    }

    private func server(_ args: [String], file: StaticString = #filePath,
                        line: UInt = #line) -> (ServerOptions, BridgeOptions)? {
        guard case .server(let s, let b) = plan(args, file: file, line: line) else {
            XCTFail("not a server plan", file: file, line: line)
            return nil
        }
        return (s, b)
    }

    private func assertPlanError(_ args: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try Plan.resolve(parseOK(args, file: file, line: line), pipe)
            XCTFail("expected usage error '\(message)'", file: file, line: line)
        } catch {
            XCTAssertEqual(error.message, message, file: file, line: line)
        }
    }

    private func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wspipe-plan-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    // MARK: Every field a flag controls is set from Options

    /// `value`'s fields by name, nested structs flattened ("tls.insecure"), each as it prints.
    private func fields(_ value: Any, prefix: String = "") -> [String: String] {
        var result: [String: String] = [:]
        for child in Mirror(reflecting: value).children {
            let name = prefix + (child.label ?? "?")
            if Mirror(reflecting: child.value).displayStyle == .struct {
                result.merge(fields(child.value, prefix: name + "."), uniquingKeysWith: { $1 })
            } else {
                result[name] = String(describing: child.value)
            }
        }
        return result
    }

    /// The fields of `initial` that none of `planned` changed, but those starting with an `exempt` prefix.
    private func unchanged(_ initial: Any, _ planned: [Any], exempt: [String]) -> [String] {
        let before = fields(initial)
        let after = planned.map { fields($0) }
        return before.keys.sorted().filter { key in
            !exempt.contains(where: { key.hasPrefix($0) }) && after.allSatisfy { $0[key] == before[key] }
        }
    }

    /// Command lines that between them give every flag a value other than
    /// its default: any field the plan leaves as the struct's own default is
    /// one the struct, not the table, decides. A new field must be set in
    /// `Plan` from `Options` (and given a value here), or exempted here
    /// because no flag controls it.
    func testPlansSetEveryFieldFromTheOptions() throws {
        let headerFile = try temporaryFile("X-File: 1\n")
        let messageFile = try temporaryFile("{\"hello\":1}\n")
        let recording = try temporaryFile(#"{"t_ms":1,"dir":"out","conn":1,"msg":{}}"# + "\n")
        let pem = try temporaryFile("-----BEGIN CERTIFICATE-----\n")
        let cookieFile = try temporaryFile("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\t1\n")
        let a = try XCTUnwrap(client([
            "-H", "X-A: 1", "--header-file", headerFile, "--origin", "http://o", "--user-agent", "ua/2",
            "--protocol", "chat", "--connect-timeout", "3s", "--max-message-size", "1K", "--compress",
            "-k", "--cacert", pem, "--cert", pem, "--key", pem, "--keylog", "keys.log",
            "-b", "-0", "--binary-output", "base64", "--lenient", "-n", "--max-messages", "3", "-u",
            "--close-timeout", "5s", "--type-key", "kind", "--route", "chat=stderr", "--route-errors", "ignore",
            "--ping-interval", "5s", "--ping-timeout", "2s", "--backoff", "2s:1m:3", "--jitter", "0.5",
            "--max-retries", "4", "--no-reconnect", "--wait", "--queue-limit", "1K",
            "--on-connect", "{\"a\":1}", "--on-connect-file", messageFile, "--on-reconnect", "{\"b\":2}",
            "--capture", "SID=session.id", "--ack", "seq", "--ack-timeout", "1s", "--linger", "3s",
            "--header-command", "echo X-T: 1", "--until", "type=done", "--idle-timeout", "5s",
            "--close-code", "4000:bye", "--reply", "id", "--reply-match", "type=result", "--events", "--stats", "--trace",
            "-L", "--max-redirs", "3", "--location-downgrade", "--cookie", cookieFile, "-c", cookieFile,
            "--user", "ann:pw", "-4", "-w", "%{json}",
            "--answer", "ping={\"type\":\"pong\"}", "--heartbeat", "{}", "--heartbeat-interval", "5s",
            "--heartbeat-timeout", "9s", "--record", "r.ndjson", url,
        ], terminal))
        let c = try XCTUnwrap(client(["--replay", recording, "--replay-speed", "2", "--max-reply-p99", "1s",
                                      "--socketio", "--namespace", "/chat", "--sio-auth", "{}", url]))
        let b = try XCTUnwrap(client(["-t", "--strict", "--rate", "10/s", "-U", "--unix-socket", "/run/app.sock", "--cookie", "a=b",
                                      "--wrap", "{\"t\":${line}}", url]))
        let d = try XCTUnwrap(client(["--codec", "cbor", url]))
        let s = try XCTUnwrap(server(["--listen", "127.0.0.1:9000/ws", "--once", "--protocol", "chat",
                                      "--cert", pem, "--key", pem, "--tag", "--send-timeout", "2s", "--compress",
                                      "--cacert", pem, "--allow-origin", "https://o.example",
                                      "--max-clients", "3", "--relay", "-H", "X-Server: 1",
                                      "--ping-interval", "1s", "--ping-timeout", "2s", "--on-connect", "{}",
                                      "--keylog", "keys.log"]))
        let e = try XCTUnwrap(server(["--listen", "9000", "--exec", "cat", "--max-programs", "3"]))
        let url = a.0.url
        // The route for a redirect is a function of the options (ProxySelection), not a value.
        XCTAssertEqual(unchanged(ClientOptions(url: url), [a.0, b.0, c.0, d.0], exempt: ["url", "routeForRedirect"]), [])
        XCTAssertEqual(unchanged(SessionPolicy(), [a.1, b.1, c.1, d.1], exempt: []), [])
        XCTAssertEqual(unchanged(BridgeOptions(), [a.2, b.2, c.2, d.2], exempt: []), [])
        // The handshake timeout of a server is fixed; no flag sets it.
        XCTAssertEqual(unchanged(ServerOptions(address: s.0.address), [s.0, e.0], exempt: ["address", "handshakeTimeoutNanos"]),
                       [])
    }

    func testTheFieldCheckSeesAFieldLeftAlone() {
        var policy = SessionPolicy()
        policy.queueLimit = 1
        // Every field but the one set is seen as left alone (not listed
        // here: a new field of SessionPolicy must not have to be added).
        let left = unchanged(SessionPolicy(), [policy], exempt: ["backoff", "captures", "onConnect"])
        let others = fields(policy).keys.filter { key in
            !["backoff", "captures", "onConnect", "queueLimit"].contains(where: { key.hasPrefix($0) })
        }
        XCTAssertEqual(Set(left), Set(others))
        XCTAssertTrue(left.contains("ackPath"))
        XCTAssertFalse(left.contains("queueLimit"))
        XCTAssertEqual(Set(fields(policy).keys).isSuperset(of: ["backoff.minNanos", "backoff.jitter"]), true)
    }

    func testValuesAreCarriedOver() throws {
        let headerFile = try temporaryFile("X-File: 1\n")
        let messageFile = try temporaryFile("{\"hello\":1}\n")
        let pem = try temporaryFile("-----BEGIN CERTIFICATE-----\n")
        let (c, p, b) = try XCTUnwrap(client(["-H", "X-A: 1", "--header-file", headerFile,
                                              "--on-connect", "{\"a\":1}", "--on-connect-file", messageFile,
                                              "--backoff", "2s:1m:3", "--route", "chat=stderr", "-t", "-0", url]))
        XCTAssertEqual(c.url.host, "example.com")
        // The file's headers and messages come after those of the command line.
        XCTAssertEqual(c.headers.map(\.name), ["X-A", "X-File"])
        XCTAssertEqual(p.onConnect.map(\.source), ["{\"a\":1}", "{\"hello\":1}"])
        XCTAssertEqual(p.backoff.minNanos, 2_000_000_000)
        XCTAssertEqual(p.backoff.maxNanos, 60_000_000_000)
        XCTAssertEqual(p.backoff.factor, 3)
        XCTAssertEqual(b.routes.map(\.description), ["chat=stderr"])
        XCTAssertEqual(b.format, .text)
        XCTAssertEqual(b.separator, 0)
    }

    func testDefaultsComeFromTheTableNotTheStructs() throws {
        let (c, p, b) = try XCTUnwrap(client([url]))
        XCTAssertEqual(c.userAgent, "wspipe/" + wspipeVersion)
        XCTAssertEqual(c.connectTimeoutNanos, 10_000_000_000)
        XCTAssertEqual(p.backoff, {
            var policy = BackoffPolicy()
            policy.minNanos = 1_000_000_000; policy.maxNanos = 30_000_000_000; policy.factor = 2; policy.jitter = 0.2
            return policy
        }())
        XCTAssertEqual(p.queueLimit, 16 << 20)
        XCTAssertTrue(p.reconnect)
        XCTAssertEqual(b.format, .json)
        XCTAssertEqual(b.separator, 10)
        XCTAssertEqual(b.closeTimeoutNanos, 2_000_000_000)
        XCTAssertEqual(b.maxMessageSize, 64 << 20)
        XCTAssertEqual(b.typeKey, ["type"])
    }

    // MARK: The environment

    func testColourOnlyAtATerminalWithoutNoColor() throws {
        XCTAssertTrue(try XCTUnwrap(client([url], terminal)).2.colorize)
        XCTAssertFalse(try XCTUnwrap(client([url], pipe)).2.colorize)
        XCTAssertFalse(try XCTUnwrap(client([url], Environment(stdoutIsTerminal: true, noColor: true))).2.colorize)
    }

    func testNoColorIsReadFromTheEnvironment() {
        let saved = ProcessInfo.processInfo.environment["NO_COLOR"]
        defer { if let saved { setenv("NO_COLOR", saved, 1) } else { unsetenv("NO_COLOR") } }
        setenv("NO_COLOR", "1", 1)
        XCTAssertTrue(Environment.current().noColor)
        // no-color.org: an empty value is as if unset.
        setenv("NO_COLOR", "", 1)
        XCTAssertFalse(Environment.current().noColor)
        unsetenv("NO_COLOR")
        XCTAssertFalse(Environment.current().noColor)
    }

    // MARK: What prints

    func testHelpVersionAndGeneratePrint() {
        guard case .print(let help) = plan(["--help"]) else { return XCTFail("--help") }
        XCTAssertEqual(help, HelpRenderer.render(width: 80))
        guard case .print(let tls) = plan(["--help", "tls"]) else { return XCTFail("--help tls") }
        XCTAssertEqual(tls, HelpRenderer.render(width: 80, topic: "tls"))
        guard case .print(let version) = plan(["-V"]) else { return XCTFail("-V") }
        XCTAssertEqual(version, wspipeVersionLine + "\n")
        guard case .print(let man) = plan(["--generate", "man"]) else { return XCTFail("--generate") }
        XCTAssertEqual(man, ManPageRenderer.render())
    }

    /// --keylog, else SSLKEYLOGFILE: client and server alike.
    func testKeyLogFile() throws {
        var environment = pipe
        environment.keyLogFile = "/tmp/env.keys"
        XCTAssertEqual(client([url], environment)?.0.tls.keyLogFile, "/tmp/env.keys")
        XCTAssertEqual(client(["--keylog", "flag.keys", url], environment)?.0.tls.keyLogFile, "flag.keys")
        XCTAssertNil(client([url])?.0.tls.keyLogFile)
        guard case .server(let s, _) = try Plan.resolve(parseOK(["--listen", "1"]), environment) else {
            return XCTFail("not a server")
        }
        XCTAssertEqual(s.keyLogFile, "/tmp/env.keys")
    }

    // MARK: Usage errors found while planning

    func testBadAddressesAndDestinations() {
        assertPlanError(["--listen", "host:port"], "--listen: expected [HOST:]PORT[/PATH] or unix:PATH, got 'host:port'")
        assertPlanError(["ws://"], "URL has no host (got 'ws://')")
        assertPlanError(["--route", "a=fd:x", url],
                        "--route: invalid file descriptor 'x' in 'fd:x' (expected fd:N, e.g. fd:3)")
        // Routes are checked in server mode too.
        assertPlanError(["--listen", "9000", "--route", "a=|"], "--route: missing command after '|' in '|'")
    }

    func testUnreadableFiles() {
        let missing = "/nonexistent/wspipe-test"
        assertPlanError(["--header-file", missing, url], "--header-file \(missing): No such file or directory")
        assertPlanError(["--on-connect-file", missing, url], "--on-connect-file \(missing): No such file or directory")
    }

    // MARK: The files

    func testHeaderFile() throws {
        let path = try temporaryFile("# comment\r\nAuthorization:  Bearer x\r\n\n  \nX-Empty:\nX-Colon: a:b\n")
        let headers = try OptionFiles.headers(fromFile: path)
        XCTAssertEqual(headers.map(\.name), ["Authorization", "X-Empty", "X-Colon"])
        XCTAssertEqual(headers.map(\.value), ["Bearer x", "", "a:b"])
        for bad in ["no colon", ": v", "Bad Name: v"] {
            let file = try temporaryFile("X-Ok: 1\n\(bad)\n")
            XCTAssertThrowsError(try OptionFiles.headers(fromFile: file)) { error in
                XCTAssertEqual((error as? UsageError)?.message, "--header-file \(file):2: expected 'Name: value'")
            }
        }
    }

    /// The handshake's own headers cannot come from a file, nor names that
    /// are not tokens or values with control characters.
    func testHeaderFileRefusesHandshakeHeadersAndControls() throws {
        for (line, message) in [("connection: close", "Connection belongs to the WebSocket handshake; wspipe sets it and it cannot be given"),
                                ("Sec-WebSocket-Key: x", "Sec-WebSocket-Key belongs to the WebSocket handshake; wspipe sets it and it cannot be given"),
                                ("Bad@Name: v", "expected 'Name: value' (the name is an HTTP token)"),
                                ("X-Bell: a\u{7}b", "control character in the value")] {
            let file = try temporaryFile("X-Ok: 1\n\(line)\n")
            XCTAssertThrowsError(try OptionFiles.headers(fromFile: file)) { error in
                XCTAssertEqual((error as? UsageError)?.message, "--header-file \(file):2: \(message)")
            }
        }
        let host = try temporaryFile("Host: api.example.com\n")
        XCTAssertEqual(try OptionFiles.headers(fromFile: host).map(\.value), ["api.example.com"])
    }

    /// --proxy-user and --proxy-user-file replace the URL's credentials, for
    /// a proxy from the flag or from the environment; without a proxy they
    /// are a usage error.
    func testProxyUser() throws {
        let file = try temporaryFile("bob:pa:ss word\nignored\n")
        let env = Environment(stdoutIsTerminal: false, noColor: false, variable: { $0 == "https_proxy" ? "http://old:pw@p:3128" : nil })
        for args in [["--proxy-user", "bob:pa:ss word"], ["--proxy-user-file", file]] {
            guard case .client(let c, _, _) = try Plan.resolve(parseOK(args + ["wss://example.com/"]), env),
                  case .proxy(let proxy) = c.route else { return XCTFail("\(args): no proxy") }
            XCTAssertEqual(proxy.user, "bob")
            XCTAssertEqual(proxy.password, "pa:ss word")
            XCTAssertEqual(proxy.host, "p")
        }
        guard case .client(let c, _, _) = plan(["--proxy", "socks5://u:p@s:1080", "--proxy-user", "eve:x", url]),
              case .proxy(let proxy) = c.route else { return XCTFail("no proxy") }
        XCTAssertEqual(proxy.credentials?.user, "eve")
        let message = "--proxy-user: no proxy to authenticate to (give --proxy, or set https_proxy, http_proxy or all_proxy)"
        assertPlanError(["--proxy-user", "bob:x", url], message)
        assertPlanError(["--proxy", "", "--proxy-user", "bob:x", url], message)
        assertUsageError(["--proxy-user", "bob", url], "--proxy-user: expected USER:PASSWORD")
        assertUsageError(["--proxy-user", ":x", url], "--proxy-user: expected USER:PASSWORD")
        let empty = try temporaryFile("")
        assertPlanError(["--proxy", "http://p:1", "--proxy-user-file", empty, url],
                        "--proxy-user-file \(empty): expected USER:PASSWORD")
    }

    func testMessageFile() throws {
        let path = try temporaryFile("{\"a\":1}\r\n\n \t\n{\"b\":2}")
        XCTAssertEqual(try OptionFiles.messages(fromFile: path), ["{\"a\":1}", "{\"b\":2}"])
        XCTAssertEqual(try OptionFiles.messages(fromFile: try temporaryFile("")), [])
    }
}
