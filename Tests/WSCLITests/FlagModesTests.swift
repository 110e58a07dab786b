import Foundation
import XCTest
@testable import WSCLI
@testable import WSConnect

/// Each flag's `modes` are the truth (wspipe(1): OPTIONS): in every mode it
/// names, giving it changes what the run does (the plan, or what App reads
/// from the options); in every other mode it is refused with a usage error
/// that names the flag and the mode. So an option a mode's plan ignores
/// always belongs to a flag refused there, and a flag without a sample here
/// fails the test until it has one.
final class FlagModesTests: XCTestCase {
    private var files: [String: String] = [:]

    override func setUpWithError() throws {
        files = [
            "pem": try temporaryFile("-----BEGIN CERTIFICATE-----\n"),
            "pem2": try temporaryFile("-----BEGIN PRIVATE KEY-----\n"),
            "headers": try temporaryFile("X-File: 1\n"),
            "messages": try temporaryFile("{\"hello\":1}\n"),
            "proxyuser": try temporaryFile("u:p\n"),
            "jar": try temporaryFile(""),
            "recording": try temporaryFile(#"{"t_ms":1,"dir":"in","conn":1,"msg":{}}"# + "\n"
                                           + #"{"t_ms":2,"dir":"out","conn":1,"msg":{"event":"e"}}"# + "\n"),
            "har": try temporaryFile(#"{"log":{"entries":[{"request":{"url":"wss://h.example/ws","headers":["#
                                     + #"{"name":"Cookie","value":"sid=1"}]},"_webSocketMessages":["#
                                     + #"{"type":"send","time":1,"opcode":1,"data":"{}"}]}]}}"#),
        ]
    }

    private func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("wspipe-modes-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try text.write(to: url, atomically: true, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    /// The flags that decide the mode itself (tested on their own below).
    private static let modeSwitches: Set<String> = ["listen", "exec", "interactive", "check", "help", "version", "generate"]
    /// The flags that choose the config files: they act before the command
    /// line is parsed (`Invocation`, tested in InvocationTests).
    private static let configFlags: Set<String> = ["config", "no-config", "profile"]

    /// A value other than the default for each flag, and what it needs
    /// given first (`before`) in the modes where it works: the table's
    /// `example` (`tableSample`), or here where the value is a file the test
    /// makes or depends on the mode.
    private func sample(_ long: String, _ mode: RunMode) -> (before: [String], args: [String])? {
        let server = mode == .server || mode == .exec
        let pem = files["pem"]!, pem2 = files["pem2"]!
        switch long {
        case "header-file": return ([], ["--header-file", files["headers"]!])
        case "proxy-user": return (["--proxy", "http://proxy.example:3128"], ["--proxy-user", "u:p"])
        case "proxy-user-file": return (["--proxy", "http://proxy.example:3128"], ["--proxy-user-file", files["proxyuser"]!])
        case "cookie-jar": return ([], ["-c", files["jar"]!])
        case "user-file": return ([], ["--user-file", files["proxyuser"]!])
        case "noproxy": return (["--proxy", "http://proxy.example:3128"], ["--noproxy", "example.com"])
        case "cacert": return (server ? ["--cert", pem, "--key", pem] : [], ["--cacert", pem2])
        case "cert": return ([], server ? ["--cert", pem, "--key", pem2] : ["--cert", pem])
        case "key": return (server ? ["--cert", pem, "--key", pem] : ["--cert", pem], ["--key", pem2])
        case "on-connect-file": return ([], ["--on-connect-file", files["messages"]!])
        case "replay": return ([], ["--replay", files["recording"]!])
        case "har-credentials": return (mode == .check ? ["--check", files["har"]!] : ["--replay", files["har"]!],
                                        ["--har-credentials"])
        default: return tableSample(long, mode)
        }
    }

    /// The flag's own example from its entry (`Flag.example`; a switch is
    /// itself), given after the samples of the flags it requires.
    private func tableSample(_ long: String, _ mode: RunMode) -> (before: [String], args: [String])? {
        guard let flag = FlagTable.flag(long: long) else { return nil }
        var args = ["--" + long]
        if flag.takesValue {
            guard let example = flag.example else { return nil }
            args.append(example)
        }
        var before: [String] = []
        for case .requires(let other) in flag.rules where !Self.modeSwitches.contains(other) {
            guard let required = sample(other, mode) else { return nil }
            before += required.before + required.args
        }
        return (before, args)
    }

    /// The command line and environment of each mode, before any flag under test.
    private func base(_ mode: RunMode) -> (args: [String], environment: Environment) {
        let pipe = Environment(stdoutIsTerminal: false, noColor: false)
        let terminal = Environment(stdoutIsTerminal: true, noColor: false, stdinIsTerminal: true,
                                   stateHome: "/state", home: "/home/u")
        switch mode {
        case .client: return ([url], pipe)
        case .interactive: return (["-i", url], terminal)
        case .server: return (["--listen", "127.0.0.1:9000"], pipe)
        case .exec: return (["--listen", "127.0.0.1:9000", "--exec", "cat"], pipe)
        case .check: return (["--check", files["recording"]!, url], pipe)
        }
    }

    /// What the run does with these arguments: the plan, and what App reads
    /// from the options itself (the log's verbosity, --events). A usage error
    /// instead, when there is one.
    private func outcome(_ args: [String], _ environment: Environment) -> Result<String, UsageError> {
        do {
            let terminal = environment.stdinIsTerminal && environment.stdoutIsTerminal
            let options = try ArgumentParser.parse(args, terminal: terminal)
            let plan = try Plan.resolve(options, environment)
            // dump: every field, also of values that describe themselves briefly (a proxy hides its password).
            var text = ""
            dump(plan, to: &text)
            return .success(text + " verbose=\(options.verbose) quiet=\(options.quiet) events=\(options.events)")
        } catch {
            return .failure(error)
        }
    }

    func testEveryFlagWorksInItsModesAndIsRefusedInTheOthers() {
        for flag in flagTable where !Self.modeSwitches.contains(flag.long) && !Self.configFlags.contains(flag.long) {
            for mode in RunMode.allCases {
                guard let sample = sample(flag.long, mode) else {
                    XCTFail("--\(flag.long): no sample value in FlagModesTests")
                    break
                }
                let (args, environment) = base(mode)
                let without = outcome(args + sample.before, environment)
                let with = outcome(args + sample.before + sample.args, environment)
                if flag.modes.contains(mode.flagMode) {
                    guard case .success(let plain) = without, case .success(let given) = with else {
                        XCTFail("--\(flag.long) in \(mode) mode: \(without) / \(with)")
                        continue
                    }
                    XCTAssertNotEqual(plain, given, "--\(flag.long) is accepted in \(mode) mode but changes nothing")
                } else {
                    // The flag first, so that the refusal is its own.
                    guard case .failure(let error) = outcome(args + sample.args + sample.before, environment) else {
                        XCTFail("--\(flag.long) is accepted in \(mode) mode, where its modes say it is not")
                        continue
                    }
                    XCTAssertTrue(error.message.contains("--\(flag.long)"), "\(mode): \(error.message)")
                    let namesTheMode = ["--listen", "--exec", "--check", "interactive mode", "client mode", "-i"]
                        .contains(where: error.message.contains)
                    XCTAssertTrue(namesTheMode, "\(mode): \(error.message)")
                }
            }
        }
    }

    /// The proof has teeth: a flag accepted where it changes nothing is seen.
    func testTheCheckSeesAnIgnoredFlag() throws {
        let (_, environment) = base(.interactive)
        // --strict is cleared from the interactive plan, which is why the table refuses it there.
        var withStrict = parseOK(["--strict", url])
        withStrict.interactive = true
        var plain = parseOK([url])
        plain.interactive = true
        XCTAssertEqual("\(try Plan.resolve(withStrict, environment))", "\(try Plan.resolve(plain, environment))")
    }

    func testTheModeSwitches() {
        let pipe = Environment(stdoutIsTerminal: false, noColor: false)
        XCTAssertEqual(RunMode.of(parseOK([url]), stdinIsTerminal: true, stdoutIsTerminal: true), .interactive)
        XCTAssertEqual(RunMode.of(parseOK(["-U", url]), stdinIsTerminal: true, stdoutIsTerminal: true), .client)
        XCTAssertEqual(RunMode.of(parseOK([url]), stdinIsTerminal: true, stdoutIsTerminal: false), .client)
        XCTAssertEqual(RunMode.of(parseOK(["-i", url]), stdinIsTerminal: false, stdoutIsTerminal: false), .interactive)
        XCTAssertEqual(RunMode.of(parseOK(["--listen", "1"]), stdinIsTerminal: true, stdoutIsTerminal: true), .server)
        XCTAssertEqual(RunMode.of(parseOK(["--listen", "1", "--exec", "cat"]), stdinIsTerminal: false,
                                  stdoutIsTerminal: false), .exec)
        assertUsageError(["--exec", "cat", url], "--exec requires --listen")
        assertUsageError(["-i", "--listen", "1"], "--interactive is for client mode (not with --listen)")
        if case .success = outcome(["-i", url], pipe) { XCTFail("-i needs a terminal") }
    }

    func testRefusalsNameTheMode() {
        assertUsageError(["--listen", "1", "--origin", "http://o"], "--origin is for client mode (not with --listen)")
        assertUsageError(["--tag", url], "--tag requires --listen")
        // --tag names clients in JSON lines only: with -t or -b it would do nothing.
        assertUsageError(["--listen", "1", "--tag", "-t"], "--tag and --text cannot be used together")
        assertUsageError(["--listen", "1", "-b", "--tag"], "--binary and --tag cannot be used together")
        assertUsageError(["--listen", "1", "--exec", "cat", "--rate", "2/s"],
                         "--rate does nothing with --exec (the programs take the place of stdin and stdout)")
        assertUsageError(["--listen", "1", "--exec", "cat", "-n"],
                         "--no-close does nothing with --exec (the programs take the place of stdin and stdout)")
        do {
            _ = try ArgumentParser.parse(["--rate", "2/s", url], terminal: true)
            XCTFail("--rate at a terminal")
        } catch {
            XCTAssertEqual(error.message, "--rate does nothing in interactive mode (stdin and stdout are a terminal, or -i)")
        }
        // With -U the client is not interactive: --rate is fine at a terminal.
        XCTAssertNoThrow(try ArgumentParser.parse(["-U", "--rate", "2/s", url], terminal: true))
    }

    func testExecRoutesOnlyEvents() {
        let pipe = Environment(stdoutIsTerminal: false, noColor: false)
        guard case .failure(let error) = outcome(["--listen", "1", "--exec", "cat", "--route", "chat=stderr"], pipe) else {
            return XCTFail("a message route with --exec")
        }
        XCTAssertEqual(error.message, "--route chat: with --exec, messages go to the programs; only $event can be routed")
    }
}
