import XCTest
@testable import WSCLI

final class FlagTableTests: XCTestCase {
    func testTableIsSound() {
        XCTAssertEqual(FlagTable.validate(), [])
    }

    func testTheFlagSetOfThisRelease() {
        let longs = Set(flagTable.map(\.long))
        let expected: Set<String> = [
            "help", "version", "verbose", "quiet",
            "header", "header-file", "origin", "user-agent", "protocol", "connect-timeout", "max-message-size",
            "proxy", "proxy-user", "proxy-user-file", "noproxy", "unix-socket", "compress",
            "insecure", "cacert", "cert", "key",
            "text", "binary", "nul", "no-line", "binary-output", "codec", "lenient", "strict", "interactive",
            "history-size", "no-status-line",
            "no-close", "one-message", "max-messages", "unidirectional", "unidirectional-reverse", "close-timeout",
            "linger",
            "listen", "once",
            "ping-interval", "ping-timeout", "backoff", "jitter", "max-retries", "no-reconnect", "wait",
            "queue-limit", "on-connect", "on-connect-file", "on-reconnect", "capture", "ack", "ack-timeout",
            "events", "stats", "trace",
            "type-key", "route", "route-errors", "tag", "send-timeout", "generate",
            "max-clients", "max-programs", "allow-origin", "relay", "exec", "until", "idle-timeout", "close-code", "rate", "header-command",
            "location", "max-redirs", "location-downgrade", "cookie", "cookie-jar", "user", "user-file", "ipv4", "ipv6",
            "write-out",
            "reply", "reply-match",
            "answer", "heartbeat", "heartbeat-interval", "heartbeat-timeout", "wrap", "record", "replay", "replay-speed",
            "check", "check-timeout", "check-settle", "ignore", "check-order", "allow-extra", "junit", "repeat",
            "max-reply-p99", "har-credentials",
            "config", "no-config", "profile", "keylog",
            "socketio", "namespace", "sio-auth",
        ]
        XCTAssertEqual(longs, expected)
        let shorts = Dictionary(uniqueKeysWithValues: flagTable.compactMap { f in f.short.map { ($0, f.long) } })
        XCTAssertEqual(shorts, [
            "h": "help", "V": "version", "v": "verbose", "q": "quiet", "H": "header", "k": "insecure",
            "t": "text", "b": "binary", "0": "nul", "n": "no-close", "1": "one-message",
            "u": "unidirectional", "U": "unidirectional-reverse", "i": "interactive",
            // curl's: -b and -u stay websocat's (--binary, --unidirectional).
            "L": "location", "c": "cookie-jar", "w": "write-out", "4": "ipv4", "6": "ipv6", "K": "config",
        ])
    }

    func testCompletionKinds() {
        let files = ["header-file", "unix-socket", "cacert", "cert", "key", "on-connect-file", "proxy-user-file", "cookie",
                     "cookie-jar", "user-file", "record", "replay", "check", "junit", "keylog", "config"]
        for name in files {
            XCTAssertEqual(FlagTable.flag(long: name)?.completion, .file, name)
        }
        XCTAssertEqual(flagTable.filter { $0.completion == .file }.count, files.count)
        XCTAssertEqual(FlagTable.flag(long: "route-errors")?.completion, .choices(["report", "ignore"]))
        XCTAssertEqual(FlagTable.flag(long: "generate")?.completion, .choices(["man", "bash", "zsh", "fish"]))
        for name in ["type-key", "route", "send-timeout"] {
            XCTAssertEqual(FlagTable.flag(long: name)?.completion, CompletionKind.none, name)
        }
        XCTAssertEqual(FlagTable.flag(long: "binary-output")?.completion, .choices(["raw", "base64", "drop"]))
        XCTAssertEqual(FlagTable.flag(long: "origin")?.completion, CompletionKind.none)
        XCTAssertEqual(FlagTable.flag(long: "profile")?.completion, .profiles)
    }

    func testRepeatableFlags() {
        XCTAssertEqual(Set(flagTable.filter(\.repeatable).map(\.long)),
                       ["header", "protocol", "verbose", "on-connect", "on-reconnect", "capture", "route",
                        "allow-origin", "answer", "check", "ignore", "allow-extra", "config", "namespace"])
    }

    func testLookups() {
        XCTAssertEqual(FlagTable.flag(short: "H")?.long, "header")
        XCTAssertNil(FlagTable.flag(short: "Z"))
        XCTAssertNil(FlagTable.flag(long: "nope"))
        XCTAssertEqual(FlagTable.flag(long: "header")?.valueName, "NAME: VALUE")
    }

    // The validator must catch each kind of mistake, or an empty result above proves nothing.

    private func sample(_ long: String, short: Character? = nil, valueName: String? = nil,
                        help: String = "Does a thing.", completion: CompletionKind = .none,
                        defaultValue: String? = nil, defaultNote: String? = nil, repeatable: Bool = false,
                        rules: [FlagRule] = [], modes: FlagModes? = .all, doc: [DocBlock] = []) -> Flag {
        Flag(long: long, short: short, valueName: valueName, help: help, category: .general,
             completion: completion, defaultValue: defaultValue, defaultNote: defaultNote, repeatable: repeatable,
             rules: rules, modes: modes, doc: doc, apply: { _, _ in })
    }

