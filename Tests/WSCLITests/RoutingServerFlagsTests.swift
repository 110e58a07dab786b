import XCTest
@testable import WSCLI

/// The routing flags (wspipe(1): ROUTING), the server-mode flags --tag and
/// --send-timeout (wspipe(1): OPTIONS, Server mode) and --generate (README, Install): values stored,
/// defaults, every error text, and where --help lists them.
final class RoutingServerFlagsTests: XCTestCase {
    let listen = ["--listen", "8080"]

    // MARK: Defaults

    func testDefaults() {
        let o = parseOK([url])
        XCTAssertEqual(o.typeKey, ["type"])
        XCTAssertTrue(o.routes.isEmpty)
        XCTAssertFalse(o.routeErrorsIgnored)
        XCTAssertFalse(o.tag)
        XCTAssertEqual(o.sendTimeoutNanos, 10_000_000_000, "a stuck client holds the others back for 10 s at most")
        XCTAssertNil(o.generate)
    }

    /// The defaults `--help` shows, given explicitly, change nothing.
    func testDefaultsShownInHelpParseToTheDefaults() {
        XCTAssertEqual(FlagTable.flag(long: "type-key")?.defaultValue, "type")
        XCTAssertEqual(FlagTable.flag(long: "route-errors")?.defaultValue, "report")
        XCTAssertEqual(FlagTable.flag(long: "send-timeout")?.defaultValue, "10s")
        let o = parseOK(["--type-key", "type", "--route-errors", "report", url])
        XCTAssertEqual(o.typeKey, parseOK([url]).typeKey)
        XCTAssertEqual(o.routeErrorsIgnored, parseOK([url]).routeErrorsIgnored)
    }

    // MARK: --type-key

    func testTypeKey() {
        XCTAssertEqual(parseOK(["--type-key", "kind", url]).typeKey, ["kind"])
        XCTAssertEqual(parseOK(["--type-key=event.kind", url]).typeKey, ["event", "kind"])
        XCTAssertEqual(parseOK(["--type-key", "a.b.c", "--type-key", "op", url]).typeKey, ["op"])
        XCTAssertEqual(parseOK(["--type-key", "t", "--listen", "9000"]).typeKey, ["t"])
    }

    func testTypeKeyErrors() {
        for bad in ["", ".", "a.", ".a", "a..b"] {
            assertUsageError(["--type-key", bad, url],
                             "--type-key: invalid key path '\(bad)' (use keys joined by dots, e.g. meta.seq)")
        }
        assertUsageError([url, "--type-key"], "missing value for --type-key")
    }

    // MARK: --route

    func testRoutesKeptInOrderAsRawStrings() {
        let o = parseOK(["--route", "chat=stdout", "--route=$binary=drop", "--route", "*=fd:3",
                         "--route", "$event=/tmp/events.log", url])
        XCTAssertEqual(o.routes.map(\.value), ["chat", "$binary", "*", "$event"])
        XCTAssertEqual(o.routes.map(\.destination), ["stdout", "drop", "fd:3", "/tmp/events.log"])
    }

    func testRouteSplitsAtTheFirstEquals() {
        let o = parseOK(["--route", "trade=|jq -c 'select(.size==1)' >>x", url])
        XCTAssertEqual(o.routes.first?.value, "trade")
        XCTAssertEqual(o.routes.first?.destination, "|jq -c 'select(.size==1)' >>x")
        let twice = parseOK(["--route", "a==b", url])
        XCTAssertEqual(twice.routes.first?.value, "a")
        XCTAssertEqual(twice.routes.first?.destination, "=b")
    }

    func testRouteDestinationsAreNotCheckedHere() {
        // The bridge parses DEST (fd:x, "|" alone...) and reports it; the parser only checks the shape.
        let o = parseOK(["--route", "a=fd:x", "--route", "b=|", url])
        XCTAssertEqual(o.routes.map(\.destination), ["fd:x", "|"])
    }

    func testRouteInServerMode() {
        let o = parseOK(["--listen", "9000", "--route", "chat=stdout", "--route-errors", "ignore"])
        XCTAssertEqual(o.routes.count, 1)
        XCTAssertTrue(o.routeErrorsIgnored)
    }

