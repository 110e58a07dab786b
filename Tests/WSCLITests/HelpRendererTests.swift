import BuildInfo
import XCTest
@testable import WSCLI
@testable import WSMessages

final class HelpRendererTests: XCTestCase {
    /// `--help all`: every option (the short `--help` is tested at the end).
    let help = HelpRenderer.render(width: 80, topic: "all")
    var lines: [Substring] { help.split(separator: "\n", omittingEmptySubsequences: false) }

    func testEveryLineFitsInEighty() {
        for line in lines {
            XCTAssertLessThanOrEqual(line.count, 80, "too long: '\(line)'")
        }
    }

    func testEveryLineFitsInNarrowerWidths() {
        for width in [20, 40, 60, 72, 100] {
            for topic in [nil, "all", "tls"] {
                for line in HelpRenderer.render(width: width, topic: topic).split(separator: "\n") {
                    XCTAssertLessThanOrEqual(line.count, width, "width \(width): '\(line)'")
                }
            }
        }
    }

    func testDefaultWidthIsEighty() {
        XCTAssertEqual(HelpRenderer.render(topic: "all"), help)
        XCTAssertEqual(HelpRenderer.render(), HelpRenderer.render(width: 80, topic: nil))
    }

    func testNoTrailingSpacesAndEndsWithNewline() {
        XCTAssertTrue(help.hasSuffix("\n"))
        XCTAssertFalse(help.hasSuffix("\n\n"))
        for line in lines {
            XCTAssertFalse(line.hasSuffix(" "), "trailing space: '\(line)'")
        }
    }

    func testUsageBlock() {
        XCTAssertEqual(lines[0], "Usage: wspipe [OPTIONS] URL")
        XCTAssertEqual(lines[1], "       wspipe [OPTIONS] --listen [HOST:]PORT[/PATH]")
        XCTAssertEqual(lines[2], "       wspipe [OPTIONS] --check FILE... [URL]")
        XCTAssertEqual(lines[3], "       wspipe curl [--print] CURL_ARGUMENTS... [-- OPTIONS]")
        XCTAssertEqual(lines[4], "")
        XCTAssertTrue(lines[5].hasPrefix("Bridge stdin/stdout and a WebSocket"))
    }

    func testEveryFlagAppearsWithItsSynopsis() {
        for flag in flagTable {
            let lead = flag.short == nil ? "      " : "  "
            XCTAssertTrue(lines.contains(Substring(lead + flag.synopsis)), "--\(flag.long) missing")
        }
    }

    func testSynopsisForms() {
        XCTAssertTrue(lines.contains("  -H, --header <NAME: VALUE>"))
        XCTAssertTrue(lines.contains("      --origin <URL>"))
        XCTAssertTrue(lines.contains("  -k, --insecure"))
        XCTAssertTrue(lines.contains("  -0, --nul"))
        XCTAssertTrue(lines.contains("      --binary-output <raw|base64|drop>"))
        XCTAssertTrue(lines.contains("      --once"))
    }

    func testHelpTextFollowsItsFlagIndented() {
        let index = lines.firstIndex(of: "  -k, --insecure")!
        XCTAssertEqual(lines[index + 1], "          Skip TLS certificate and hostname verification.")
    }

    func testDefaultsComeFromTheTable() {
        // Unwrapped, the help text of each flag with a default ends with it.
        let joined = lines.map { $0.trimmingLeadingSpaces() }.joined(separator: " ")
        for flag in flagTable {
            guard let value = flag.shownDefault else { continue }
            XCTAssertTrue(joined.contains("(default: \(value))."), "--\(flag.long) default \(value)")
        }
        XCTAssertTrue(joined.contains("(default: 10s)."))
        XCTAssertTrue(joined.contains("(default: 2s)."))
        XCTAssertTrue(joined.contains("(default: 64M)."))
        XCTAssertTrue(joined.contains("(default: raw)."))
        XCTAssertTrue(joined.contains("(default: wspipe/\(wspipeVersion))."))
    }

    func testFullHelpInsertsTheDefaultBeforeThePeriod() {
        let flag = FlagTable.flag(long: "connect-timeout")!
        XCTAssertEqual(flag.fullHelp, "Give up connecting (name lookup, TCP, TLS and handshake) after this long (default: 10s).")
        XCTAssertEqual(FlagTable.flag(long: "insecure")!.fullHelp, FlagTable.flag(long: "insecure")!.help)
    }