    func testValidatorAcceptsAGoodTable() {
        XCTAssertEqual(FlagTable.validate([sample("a-b", short: "a"), sample("c", valueName: "N", defaultValue: "1")]), [])
    }

    func testValidatorFindsDuplicates() {
        XCTAssertEqual(FlagTable.validate([sample("same"), sample("same")]), ["--same: duplicate long name"])
        XCTAssertEqual(FlagTable.validate([sample("a", short: "x"), sample("b", short: "x")]),
                       ["--b: duplicate short name -x"])
    }

    func testValidatorFindsValueNameProblems() {
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "")]), ["--a: empty value name"])
        XCTAssertEqual(FlagTable.validate([sample("a", defaultValue: "1")]), ["--a: switch with a default value"])
        XCTAssertEqual(FlagTable.validate([sample("a", defaultNote: "x")]), ["--a: switch with a default value"])
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "N", defaultValue: "1", defaultNote: "one")]),
                       ["--a: both a default value and a default note"])
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "N", help: "Repeat it.", defaultValue: "1",
                                                  repeatable: true)]),
                       ["--a: repeatable with a default value (given values would add to it)"])
        XCTAssertEqual(FlagTable.validate([sample("a", completion: .file)]), ["--a: switch with a completion"])
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "X", completion: .choices(["p", "q"]))]),
                       ["--a: value name must list the choices"])
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "p|q", completion: .choices(["p", "q"]),
                                                  defaultValue: "r")]),
                       ["--a: default is not one of the choices"])
    }

    func testValidatorFindsHelpProblems() {
        XCTAssertEqual(FlagTable.validate([sample("a", help: "")]), ["--a: empty help"])
        XCTAssertEqual(FlagTable.validate([sample("a", valueName: "N", help: "Does N things (default: 3).")]),
                       ["--a: help states a default (set defaultValue instead)"])
        XCTAssertEqual(FlagTable.validate([sample("a", help: "No period")]), ["--a: help must end with '.'"])
        XCTAssertEqual(FlagTable.validate([sample("a", repeatable: true)]),
                       ["--a: repeatable but the help does not say so"])
    }

    func testValidatorFindsDocProblems() {
        XCTAssertEqual(FlagTable.validate([sample("a", doc: ["Ends well.", "Introduces:", .list([DocItem("x", "Y.")])])]),
                       [])
        XCTAssertEqual(FlagTable.validate([sample("a", doc: ["no end"])]), ["--a: doc paragraph must end with '.' or ':'"])
        XCTAssertEqual(FlagTable.validate([sample("a", doc: [.list([])])]), ["--a: empty doc list"])
        XCTAssertEqual(FlagTable.validate([sample("a", doc: [.list([DocItem("", "Y."), DocItem("x", "y")])])]), [
            "--a: doc list item '' needs a term and a text ending with '.'",
            "--a: doc list item 'x' needs a term and a text ending with '.'",
        ])
    }

    func testValidatorFindsBadNames() {
        for bad in ["", "Upper", "-lead", "trail-", "double--dash", "sp ace", "1digit"] {
            XCTAssertEqual(FlagTable.validate([sample(bad)]), ["--\(bad): malformed long name"], bad)
        }
        XCTAssertEqual(FlagTable.validate([sample("a", short: "-")]), ["--a: unusable short name"])
    }

    func testValidatorFindsBadCrossReferences() {
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.conflicts("zzz")])]),
                       ["--a: conflicts with unknown flag --zzz"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.conflicts("b")]), sample("b")]),
                       ["--a: conflict with --b not listed both ways"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.requires("zzz")])]),
                       ["--a: requires unknown flag --zzz"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.requiresInServerMode("zzz")])]),
                       ["--a: requires unknown flag --zzz"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.requires("listen")]), sample("listen")]),
                       ["--a: requires --listen (use .serverOnly)"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.clientOnly, .serverOnly], modes: nil)]),
                       ["--a: client-only with a server-mode rule"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.clientOnly, .requiresInServerMode("b")], modes: nil),
                                           sample("b")]),
                       ["--a: client-only with a server-mode rule"])
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.requiresInServerMode("b")], modes: .clients), sample("b")]),
                       ["--a: client-only with a server-mode rule"])
    }

    /// A flag names its modes once: in `modes`, or as the rule that stands for them.
    func testValidatorFindsModesSaidTwiceOrNone() {
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.clientOnly], modes: .clients)]),
                       ["--a: modes given twice (modes and .clientOnly/.serverOnly)"])
        XCTAssertEqual(FlagTable.validate([sample("a", modes: [])]), ["--a: works in no mode"])
        XCTAssertEqual(sample("a", modes: nil).modes, .clients, "the default: refused with --listen")
        XCTAssertEqual(sample("a", rules: [.serverOnly], modes: nil).modes, .servers)
        XCTAssertEqual(FlagTable.validate([sample("a", rules: [.conflicts("b"), .requires("c")]),
                                           sample("b", rules: [.conflicts("a")]), sample("c")]), [])
    }
}
