import Foundation
import XCTest
@testable import WSCLI

/// The config files in front of the command line (wspipe(1): CONFIG FILES):
/// which files, which profile, what overrides what, what is skipped.
final class InvocationTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wspipe-invocation-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { [directory] in try? FileManager.default.removeItem(at: directory!) }
    }

    /// A file in the test's directory, mode 0600 unless said.
    @discardableResult
    private func file(_ name: String, _ text: String, mode: Int = 0o600) throws -> String {
        let url = directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
        return url.path
    }

    /// An environment whose default config file is `name` in the test's directory.
    private func environment(default name: String = "default") -> Environment {
        var environment = Environment(stdoutIsTerminal: false, noColor: false)
        environment.configFile = directory.appendingPathComponent(name).path
        return environment
    }

    /// WSPIPE_CONFIG set and empty: no default file.
    private func noDefault() -> Environment {
        var environment = Environment(stdoutIsTerminal: false, noColor: false)
        environment.configFile = ""
        return environment
    }

    private func options(_ args: [String], _ environment: Environment,
                         file: StaticString = #filePath, line: UInt = #line) -> (Options, [String])? {
        do {
            let invocation = try Invocation.assemble(args, environment, terminal: false)
            return (try ArgumentParser.parse(invocation.tokens, terminal: false), invocation.notes)
        } catch {
            XCTFail("unexpected usage error: \(error.message)", file: file, line: line)
            return nil
        }
    }

    private func error(_ args: [String], _ environment: Environment) -> String? {
        do {
            let invocation = try Invocation.assemble(args, environment, terminal: false)
            _ = try ArgumentParser.parse(invocation.tokens, terminal: false)
            return nil
        } catch {
            return error.message
        }
    }

    func testWhichDefaultFile() {
        var e = Environment(stdoutIsTerminal: false, noColor: false)
        XCTAssertNil(Invocation.defaultPath(e))
        e.home = "/home/u"
        XCTAssertEqual(Invocation.defaultPath(e)?.path, "/home/u/.config/wspipe/config")
        XCTAssertEqual(Invocation.defaultPath(e)?.optional, true)
        e.configHome = "/xdg"
        XCTAssertEqual(Invocation.defaultPath(e)?.path, "/xdg/wspipe/config")
        e.configFile = "/etc/wspipe.conf"
        XCTAssertEqual(Invocation.defaultPath(e)?.path, "/etc/wspipe.conf")
        XCTAssertEqual(Invocation.defaultPath(e)?.optional, false, "a file named on purpose must exist")
        e.configFile = ""
        XCTAssertNil(Invocation.defaultPath(e), "WSPIPE_CONFIG set and empty: no file")
    }

    func testAMissingDefaultFileIsNoFile() throws {
        var e = Environment(stdoutIsTerminal: false, noColor: false)
        e.configHome = directory.path
        let (o, notes) = try XCTUnwrap(options([url], e))
        XCTAssertEqual(o.url, url)
        XCTAssertEqual(notes, [])
        // Named by WSPIPE_CONFIG, it must be there.
        XCTAssertEqual(error([url], environment(default: "absent")),
                       "config file \(directory.appendingPathComponent("absent").path): No such file or directory")
    }

    func testTheXDGFileIsRead() throws {
        try file("xdg/wspipe/config", "origin https://o.example\n")
        var e = Environment(stdoutIsTerminal: false, noColor: false)
        e.configHome = directory.appendingPathComponent("xdg").path
        e.home = "/nonexistent"
        let (o, notes) = try XCTUnwrap(options([url], e))
        XCTAssertEqual(o.origin, "https://o.example")
        XCTAssertEqual(notes, ["read config file \(directory.path)/xdg/wspipe/config"])
    }

    /// file < profile < command line, for a single value, a switch and its
    /// conflict, and repeated values by name.
    func testPrecedence() throws {
        try file("default", """
            origin https://file.example
            user-agent file/1
            text
            header "X-File: 1"
            header "X-Both: file"
            protocol one
            route "a=stderr"
            [staging]
            url = ws://example.com/
            user-agent profile/1
            header "X-Both: profile"
            header "X-Profile: 1"
            """)
        let e = environment()
        let (o, _) = try XCTUnwrap(options(["--user-agent", "cli/1", "-b", "--route", "a=drop", "--protocol", "two", url], e))
        XCTAssertEqual(o.origin, "https://file.example", "the file's value when nothing overrides it")
        XCTAssertEqual(o.userAgent, "cli/1", "the command line over the profile over the file")
        XCTAssertEqual(o.lineFormat, .binary, "-b on the command line drops the file's text (they conflict)")
        XCTAssertEqual(o.headers.map { "\($0.name): \($0.value)" }, ["X-File: 1", "X-Both: profile", "X-Profile: 1"])
        XCTAssertEqual(o.routes.map { "\($0.value)=\($0.destination)" }, ["a=drop"])
        XCTAssertEqual(o.protocols, ["one", "two"], "repeatable values add up")
        let (p, _) = try XCTUnwrap(options([url], e))
        XCTAssertEqual(p.userAgent, "profile/1")
        XCTAssertEqual(p.lineFormat, .text)
    }

    func testKFilesComeAfterTheDefaultAndInOrder() throws {
        try file("default", "origin https://default.example\nuser-agent default/1\n")
        let one = try file("one", "origin https://one.example\nconnect-timeout 3s\n")
        let two = try file("two", "origin https://two.example\n")
        let (o, notes) = try XCTUnwrap(options(["-K", one, "--config", two, url], environment()))
        XCTAssertEqual(o.origin, "https://two.example")
        XCTAssertEqual(o.userAgent, "default/1")
        XCTAssertEqual(o.connectTimeoutNanos, 3_000_000_000)
        XCTAssertEqual(notes.count, 3)
        // --no-config: the -K files only.
        let (n, _) = try XCTUnwrap(options(["--no-config", "-K", one, url], environment()))
        XCTAssertEqual(n.origin, "https://one.example")
        XCTAssertTrue(n.userAgent.hasPrefix("wspipe/"))
    }

    func testTheLongestURLPrefixPicksTheOneProfile() throws {
        try file("default", """
            [host]
            url = wss://api.example.com
            origin https://host.example
            user-agent host/1
            [path]
            url = wss://api.example.com/v2/
            origin https://path.example
            [other]
            url = wss://api.example.com.evil.net
            header "X-Leak: 1"
            """)
        let e = environment()
        let (v2, notes) = try XCTUnwrap(options(["wss://api.example.com/v2/ws"], e))
        XCTAssertEqual(v2.origin, "https://path.example")
        XCTAssertTrue(v2.userAgent.hasPrefix("wspipe/"), "only that one section applies")
        XCTAssertTrue(notes.contains { $0.hasPrefix("profile [path] of ") })
        XCTAssertEqual(try XCTUnwrap(options(["wss://api.example.com/v1"], e)).0.origin, "https://host.example")
        XCTAssertNil(try XCTUnwrap(options(["wss://api.example.com:8443/v2/"], e)).0.origin)
        XCTAssertNil(try XCTUnwrap(options(["wss://example.com/"], e)).0.origin)
        XCTAssertEqual(try XCTUnwrap(options(["wss://api.example.com.evil.net/x"], e)).0.headers.count, 1)
    }

    /// --check without a URL connects where its recordings did: their URL
    /// picks the profile, as a URL given would.
    func testCheckRecordingsPickTheProfileOfTheirURL() throws {
        try file("default", """
            [staging]
            url = wss://staging.example.com
            header "Authorization: Bearer staging-token"
            [prod]
            url = wss://prod.example.com
            origin https://prod.example
            """)
        func recording(_ name: String, _ url: String) throws -> String {
            try file(name, #"{"t_ms":0,"dir":"event","conn":1,"msg":{"$event":"connected","url":"\#(url)","attempt":1}}"#
                     + "\n" + #"{"t_ms":1,"dir":"out","conn":1,"msg":{"type":"ping"}}"# + "\n")
        }
        let login = try recording("tests/login.ndjson", "wss://staging.example.com/ws")
        let chat = try recording("tests/chat.ndjson", "wss://staging.example.com/chat")
        let e = environment()
        let (staging, notes) = try XCTUnwrap(options(["--check", login, "--check", chat], e))
        XCTAssertEqual(staging.headers.map(\.value), ["Bearer staging-token"])
        XCTAssertTrue(notes.contains { $0.hasPrefix("profile [staging] of ") && $0.hasSuffix("the recordings' URL)") }, "\(notes)")
        let glob = directory.appendingPathComponent("tests").path + "/*.ndjson"
        XCTAssertEqual(try XCTUnwrap(options(["--check", glob], e)).0.headers.count, 1, "a pattern's files too")
        // A URL on the command line decides, as in client mode.
        XCTAssertEqual(try XCTUnwrap(options(["--check", login, "wss://prod.example.com/ws"], e)).0.origin,
                       "https://prod.example")
        // Recordings of two servers: the staging token must not go to the other one.
        let local = try recording("local.ndjson", "ws://127.0.0.1:9000/")
        let mixed = try XCTUnwrap(error(["--check", login, "--check", local], e))
        XCTAssertTrue(mixed.hasPrefix("--check: the recordings' URLs select different config profiles "
                                      + "(wss://staging.example.com/ws: [staging] of "), mixed)
        XCTAssertTrue(mixed.contains("ws://127.0.0.1:9000/: no profile"), mixed)
        XCTAssertTrue(try XCTUnwrap(options(["--check", local], e)).0.headers.isEmpty)
        XCTAssertNil(error(["--check", login, "--check", local, "--profile", "prod"], e), "--profile decides")
    }

    func testProfileByName() throws {
        try file("default", """
            [staging]
            url = ws://staging.example.com/ws
            origin https://staging.example
            [prod]
            url = wss://prod.example.com/ws
            origin https://prod.example
            """)
        let e = environment()
        let (named, notes) = try XCTUnwrap(options(["--profile", "staging", "wss://prod.example.com/ws"], e))
        XCTAssertEqual(named.origin, "https://staging.example", "--profile wins over the URL's match")
        XCTAssertEqual(named.url, "wss://prod.example.com/ws")
        XCTAssertTrue(notes.contains("profile [staging] (--profile)"))
        let (noURL, more) = try XCTUnwrap(options(["--profile", "prod"], e))
        XCTAssertEqual(noURL.url, "wss://prod.example.com/ws", "the profile's URL when none is given")
        XCTAssertTrue(more.contains("URL wss://prod.example.com/ws from [prod]"))
        XCTAssertEqual(error(["--profile", "qa", url], e), "--profile qa: not in \(directory.path)/default")
        XCTAssertEqual(error(["--no-config", "--profile", "qa", url], e), "--profile qa: no config file was read")
        XCTAssertEqual(error(["--listen", "1", "--profile", "staging"], e),
                       "--profile staging: no config file was read (a server reads only the files given with -K)")
    }

    /// A client setting in a -K file read by a server, or a flag without the
    /// one it needs, is skipped and said with -v; on the command line it is
    /// still an error.
    func testLinesTheRunCannotUseAreSkipped() throws {
        let shared = try file("shared", "backoff 2s\nping-timeout 3s\nmax-clients 4\ncompress\n")
        let (server, notes) = try XCTUnwrap(options(["-K", shared, "--listen", "127.0.0.1:0"], noDefault()))
        XCTAssertEqual(server.maxClients, 4)
        XCTAssertTrue(server.compress)
        XCTAssertEqual(notes.filter { $0.contains("skipped") }, [
            "\(shared):1: --backoff skipped: not used in server mode (--listen)",
            "\(shared):2: --ping-timeout skipped: needs --ping-interval",
        ])
        let (client, clientNotes) = try XCTUnwrap(options(["-K", shared, "--ping-interval", "1s", url], noDefault()))
        XCTAssertEqual(client.pingTimeoutNanos, 3_000_000_000)
        XCTAssertEqual(client.backoffMinNanos, 2_000_000_000)
        XCTAssertEqual(clientNotes.filter { $0.contains("skipped") },
                       ["\(shared):3: --max-clients skipped: not used in client mode"])
        XCTAssertEqual(error(["--listen", "1", "--backoff", "2s"], noDefault()), "--backoff is for client mode (not with --listen)")
    }

    /// The default file configures clients: a server never reads it.
    func testAServerReadsNoDefaultFile() throws {
        try file("default", "header \"X: 1\"\nthis is not an option\n")
        let (o, notes) = try XCTUnwrap(options(["--listen", "127.0.0.1:0"], environment()))
        XCTAssertTrue(o.headers.isEmpty)
        XCTAssertEqual(notes, [])
        XCTAssertEqual(error([url], environment()), "\(directory.path)/default:2: unknown option 'this'")
    }

    /// --help, --version and --generate work whatever the files say.
    func testPrintingReadsNoFile() throws {
        try file("default", "broken \"\n")
        for args in [["--help"], ["-h", "tls"], ["--version"], ["--generate", "bash"], [url, "-h"]] {
            XCTAssertNotNil(options(args, environment()), "\(args)")
        }
    }

    func testValueErrorsNameTheFileAndLine() throws {
        let path = try file("default", "\n\nconnect-timeout soon\n")
        XCTAssertEqual(error([url], environment()),
                       "\(path):3: --connect-timeout: invalid duration 'soon' (use e.g. 250ms, 2s, 1.5m)")
    }

    /// As ssh refuses a loose key: a secret in a file others can read.
    func testALooseFileWithASecretIsRefused() throws {
        let path = try file("default", "backoff 1s\n[a]\nurl = ws://x/\nheader \"Authorization: Bearer t\"\n", mode: 0o644)
        XCTAssertEqual(error([url], environment()),
                       "config file \(path): line 4 holds a header, password or cookie, and others can read the file "
                       + "(mode 0644); run: chmod 600 \(path)")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        XCTAssertNotNil(error([url], environment()), "group-readable too")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        XCTAssertNil(error([url], environment()))
        // Without a secret, any mode.
        let open = try file("open", "backoff 1s\norigin https://o\n", mode: 0o644)
        XCTAssertNil(error(["-K", open, url], environment()))
    }

    func testMergeRules() {
        let header = FlagTable.flag(long: "header")!, text = FlagTable.flag(long: "text")!
        let binary = FlagTable.flag(long: "binary")!, proto = FlagTable.flag(long: "protocol")!
        XCTAssertTrue(Invocation.overrides(header, "x-a: 2", header, "X-A: 1"))
        XCTAssertFalse(Invocation.overrides(header, "X-B: 2", header, "X-A: 1"))
        XCTAssertTrue(Invocation.overrides(binary, "", text, ""))
        XCTAssertFalse(Invocation.overrides(proto, "b", proto, "a"))
        XCTAssertTrue(Invocation.overrides(FlagTable.flag(long: "one-message")!, "", FlagTable.flag(long: "max-messages")!, "5"))
        XCTAssertEqual(Invocation.repeatKey("answer", "ping={\"a\":1}"), "ping")
        XCTAssertEqual(Invocation.repeatKey("capture", "SID=a.b"), "SID")
        XCTAssertNil(Invocation.repeatKey("on-connect", "{}"))
    }
}