    func testHeadingsInCategoryOrder() {
        let headings = FlagCategory.allCases
            .filter { category in flagTable.contains { $0.category == category } }
            .map { $0.heading + ":" }
        let found = lines.filter { headings.contains(String($0)) }.map(String.init)
        XCTAssertEqual(found, headings)
        XCTAssertEqual(headings.first, "Connection:")
        XCTAssertTrue(help.contains("\nLines and messages:\n"))
        XCTAssertTrue(help.contains("\nServer mode:\n"))
    }

    func testNewSectionsPlacement() {
        let headings = lines.filter { $0.hasSuffix(":") && !$0.hasPrefix(" ") }.map(String.init)
        XCTAssertEqual(headings, ["Connection:", "TLS:", "Lines and messages:", "Routing:", "Ending:",
                                  "Keepalive, reconnect and replay:", "Scripted peer:", "Checking a server:", "Server mode:", "Diagnostics:", "General:",
                                  "Exit status:", "Examples:"])
        XCTAssertEqual(FlagCategory.reconnect.heading, "Keepalive, reconnect and replay")
        XCTAssertEqual(FlagCategory.output.heading, "Diagnostics")
    }

    /// The synopsis lines between `heading` and the next blank line.
    private func section(_ heading: String) -> [String] {
        guard let start = lines.firstIndex(of: Substring(heading + ":")) else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }
            .filter { $0.hasPrefix("  -") || $0.hasPrefix("      --") }
            .map { String($0.drop { $0 == " " }) }
    }

    func testReconnectSectionListsItsFlagsInOrder() {
        XCTAssertEqual(section("Keepalive, reconnect and replay"), [
            "--ping-interval <DURATION>",
            "--ping-timeout <DURATION>",
            "--backoff <MIN[:MAX[:FACTOR]]>",
            "--jitter <FRACTION>",
            "--max-retries <N>",
            "--no-reconnect",
            "--wait",
            "--queue-limit <SIZE>",
            "--on-connect <MSG>",
            "--on-connect-file <FILE>",
            "--on-reconnect <MSG>",
            "--capture <NAME=KEYPATH>",
            "--ack <KEYPATH>",
            "--ack-timeout <DURATION>",
        ])
    }

    func testDiagnosticsSectionListsEventsAndStats() {
        XCTAssertEqual(section("Diagnostics"), ["--events", "--stats", "--trace", "-w, --write-out <FORMAT>"])
        XCTAssertEqual(section("General"), ["-h, --help [CATEGORY]", "-V, --version", "--generate <man|bash|zsh|fish>",
                                            "-v, --verbose", "-q, --quiet", "-K, --config <FILE>", "--no-config",
                                            "--profile <NAME>"])
    }

    func testNewFlagDefaultsInHelp() {
        let expected: [(String, String)] = [
            ("ping-interval", "off"), ("ping-timeout", "the ping interval"), ("backoff", "1s:30s:2"),
            ("jitter", "0.2"), ("max-retries", "unlimited"), ("queue-limit", "16M"), ("ack-timeout", "10s"),
        ]
        let joined = lines.map { $0.trimmingLeadingSpaces() }.joined(separator: " ")
        for (long, value) in expected {
            let flag = FlagTable.flag(long: long)!
            XCTAssertEqual(flag.shownDefault, value, long)
            XCTAssertTrue(flag.fullHelp.hasSuffix(" (default: \(value))."), flag.fullHelp)
            XCTAssertTrue(joined.contains(flag.fullHelp), "--\(long) help not rendered whole")
        }
        for long in ["no-reconnect", "wait", "on-connect", "on-connect-file", "on-reconnect", "capture", "ack",
                     "events", "stats"] {
            XCTAssertNil(FlagTable.flag(long: long)!.defaultValue, long)
        }
    }

    func testNewFlagHelpIsOneSentenceAndRepeatablesSaySo() {
        let reconnect = flagTable.filter { $0.category == .reconnect || $0.category == .output }
        XCTAssertEqual(reconnect.count, 18)
        for flag in reconnect {
            XCTAssertTrue(flag.fullHelp.hasSuffix("."), flag.long)
            XCTAssertFalse(flag.fullHelp.dropLast().contains(". "), "--\(flag.long): more than one sentence")
            XCTAssertEqual(flag.fullHelp.lowercased().contains("repeat"), flag.repeatable, flag.long)
        }
        XCTAssertEqual(reconnect.filter(\.repeatable).map(\.long), ["on-connect", "on-reconnect", "capture"])
    }

    func testFlagsListedInTableOrderWithinACategory() {
        var previous = -1
        let order = flagTable.filter { $0.category == .ending }.map { "--" + $0.long }
        for name in order {
            let at = lines.firstIndex { $0.contains(name + " ") || $0.hasSuffix(name) }!
            XCTAssertGreaterThan(at, previous, name)
            previous = at
        }
    }

    func testExitStatusBlock() {
        let start = lines.firstIndex(of: "Exit status:")!
        let block = lines[(start + 1)...].prefix { !$0.isEmpty }
        XCTAssertEqual(block.count, HelpRenderer.exitStatuses.count)
        XCTAssertEqual(HelpRenderer.exitStatuses.map(\.code), [0, 1, 2, 3, 4, 5, 6, 7, 8, 130, 143])
        XCTAssertEqual(block.first, "  0    success")
        XCTAssertEqual(block.last, "  143  terminated (SIGTERM), after a clean close")
    }

    func testWrapBreaksOnWordsAndCutsLongWords() {
        XCTAssertEqual(HelpRenderer.wrap("aa bb cc", width: 5, first: "", rest: ""), ["aa bb", "cc"])
        XCTAssertEqual(HelpRenderer.wrap("aa bb cc", width: 6, first: "> ", rest: "  "), ["> aa", "  bb", "  cc"])
        XCTAssertEqual(HelpRenderer.wrap("abcdefgh", width: 4, first: "", rest: ""), ["abcd", "efgh"])
        XCTAssertEqual(HelpRenderer.wrap("x abcdefgh", width: 4, first: "", rest: " "), ["x", " abc", " def", " gh"])
        XCTAssertEqual(HelpRenderer.wrap("", width: 10, first: "  ", rest: ""), ["  "])
    }

    /// The release, then the commit the build plugin stamped (or why there is none).
    func testVersionLine() {
        XCTAssertTrue(wspipeVersionLine.hasPrefix("wspipe \(wspipeVersion) ("), wspipeVersionLine)
        XCTAssertFalse(wspipeVersion.isEmpty)
        if let commit = BuildInfo.commit {
            XCTAssertEqual(wspipeVersionLine, "wspipe \(wspipeVersion) (commit \(commit))")
        } else {
            XCTAssertEqual(wspipeVersionLine, "wspipe \(wspipeVersion) (commit unknown: not built from a git checkout)")
        }
    }

    /// `--help` ends with one example for each use, each command line as typed.
    func testHelpEndsWithAnExampleForEachUse() {
        let start = lines.firstIndex(of: "Examples:")!
        let block = lines[(start + 1)...].filter { !$0.isEmpty }
        XCTAssertEqual(UsageExample.forHelp.count, UsageExample.Use.allCases.count)
        XCTAssertEqual(UsageExample.forHelp.map(\.use), UsageExample.Use.allCases)
        let commands = block.filter { $0.hasPrefix("    ") }.map { $0.trimmingLeadingSpaces() }
        XCTAssertEqual(commands.count, UsageExample.forHelp.map(\.lines.count).reduce(0, +))
        XCTAssertEqual(block.filter { $0.hasPrefix("  ") && !$0.hasPrefix("    ") }.count, 5)
        for example in UsageExample.forHelp {
            for line in example.lines {
                XCTAssertTrue(commands.contains(Substring(line.drop { $0 == " " })), line)
            }
            // And the man page has them all.
            XCTAssertTrue(usageExamples.contains { $0.what == example.what })
        }
        XCTAssertTrue(help.hasSuffix("--junit report.xml\n"))
    }
}

