import Foundation
import XCTest
@testable import WSCLI

/// The man page and the completion scripts (README, Install): generated from the flag
/// table, committed, and checked by the tools that read them.
///
/// `WSPIPE_REGENERATE=1 swift test --filter DocGeneratorTests` rewrites the
/// committed files from the renderers.
final class DocGeneratorTests: XCTestCase {
    /// The package root: this file is Tests/WSCLITests/DocGeneratorTests.swift.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let regenerate = ProcessInfo.processInfo.environment["WSPIPE_REGENERATE"] == "1"

    // MARK: The committed files

    func testCommittedFilesMatchTheRenderers() throws {
        for (kind, path) in DocGenerator.committedFiles {
            let rendered = try XCTUnwrap(DocGenerator.render(kind), kind)
            let url = Self.packageRoot.appendingPathComponent(path)
            if Self.regenerate {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
                try rendered.write(to: url, atomically: true, encoding: .utf8)
                continue
            }
            let committed = try? String(contentsOf: url, encoding: .utf8)
            XCTAssertNotNil(committed, "\(path) is missing; run WSPIPE_REGENERATE=1 swift test --filter DocGeneratorTests")
            if let committed, committed != rendered {
                XCTFail("\(path) differs from `wspipe --generate \(kind)` at line \(firstDifference(committed, rendered)); "
                        + "run WSPIPE_REGENERATE=1 swift test --filter DocGeneratorTests")
            }
        }
    }

    func testKinds() {
        XCTAssertEqual(DocGenerator.kinds, ["man", "bash", "zsh", "fish"])
        XCTAssertEqual(DocGenerator.committedFiles.map(\.kind), DocGenerator.kinds)
        for kind in DocGenerator.kinds {
            let text = DocGenerator.render(kind)
            XCTAssertNotNil(text, kind)
            XCTAssertEqual(text?.last, "\n", kind)
            XCTAssertFalse(text?.hasSuffix("\n\n") ?? true, kind)
        }
        for unknown in ["", "MAN", "html", "powershell", "man "] {
            XCTAssertNil(DocGenerator.render(unknown), unknown)
        }
    }

    func testRenderingIsDeterministic() {
        for kind in DocGenerator.kinds {
            XCTAssertEqual(DocGenerator.render(kind), DocGenerator.render(kind), kind)
        }
    }

    // MARK: The table the generators walk

    func testEveryFlagHasHelpAndEveryValueFlagAValueName() {
        for flag in flagTable {
            XCTAssertFalse(flag.help.isEmpty, "--\(flag.long) has no help")
            if let valueName = flag.valueName {
                XCTAssertFalse(valueName.trimmingCharacters(in: .whitespaces).isEmpty, "--\(flag.long): empty value name")
            }
        }
    }

    /// A flag declared as a switch that really needs a value would reject the
    /// empty value the parser gives switches.
    func testEverySwitchAcceptsBeingGivenWithoutAValue() {
        for flag in flagTable where !flag.takesValue {
            var options = Options()
            XCTAssertNoThrow(try flag.apply(&options, ""), "--\(flag.long) needs a value: give it a value name")
        }
    }

    func testNoTwoFlagsShareAName() {
        var longs: [String: Int] = [:]
        var shorts: [Character: Int] = [:]
        for flag in flagTable {
            longs[flag.long, default: 0] += 1
            if let short = flag.short { shorts[short, default: 0] += 1 }
        }
        XCTAssertEqual(longs.filter { $0.value > 1 }.keys.sorted(), [])
        XCTAssertEqual(shorts.filter { $0.value > 1 }.keys.sorted(), [])
        // No long name is a short name's spelling either ("-v" vs "--v").
        XCTAssertTrue(flagTable.allSatisfy { $0.long.count > 1 })
    }

    // MARK: Every flag of --help everywhere