    func testRouteErrors() {
        assertUsageError(["--route", "chat", url], "--route: expected VALUE=DEST, got 'chat'")
        assertUsageError(["--route", "", url], "--route: expected VALUE=DEST, got ''")
        assertUsageError(["--route", "=stdout", url], "--route: empty VALUE in '=stdout'")
        assertUsageError(["--route", "chat=", url], "--route: empty DEST in 'chat='")
        assertUsageError(["--route", "chat=stdout", "--route", "chat=drop", url],
                         "--route: VALUE 'chat' given twice")
        assertUsageError(["--route", "*=drop", "--route=*=stderr", url], "--route: VALUE '*' given twice")
        assertUsageError([url, "--route"], "missing value for --route")
    }

    // MARK: --route-errors

    func testRouteErrorsChoice() {
        XCTAssertFalse(parseOK(["--route-errors", "report", url]).routeErrorsIgnored)
        XCTAssertTrue(parseOK(["--route-errors=ignore", url]).routeErrorsIgnored)
        XCTAssertFalse(parseOK(["--route-errors", "ignore", "--route-errors", "report", url]).routeErrorsIgnored)
        assertUsageError(["--route-errors", "warn", url],
                         "--route-errors: invalid value 'warn' (choose one of: report, ignore)")
        assertUsageError(["--route-errors", "Ignore", url],
                         "--route-errors: invalid value 'Ignore' (choose one of: report, ignore)")
        assertUsageError([url, "--route-errors"], "missing value for --route-errors")
    }

    // MARK: --tag and --send-timeout (server mode)

    func testTag() {
        XCTAssertTrue(parseOK(listen + ["--tag"]).tag)
        XCTAssertTrue(parseOK(["--tag", "--listen=127.0.0.1:9000/ws", "--once"]).tag)
        assertUsageError(["--tag", url], "--tag requires --listen")
        assertUsageError(["--tag"], "--tag requires --listen")
        assertUsageError(listen + ["--tag=yes"], "--tag does not take a value")
    }

    func testSendTimeout() {
        XCTAssertEqual(parseOK(listen + ["--send-timeout", "5s"]).sendTimeoutNanos, 5_000_000_000)
        XCTAssertEqual(parseOK(listen + ["--send-timeout=250ms"]).sendTimeoutNanos, 250_000_000)
        XCTAssertEqual(parseOK(listen + ["--send-timeout", "1.5"]).sendTimeoutNanos, 1_500_000_000)
        XCTAssertEqual(parseOK(listen).sendTimeoutNanos, 10_000_000_000)
        // 0 waits for ever; "off", the default of earlier versions, too.
        XCTAssertNil(parseOK(listen + ["--send-timeout", "0"]).sendTimeoutNanos)
        XCTAssertNil(parseOK(listen + ["--send-timeout", "off"]).sendTimeoutNanos)
    }