private extension Substring {
    func trimmingLeadingSpaces() -> Substring { drop { $0 == " " } }
}

/// The short `--help` (as curl's since 7.73): the options a newcomer needs,
/// one line each, the categories, the examples; all on one screen.
final class ShortHelpTests: XCTestCase {
    let short = HelpRenderer.render(width: 80)
    var lines: [Substring] { short.split(separator: "\n", omittingEmptySubsequences: false).dropLast() }

    func testFitsAScreen() {
        XCTAssertLessThanOrEqual(lines.count, 50, short)
        for line in lines { XCTAssertLessThanOrEqual(line.count, 80, String(line)) }
        XCTAssertFalse(short.hasSuffix("\n\n"))
        XCTAssertTrue(short.contains("\nExamples:\n"))
        XCTAssertFalse(short.contains("Exit status:"))
    }

    func testAboutTwentyFiveEssentialsEachOnOneLine() {
        let names = HelpRenderer.essentials.map(\.long)
        XCTAssertEqual(Set(names).count, names.count)
        XCTAssertTrue((20...30).contains(names.count), "\(names.count)")
        for (long, brief) in HelpRenderer.essentials {
            let flag = FlagTable.flag(long: long)
            XCTAssertNotNil(flag, long)
            guard let flag else { continue }
            let row = lines.first { $0.hasPrefix((flag.short == nil ? "      " : "  ") + flag.synopsis + " ") }
            XCTAssertNotNil(row, long)
            XCTAssertTrue(row?.hasSuffix(" " + brief) ?? false, "\(long): \(row ?? "")")
            XCTAssertTrue(brief.hasSuffix("."), long)
        }
        // What a first run needs is there.
        for long in ["header", "listen", "text", "until", "verbose", "help", "config"] {
            XCTAssertTrue(names.contains(long), long)
        }
    }