    /// The long flags `--help` shows, read from its text (not from the table).
    private var longFlagsInHelp: [String] {
        var found: [String] = []
        for line in HelpRenderer.render(topic: "all").split(separator: "\n") {
            // Synopsis lines are indented 2 or 6; help text (which may start with a flag) 10.
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("-"), line.count - trimmed.count < HelpRenderer.helpIndent else { continue }
            for word in trimmed.split(separator: " ") where word.hasPrefix("--") {
                found.append(String(word.dropFirst(2).prefix { $0 != "," && $0 != "<" }))
            }
        }
        return found
    }

    /// The table in `--help` order: by category, table order within one.
    private var flagsInHelpOrder: [Flag] {
        FlagCategory.allCases.flatMap { category in flagTable.filter { $0.category == category } }
    }

    func testHelpListsEveryFlag() {
        XCTAssertEqual(longFlagsInHelp, flagsInHelpOrder.map(\.long))
    }

    func testEveryLongFlagOfHelpIsInTheManPageAndEveryScript() throws {
        let man = try XCTUnwrap(DocGenerator.render("man"))
        let bash = try XCTUnwrap(DocGenerator.render("bash"))
        let zsh = try XCTUnwrap(DocGenerator.render("zsh"))
        let fish = try XCTUnwrap(DocGenerator.render("fish"))
        XCTAssertGreaterThan(longFlagsInHelp.count, 50)
        for long in longFlagsInHelp {
            let roff = "\\fB\\-\\-" + long.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            XCTAssertTrue(man.contains("\n.TP\n" + roff) || man.contains(", " + roff), "man: --\(long)")
            XCTAssertTrue(bash.contains(" --\(long) ") || bash.contains(" --\(long)'") || bash.contains("|--\(long)")
                          || bash.contains(" --\(long)|"), "bash: --\(long)")
            XCTAssertTrue(zsh.contains("--\(long)[") || zsh.contains("--\(long)=["), "zsh: --\(long)")
            XCTAssertTrue(fish.contains(" -l \(long) "), "fish: --\(long)")
        }
    }

    // MARK: The man page

    private let man = ManPageRenderer.render()

    func testManPageSections() {
        let sections = man.split(separator: "\n").filter { $0.hasPrefix(".SH ") }.map { $0.dropFirst(4) }
        XCTAssertEqual(sections, ["NAME", "SYNOPSIS", "DESCRIPTION", "\"LINES AND MESSAGES\"", "\"ONE\\-SHOT EXCHANGES\"",
                                  "\"BINARY CODECS\"", "OPTIONS", "ROUTING",
                                  "\"RECONNECT AND REPLAY\"", "\"SCRIPTED PEER\"", "TEMPLATES", "\"CHECKING A SERVER\"",
                                  "SOCKET.IO", "\"INTERACTIVE MODE\"", "\"FROM THE BROWSER\"", "\"CONFIG FILES\"",
                                  "\"EXIT STATUS\"", "ENVIRONMENT", "FILES",
                                  "EXAMPLES", "\"SEE ALSO\""])
        XCTAssertTrue(man.hasPrefix(".\\\" Generated from the flag table by `wspipe --generate man`"))
        XCTAssertTrue(man.contains("\n.TH WSPIPE 1 \"\" \"wspipe \(wspipeVersion)\" \"User Commands\"\n"))
        XCTAssertTrue(man.contains("\n.SH NAME\nwspipe \\- "))
        XCTAssertTrue(man.contains("\n.SH SYNOPSIS\n.B wspipe\n[\\fIOPTIONS\\fR] \\fIURL\\fR\n.br\n.B wspipe\n"
                                   + "[\\fIOPTIONS\\fR] \\fB\\-\\-listen\\fR [\\fIHOST\\fR:]\\fIPORT\\fR[/\\fIPATH\\fR]\n"))
        XCTAssertTrue(man.hasSuffix(".SH \"SEE ALSO\"\n.BR websocat (1),\n.BR jq (1),\n.BR curl (1)\n"))
    }