    func testSendTimeoutErrors() {
        assertUsageError(["--send-timeout", "5s", url], "--send-timeout requires --listen")
        assertUsageError(listen + ["--send-timeout", "soon"],
                         "--send-timeout: invalid duration 'soon' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(listen + ["--send-timeout"], "missing value for --send-timeout")
    }

    func testServerFlagsAreNotClientOnly() {
        for long in ["tag", "send-timeout", "type-key", "route", "route-errors", "generate"] {
            XCTAssertEqual(FlagTable.flag(long: long)?.clientOnly, false, long)
        }
        XCTAssertEqual(FlagTable.flag(long: "tag")?.rules, [.conflicts("exec"), .conflicts("text"), .conflicts("binary")])
        XCTAssertEqual(FlagTable.flag(long: "tag")?.modes, .server)
        XCTAssertEqual(FlagTable.flag(long: "send-timeout")?.modes, .server)
        XCTAssertEqual(Set(flagTable.filter(\.serverOnly).map(\.long)),
                       ["listen", "once", "exec", "relay", "tag", "send-timeout", "max-clients", "max-programs", "allow-origin"])
    }

    // MARK: --generate

    func testGenerateNeedsNoURL() {
        for kind in ["man", "bash", "zsh", "fish"] {
            let o = parseOK(["--generate", kind])
            XCTAssertEqual(o.generate, kind)
            XCTAssertFalse(o.showHelp)
            XCTAssertFalse(o.showVersion)
        }
        XCTAssertEqual(parseOK(["--generate=zsh"]).generate, "zsh")
    }

    func testGenerateWinsLikeHelp() {
        for args in [["--bogus", "--generate", "man"], ["-t", "-b", "--generate", "bash"],
                     ["--generate", "fish", "--bogus"], ["--listen", "1", url, "--generate", "zsh"],
                     ["-v", "--generate", "man"], ["--tag", "--generate=man"]] {
            let o = parseOK(args)
            XCTAssertNotNil(o.generate, "\(args)")
            // Nothing else parsed is reported.
            XCTAssertEqual(o.verbose, 0, "\(args)")
            XCTAssertNil(o.url, "\(args)")
            XCTAssertNil(o.listen, "\(args)")
        }
    }

    func testFirstOfHelpVersionAndGenerateWins() {
        XCTAssertTrue(parseOK(["-h", "--generate", "man"]).showHelp)
        XCTAssertNil(parseOK(["-h", "--generate", "man"]).generate)
        XCTAssertEqual(parseOK(["--generate", "man", "-V"]).generate, "man")
        XCTAssertFalse(parseOK(["--generate", "man", "-V"]).showVersion)
        XCTAssertTrue(parseOK(["-V", "--generate", "man"]).showVersion)
    }

    func testGenerateErrors() {
        assertUsageError(["--generate", "html"],
                         "--generate: invalid value 'html' (choose one of: man, bash, zsh, fish)")
        assertUsageError(["--generate", ""], "--generate: invalid value '' (choose one of: man, bash, zsh, fish)")
        assertUsageError(["--generate"], "missing value for --generate")
        // An invalid kind is an ordinary error: it does not win.
        assertUsageError(["--generate", "pdf", "--bogus"],
                         "--generate: invalid value 'pdf' (choose one of: man, bash, zsh, fish)")
        // "--generate --help": --help is the value.
        assertUsageError(["--generate", "--help"],
                         "--generate: invalid value '--help' (choose one of: man, bash, zsh, fish)")
    }

    func testGenerateKindsAreTheRenderers() {
        XCTAssertEqual(FlagTable.flag(long: "generate")?.completion, .choices(DocGenerator.kinds))
        for kind in DocGenerator.kinds { XCTAssertNotNil(DocGenerator.render(kind), kind) }
    }

    // MARK: --help

    private var helpLines: [Substring] { HelpRenderer.render(topic: "all").split(separator: "\n", omittingEmptySubsequences: false) }

    /// The synopsis lines between `heading` and the next blank line.
    private func section(_ heading: String) -> [String] {
        let lines = helpLines
        guard let start = lines.firstIndex(of: Substring(heading + ":")) else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }
            .filter { $0.hasPrefix("  -") || $0.hasPrefix("      --") }
            .map { String($0.drop { $0 == " " }) }
    }

    func testRoutingSectionAfterLinesAndMessages() {
        XCTAssertEqual(FlagCategory.routing.heading, "Routing")
        let all = FlagCategory.allCases
        XCTAssertEqual(all.firstIndex(of: .routing), all.firstIndex(of: .dataMode)! + 1)
        XCTAssertEqual(section("Routing"), ["--type-key <KEYPATH>", "--route <VALUE=DEST>",
                                            "--route-errors <report|ignore>"])
        XCTAssertEqual(section("Server mode"), ["--listen <[HOST:]PORT[/PATH]>", "--once", "--exec <COMMAND>",
                                                "--relay", "--tag",
                                                "--send-timeout <DURATION>", "--max-clients <N>", "--max-programs <N>",
                                                "--allow-origin <ORIGIN>"])
    }

    func testNewFlagHelpIsOneSentenceAndRepeatablesSaySo() {
        let joined = helpLines.map { $0.drop { $0 == " " } }.joined(separator: " ")
        for long in ["type-key", "route", "route-errors", "tag", "send-timeout", "generate"] {
            let flag = FlagTable.flag(long: long)!
            XCTAssertTrue(flag.fullHelp.hasSuffix("."), long)
            XCTAssertFalse(flag.fullHelp.dropLast().contains(". "), "--\(long): more than one sentence")
            XCTAssertEqual(flag.fullHelp.lowercased().contains("repeat"), flag.repeatable, long)
            XCTAssertTrue(joined.contains(flag.fullHelp), "--\(long) help not rendered whole")
        }
        XCTAssertTrue(joined.contains("(default: type)."))
        XCTAssertTrue(joined.contains("(default: report)."))
        XCTAssertTrue(joined.contains("(default: off)."))
    }
}