    func testNamesEveryCategoryAndAll() {
        let joined = lines.joined(separator: " ")
        for category in FlagCategory.allCases {
            XCTAssertTrue(joined.contains(category.name), category.name)
            XCTAssertTrue(flagTable.contains { $0.category == category }, "\(category) has no flag")
        }
        XCTAssertTrue(joined.contains("--help CATEGORY"))
        XCTAssertTrue(joined.contains(" or all"))
        XCTAssertEqual(HelpRenderer.topics, ["connection", "tls", "lines", "routing", "ending", "reconnect", "peer",
                                             "check", "server", "diagnostics", "general", "all"])
    }

    /// `--help CATEGORY`: the usage, then exactly that category's options with their whole help.
    func testACategoryShowsItsOptionsOnly() {
        for category in FlagCategory.allCases {
            let text = HelpRenderer.render(width: 80, topic: category.name)
            let synopses = text.split(separator: "\n")
                .filter { $0.hasPrefix("  -") || $0.hasPrefix("      --") }.map { String($0.drop { $0 == " " }) }
            XCTAssertEqual(synopses, flagTable.filter { $0.category == category }.map(\.synopsis), category.name)
            XCTAssertTrue(text.contains("\n" + category.heading + ":\n"), category.name)
            for flag in flagTable where flag.category == category {
                XCTAssertTrue(text.contains(flag.fullHelp.prefix(40)), flag.long)
            }
            XCTAssertTrue(text.hasPrefix("Usage: wspipe [OPTIONS] URL\n"))
            XCTAssertTrue(text.hasSuffix("Every option: wspipe --help all. Every detail: man wspipe.\n"))
        }
    }

    func testHelpTakesACategory() {
        XCTAssertEqual(parseOK(["--help", "tls"]).helpTopic, "tls")
        XCTAssertEqual(parseOK(["-h", "all"]).helpTopic, "all")
        XCTAssertEqual(parseOK(["--help=routing"]).helpTopic, "routing")
        XCTAssertTrue(parseOK(["-vh", "peer"]).showHelp)
        XCTAssertEqual(parseOK(["-vh", "peer"]).helpTopic, "peer")
        XCTAssertNil(parseOK(["--help"]).helpTopic)
        // What cannot be a category is not taken: the help is still shown.
        XCTAssertNil(parseOK(["--help", "ws://example.com/"]).helpTopic)
        XCTAssertNil(parseOK(["--help", "-v"]).helpTopic)
        assertUsageError(["--help", "conection"], "--help: invalid value 'conection' (choose one of: connection, tls, "
                         + "lines, routing, ending, reconnect, peer, check, server, diagnostics, general, all)")
        assertUsageError(["--help=bogus"], "--help: invalid value 'bogus' (choose one of: connection, tls, "
                         + "lines, routing, ending, reconnect, peer, check, server, diagnostics, general, all)")
    }
}