    func testManOptionHeadingsAreTheHelpHeadings() {
        let help = HelpRenderer.render(width: 200, topic: "all").split(separator: "\n")
            .filter { $0.hasSuffix(":") && !$0.hasPrefix(" ") && $0 != "Exit status:" && $0 != "Examples:" }
            .map { String($0.dropLast()) }
        let subsections = man.split(separator: "\n").filter { $0.hasPrefix(".SS ") }
            .map { String($0.dropFirst(4)).replacingOccurrences(of: "\"", with: "") }
        XCTAssertEqual(subsections, help)
        XCTAssertTrue(subsections.contains("Routing"))
    }

    func testManOptionEntries() {
        XCTAssertTrue(man.contains("\n.TP\n\\fB\\-H\\fR, \\fB\\-\\-header\\fR \\fINAME: VALUE\\fR\n"
                                   + "Send this header with the handshake request; repeat for more headers.\n"))
        XCTAssertTrue(man.contains("\n.TP\n\\fB\\-\\-connect\\-timeout\\fR \\fIDURATION\\fR\n"
                                   + "Give up connecting (name lookup, TCP, TLS and handshake) after this long (default: 10s).\n"))
        XCTAssertTrue(man.contains("\n.TP\n\\fB\\-k\\fR, \\fB\\-\\-insecure\\fR\nSkip TLS"))
        XCTAssertTrue(man.contains("\n.TP\n\\fB\\-\\-tag\\fR\n"))
        XCTAssertTrue(man.contains("\nServer mode only: needs \\fB\\-\\-listen\\fR.\n"))
        XCTAssertTrue(man.contains("\nNeeds \\fB\\-\\-ack\\fR.\n"))
        XCTAssertTrue(man.contains("\nWith \\fB\\-\\-listen\\fR, needs \\fB\\-\\-key\\fR.\n"))
        XCTAssertTrue(man.contains("\nNot with \\fB\\-\\-strict\\fR.\n"))
        XCTAssertTrue(man.contains("\nClient mode only: refused with \\fB\\-\\-listen\\fR and \\fB\\-\\-check\\fR.\n"))
        XCTAssertTrue(man.contains("\nRefused with \\fB\\-\\-check\\fR, which would ignore it.\n"))
        // Option names inside help text are bold minus signs too.
        XCTAssertTrue(man.contains("replaced by its \\fB\\-\\-capture\\fR; repeat"))
    }

    /// A flag's long doc follows its entry: paragraphs at the entry's indent,
    /// lists nested in it. `--help` shows none of it.
    func testManOptionEntriesCarryTheirDocs() {
        XCTAssertGreaterThanOrEqual(flagTable.filter { !$0.doc.isEmpty }.count, 20)
        XCTAssertTrue(man.contains("\n.TP\n\\fB\\-\\-jitter\\fR \\fIFRACTION\\fR\n"
                                   + "Vary each reconnect delay at random by up to this fraction either way (default: 0.2).\n"
                                   + "Client mode and \\fB\\-\\-check\\fR only: refused with \\fB\\-\\-listen\\fR.\n"
                                   + ".IP\nWith 0.2, a delay of 10s becomes anything from 8s to 12s,"))
        XCTAssertTrue(man.contains("\n.IP\nDEST is one of:\n.RS\n.TP\n\\fBstdout, stderr\\fR\nThe standard streams.\n"))
        XCTAssertTrue(man.contains("\n.TP\n\\fBany other path\\fR\nA file, appended to, created if missing.\n.RE\n"))
        let help = HelpRenderer.render(topic: "all")
        for flag in flagTable {
            var tag = flag.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            tag += "\\fB\\-\\-" + flag.long.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            var tail = man[man.range(of: "\n.TP\n" + tag)!.upperBound...]
            if let next = tail.range(of: "\n.TP\n\\fB\\-") ?? tail.range(of: "\n.SH ") { tail = tail[..<next.lowerBound] }
            for block in flag.doc {
                guard case .paragraph(let text) = block else { continue }
                let first = Roff.sentences(text)[0]
                XCTAssertTrue(tail.contains(".IP\n" + Roff.line(Roff.prose(first))), "--\(flag.long): \(first)")
                XCTAssertFalse(help.contains(first.prefix(30)), "--\(flag.long): doc in --help")
            }
        }
    }

    /// Every entry carries the flag's whole help with its default, in `--help` order.
    func testManOptionsFollowTheTable() {
        var position = man.startIndex
        for flag in flagsInHelpOrder {
            var tag = flag.short.map { "\\fB\\-\($0)\\fR, " } ?? ""
            tag += "\\fB\\-\\-" + flag.long.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            if let valueName = flag.valueName { tag += " \\fI" + Roff.literal(valueName) + "\\fR" }
            let entry = ".TP\n" + tag + "\n" + Roff.line(Roff.prose(flag.fullHelp)) + "\n"
            guard let found = man.range(of: entry, range: position..<man.endIndex) else {
                XCTFail("--\(flag.long) missing or out of order: \(entry)"); continue
            }
            position = found.upperBound
        }
    }

    func testManExitStatusFromTheHelpTable() {
        for (code, meaning) in HelpRenderer.exitStatuses {
            let text = meaning.prefix(1).uppercased() + meaning.dropFirst() + "."
            XCTAssertTrue(man.contains("\n.TP\n\\fB\(code)\\fR\n\(text)\n"), "exit \(code)")
        }
    }

    func testManEnvironmentAndExamples() {
        XCTAssertTrue(man.contains("\\fBNO_COLOR\\fR"))
        XCTAssertTrue(man.contains("\\fBhttp_proxy, https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY\\fR"))
        XCTAssertTrue(man.contains("\\fBno_proxy, NO_PROXY\\fR"))
        for needed in ["\\-\\-on\\-reconnect", "\\-\\-capture SID=session.id", "\\-\\-ack sequence",
                       "\\-\\-listen 127.0.0.1:8080/ws", "\\-\\-header\\-file", "jq \\-c", "wss://chat"] {
            XCTAssertTrue(man.contains(needed), needed)
        }
        // Examples are literal: apostrophes and backslashes survive copying.
        XCTAssertTrue(man.contains("printf \\(aqAuthorization: Bearer %s\\en\\(aq"))
    }

    /// The prose names only real flags (a renamed flag cannot leave a stale
    /// mention). Examples are skipped: they also name jq's options.
    func testEveryOptionTheManPageNamesExists() {
        // --print is wspipe curl's own option (FROM THE BROWSER).
        let known = Set(flagTable.map(\.long) + ["print"])
        var inExample = false
        var prose = ""
        for line in man.split(separator: "\n") {
            if line == ".EX" { inExample = true } else if line == ".EE" { inExample = false }
            if !inExample { prose += line + "\n" }
        }
        XCTAssertTrue(prose.contains("\\fB\\-\\-route\\-errors\\fR"))
        var index = prose.startIndex
        while let found = prose.range(of: "\\-\\-", range: index..<prose.endIndex) {
            var name = ""
            var rest = prose[found.upperBound...]
            while true {
                if let first = rest.first, first.isLetter || first.isNumber {
                    name.append(first); rest = rest.dropFirst()
                } else if rest.hasPrefix("\\-") {
                    name.append("-"); rest = rest.dropFirst(2)
                } else {
                    break
                }
            }
            if !name.isEmpty { XCTAssertTrue(known.contains(name), "man page names unknown --\(name)") }
            index = found.upperBound
        }
    }

    func testManLinesNeverStartARequestByAccident() {
        let requests: Set<String> = ["TH", "SH", "SS", "PP", "TP", "IP", "RS", "RE", "EX", "EE", "B", "BR", "br", "\\\""]
        for line in man.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
            let name = line.dropFirst().prefix { $0 != " " }
            XCTAssertTrue(requests.contains(String(name)), "unexpected request: \(line)")
        }
    }

    // MARK: Roff escaping

    func testRoffEscapesSpecials() {
        XCTAssertEqual(Roff.literal("a\\b"), "a\\eb")
        XCTAssertEqual(Roff.literal("--x-y"), "\\-\\-x\\-y")
        XCTAssertEqual(Roff.literal("it's `x` ^ ~"), "it\\(aqs \\(gax\\(ga \\(ha \\(ti")
        XCTAssertEqual(Roff.line(".hidden"), "\\&.hidden")
        XCTAssertEqual(Roff.line(" lead"), "\\& lead")
        XCTAssertEqual(Roff.line("plain"), "plain")
        XCTAssertEqual(Roff.argument(""), "\"\"")
        XCTAssertEqual(Roff.argument("Server mode"), "\"Server mode\"")
        XCTAssertEqual(Roff.argument("say \"hi\""), "\"say \\(dqhi\\(dq\"")
        XCTAssertEqual(Roff.bold("--a"), "\\fB\\-\\-a\\fR")
        XCTAssertEqual(Roff.italic("N"), "\\fIN\\fR")
    }

    func testRoffProseSetsOptionNamesInBold() {
        XCTAssertEqual(Roff.prose("use --route-errors, or -v."),
                       "use \\fB\\-\\-route\\-errors\\fR, or \\fB\\-v\\fR.")
        XCTAssertEqual(Roff.prose("(-1/--one-message)"), "(\\fB\\-1\\fR/\\fB\\-\\-one\\-message\\fR)")
        XCTAssertEqual(Roff.prose("and -- ends"), "and \\fB\\-\\-\\fR ends")
        // Hyphens inside words and numbers stay hyphens.
        XCTAssertEqual(Roff.prose("on-connect 0-1 x -"), "on-connect 0-1 x -")
        XCTAssertEqual(Roff.prose("a \\ b"), "a \\e b")
        XCTAssertEqual(Roff.prose("[OPTIONS] URL", italicCapitals: true), "[\\fIOPTIONS\\fR] \\fIURL\\fR")
    }

    func testRoffJSONInProseIsNotHyphenated() {
        XCTAssertEqual(Roff.prose("as {\"a\":1} or {x"), "as \\%{\"a\":1} or \\%{x")
        XCTAssertEqual(Roff.prose("{\"a\":1}, then"), "\\%{\"a\":1}, then")
        XCTAssertEqual(Roff.prose("${NAME}"), "${NAME}")
    }

    func testRoffPageNestsParagraphsAndItems() {
        var page = RoffPage()
        page.tagged(Roff.bold("--x"))
        page.text("Does x.")
        page.indentedParagraph("More\nabout x. Then -y.")
        page.nestedItems([("a", "First."), (".b", "Second.")])
        XCTAssertEqual(page.text, ".TP\n\\fB\\-\\-x\\fR\nDoes x.\n.IP\nMore about x.\nThen \\fB\\-y\\fR.\n"
                       + ".RS\n.TP\n\\fBa\\fR\nFirst.\n.TP\n\\fB.b\\fR\nSecond.\n.RE\n")
    }

    func testRoffOneSentenceALine() {
        XCTAssertEqual(Roff.sentences("One. Two, 1.5m. --three. four. 2s."), ["One.", "Two, 1.5m.", "--three. four. 2s."])
        XCTAssertEqual(Roff.sentences(""), [])
        XCTAssertTrue(man.contains(" status 6.\n\\fB\\-\\-lenient\\fR sends such a line as raw text instead;"))
    }

    func testManEscapesAFlagTableWithSpecials() {
        let odd = Flag(long: "odd", valueName: "A\\B", help: ".leading dot, back\\slash, 'quotes' and --odd.",
                       category: .general, apply: { _, _ in })
        let page = ManPageRenderer.render([odd])
        XCTAssertTrue(page.contains("\n.TP\n\\fB\\-\\-odd\\fR \\fIA\\eB\\fR\n"
                                    + "\\&.leading dot, back\\eslash, \\(aqquotes\\(aq and \\fB\\-\\-odd\\fR.\n"))
    }

    func testGroffPrintsNoWarning() throws {
        let groff = try tool("groff")
        let file = try temporaryFile(man, name: "wspipe.1")
        let result = try run(groff, ["-man", "-Tutf8", "-ww", "-z", file.path])
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.status, 0)
        // And renders every section heading.
        let rendered = try run(groff, ["-man", "-Tutf8", "-ww", "-P-cbu", file.path])
        XCTAssertEqual(rendered.stderr, "")
        for heading in ["NAME", "SYNOPSIS", "OPTIONS", "ROUTING", "EXIT STATUS", "SEE ALSO"] {
            XCTAssertTrue(rendered.stdout.contains("\n" + heading + "\n"), heading)
        }
    }

    // MARK: bash

    private let bash = BashCompletionRenderer.render()

    func testBashScriptShape() {
        XCTAssertTrue(bash.hasSuffix("\ncomplete -F _wspipe wspipe\n"))
        XCTAssertTrue(bash.contains("\n        --binary-output)\n            mapfile -t COMPREPLY < <(compgen -W 'raw base64 drop' -- \"$cur\")\n"))
        XCTAssertTrue(bash.contains("--header-file|--proxy-user-file|--unix-socket|--cookie|-c|--cookie-jar|--user-file|--cacert|--cert|--key|--keylog|--on-connect-file|--record|--replay|--check|--junit|-K|--config)\n            compopt -o filenames"))
    }

    func testBashSyntax() throws {
        let shell = try tool("bash")
        let file = try temporaryFile(bash, name: "wspipe.bash")
        let result = try run(shell, ["-n", file.path])
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.status, 0)
    }

    /// Runs the completion function the way bash does for `words` (the last
    /// being completed) and returns the replies.
    private func bashComplete(_ words: [String], in directory: URL? = nil, prelude: String = "") throws -> [String] {
        let shell = try tool("bash")
        let file = try temporaryFile(bash, name: "wspipe.bash")
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let script = prelude + "source '\(file.path)'\n"
            + (directory.map { "cd '\($0.path)'\n" } ?? "")
            + "COMP_WORDS=(wspipe \(quoted)); COMP_CWORD=\(words.count)\n"
            + "_wspipe\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
        let result = try run(shell, ["-c", script])
        XCTAssertEqual(result.stderr, "")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testBashCompletesOptionsChoicesAndFiles() throws {
        XCTAssertEqual(try bashComplete(["--head"]), ["--header", "--header-file", "--header-command"])
        XCTAssertEqual(try bashComplete(["--route"]), ["--route", "--route-errors"])
        XCTAssertEqual(try bashComplete(["--binary-output", ""]), ["raw", "base64", "drop"])
        XCTAssertEqual(try bashComplete(["--generate", "z"]), ["zsh"])
        XCTAssertEqual(try bashComplete(["--route-errors", "=", "i"]), ["ignore"])
        XCTAssertEqual(try bashComplete(["--route-errors", "="]), ["report", "ignore"])
        XCTAssertEqual(try bashComplete(["--route-errors=r"]), ["--route-errors=report"])
        XCTAssertEqual(try bashComplete(["-H", ""]), [])
        XCTAssertEqual(try bashComplete(["--origin", "--"]), [])
        XCTAssertEqual(try bashComplete(["--", "--he"]), [])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wspipe-bash-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("ca.pem"))
        XCTAssertEqual(try bashComplete(["--cacert", "c"], in: directory), ["ca.pem"])
        XCTAssertEqual(try bashComplete(["--key", "x"], in: directory), [])
    }

    /// `curl` first, then curl's options (files after those naming one), wspipe's after "--".
    func testBashCompletesTheCurlCommand() throws {
        XCTAssertEqual(try bashComplete(["cu"]), ["curl"])
        XCTAssertEqual(try bashComplete(["curl", "--compr"]), ["--compressed"])
        XCTAssertEqual(Set(try bashComplete(["curl", "--pr"])), ["--proxy", "--proxy-user", "--print"])
        XCTAssertEqual(try bashComplete(["curl", "-H", ""]), [])
        XCTAssertEqual(try bashComplete(["curl", "wss://h/", "--", "--no-rec"]), ["--no-reconnect"])
        XCTAssertEqual(try bashComplete(["curl", "wss://h/", "--no-rec"]), [], "not wspipe's before --")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wspipe-bash-curl-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data().write(to: directory.appendingPathComponent("ca.pem"))
        XCTAssertEqual(try bashComplete(["curl", "--cacert", "c"], in: directory), ["ca.pem"])
    }

    /// --profile: the sections of the default config file and of the -K files given.
    func testBashCompletesProfiles() throws {
        let config = try temporaryFile("backoff 1s\n[staging]\nurl = wss://s/\n  [prod.eu] \n[bad name]\n", name: "config")
        let other = try temporaryFile("[qa]\n", name: "other")
        let prelude = "export WSPIPE_CONFIG='\(config.path)'\n"
        XCTAssertEqual(try bashComplete(["--profile", ""], prelude: prelude), ["staging", "prod.eu"])
        XCTAssertEqual(try bashComplete(["--profile", "p"], prelude: prelude), ["prod.eu"])
        XCTAssertEqual(try bashComplete(["-K", other.path, "--profile", ""], prelude: prelude), ["staging", "prod.eu", "qa"])
        XCTAssertEqual(try bashComplete(["--profile", ""], prelude: "export WSPIPE_CONFIG=\n"), [])
        XCTAssertEqual(try bashComplete(["--help", "t"]), ["tls"])
    }

    // MARK: zsh

    private let zsh = ZshCompletionRenderer.render()

    func testZshScriptShape() {
        XCTAssertTrue(zsh.hasPrefix("#compdef wspipe\n"))
        XCTAssertTrue(zsh.contains("\n_arguments -s -S : $args\n"))
        XCTAssertTrue(zsh.contains("\n  '*-H+[Send this header with the handshake request; repeat for more headers]:NAME\\: VALUE: '\n"))
        XCTAssertTrue(zsh.contains("\n  '(--header-file)--header-file=[Read handshake headers from FILE, one '\\''Name: value'\\'' a line (keeps secrets out of ps)]:FILE:_files'\n"))
        XCTAssertTrue(zsh.contains("--binary-output=[How raw line mode writes incoming binary messages]:raw|base64|drop:(raw base64 drop)'"))
        XCTAssertTrue(zsh.contains("\n  '(-t --text -b --binary --tag --socketio --codec)-t[Raw line mode"))
        XCTAssertTrue(zsh.contains("\n  '(-k --insecure)-k[Skip TLS certificate and hostname verification]'\n"))
        XCTAssertTrue(zsh.contains("\n  '(--listen)--listen=[Accept WebSocket clients on this address (a bare PORT is 127.0.0.1 only; 0.0.0.0:PORT for every interface), or on the Unix-domain socket unix:PATH (removed at exit), instead of connecting to a URL]:[HOST\\:]PORT[/PATH]: '\n"))
    }

    func testZshEscaping() {
        XCTAssertEqual(ZshCompletionRenderer.escapeDescription("a [b] \\ c: d"), "a \\[b\\] \\\\ c: d")
        XCTAssertEqual(ZshCompletionRenderer.escapeMessage("NAME: VALUE"), "NAME\\: VALUE")
        XCTAssertEqual(ZshCompletionRenderer.quote("it's"), "'it'\\''s'")
        XCTAssertEqual(ZshCompletionRenderer.action(.choices(["a b", "c"])), "(a\\ b c)")
    }

    func testZshSyntax() throws {
        let shell = try tool("zsh")
        let file = try temporaryFile(zsh, name: "_wspipe")
        let result = try run(shell, ["-n", file.path])
        XCTAssertEqual(result.stderr, "")
        XCTAssertEqual(result.status, 0)
    }

    // MARK: fish

    private let fish = FishCompletionRenderer.render()

    func testFishScriptShape() {
        XCTAssertTrue(fish.contains("\ncomplete -c wspipe -f\n"))
        let wspipe = "complete -c wspipe -n 'not __wspipe_curl_words'"
        XCTAssertTrue(fish.contains("\n\(wspipe) -s 'H' -l header -r -f -d 'Send this header with the handshake request; repeat for more headers'\n"))
        XCTAssertTrue(fish.contains("\n\(wspipe) -l cacert -r -F -d "))
        XCTAssertTrue(fish.contains("\n\(wspipe) -l binary-output -r -f -a 'raw base64 drop' -d "))
        XCTAssertTrue(fish.contains("\n\(wspipe) -s 'k' -l insecure -d 'Skip TLS certificate and hostname verification'\n"))
        XCTAssertTrue(fish.contains("\n\(wspipe) -l profile -r -f -a '(__wspipe_profiles)' -d "))
        XCTAssertTrue(fish.contains("\ncomplete -c wspipe -n __wspipe_curl_words -s 'b' -l cookie -r -F -d "))
        XCTAssertEqual(FishCompletionRenderer.quote("it's a \\"), "'it\\'s a \\\\'")
    }

    func testFishSyntaxAndCompletions() throws {
        let shell = try tool("fish")
        let file = try temporaryFile(fish, name: "wspipe.fish")
        let syntax = try run(shell, ["-n", file.path])
        XCTAssertEqual(syntax.stderr, "")
        XCTAssertEqual(syntax.status, 0)
        func complete(_ line: String) throws -> [String] {
            let result = try run(shell, ["--no-config", "-c", "source '\(file.path)'; complete -C '\(line)'"])
            XCTAssertEqual(result.stderr, "")
            return result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }
        }
        XCTAssertEqual(Set(try complete("wspipe --binary-output ")), ["raw", "base64", "drop"])
        XCTAssertEqual(Set(try complete("wspipe --generate=")), ["--generate=man", "--generate=bash", "--generate=zsh",
                                                                  "--generate=fish"])
        XCTAssertEqual(Set(try complete("wspipe --route")), ["--route", "--route-errors"])
        XCTAssertTrue(try complete("wspipe cu").contains("curl"))
        XCTAssertEqual(Set(try complete("wspipe curl --compr")), ["--compressed"])
        XCTAssertEqual(Set(try complete("wspipe curl wss://h/ -- --no-rec")), ["--no-reconnect"])
        XCTAssertEqual(Set(try complete("wspipe curl wss://h/ --no-rec")), [])
        let config = try temporaryFile("[staging]\n[prod]\n", name: "config")
        let result = try run(shell, ["--no-config", "-c", "source '\(file.path)'; complete -C 'wspipe --profile '"],
                             environment: ["WSPIPE_CONFIG": config.path])
        XCTAssertEqual(Set(result.stdout.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) }), ["staging", "prod"])
    }

    // MARK: Helpers

    /// The executable `name` from PATH, or a skip when it is not installed.
    private func tool(_ name: String) throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw XCTSkip("\(name) is not installed")
    }

    private func temporaryFile(_ text: String, name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("wspipe-docs-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent(name)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file
    }

    private func run(_ executable: URL, _ arguments: [String],
                     environment: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, new in new }
        process.environment = env
        // Files rather than pipes: neither stream can fill up and block the child.
        let outFile = try temporaryFile("", name: "stdout")
        let errFile = try temporaryFile("", name: "stderr")
        let out = try FileHandle(forWritingTo: outFile)
        let err = try FileHandle(forWritingTo: errFile)
        defer { try? out.close(); try? err.close() }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let stdout = try String(contentsOf: outFile, encoding: .utf8)
        let stderr = try String(contentsOf: errFile, encoding: .utf8)
        return (process.terminationStatus, stdout, stderr)
    }

    private func firstDifference(_ a: String, _ b: String) -> Int {
        let left = a.split(separator: "\n", omittingEmptySubsequences: false)
        let right = b.split(separator: "\n", omittingEmptySubsequences: false)
        for index in 0..<min(left.count, right.count) where left[index] != right[index] { return index + 1 }
        return min(left.count, right.count) + 1
    }
}
