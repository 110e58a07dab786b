import WSBridge
import XCTest
@testable import WSCLI
@testable import WSConsole
@testable import WSConnect

/// Every default lives in the flag table: the parser applies it, `Options()`
/// holds none of its own, and each default `--help` shows is a value its flag
/// accepts that means the same as not giving the flag.
final class DefaultsTests: XCTestCase {
    /// Everything an `Options` holds, field by field (it has tuples, so it is not Equatable).
    private func describe(_ options: Options) -> String { String(describing: options) }

    /// A command line the flag can be given on: `--listen` for server-mode
    /// flags, a URL otherwise, and the flags it requires.
    private func base(for flag: Flag) -> [String] {
        let samples = ["ack": "seq", "ping-interval": "1s", "cert": "c.pem", "key": "k.pem"]
        var args = flag.serverOnly ? ["--listen", "8080"] : flag.modes == .interactive ? ["-i", url]
            : flag.modes == .check ? ["--check", "recording.ndjson"] : [url]
        for case .requires(let other) in flag.rules {
            args += ["--" + other]
            if FlagTable.flag(long: other)?.takesValue == true { args.append(samples[other] ?? "x") }
        }
        return args
    }

    func testEveryDocumentedDefaultParsesToTheDefault() {
        let defaulted = flagTable.filter { $0.defaultValue != nil }
        XCTAssertGreaterThanOrEqual(defaulted.count, 14)
        for flag in defaulted {
            let value = flag.defaultValue!
            let args = base(for: flag)
            let expected = describe(parseOK(args))
            XCTAssertEqual(describe(parseOK(["--" + flag.long, value] + args)), expected, "--\(flag.long) \(value)")
            XCTAssertEqual(describe(parseOK(args + ["--\(flag.long)=\(value)"])), expected, "--\(flag.long)=\(value)")
        }
    }

    /// The check above proves something: a value other than the default changes the options.
    func testTheComparisonSeesADifferentValue() {
        XCTAssertNotEqual(describe(parseOK(["--connect-timeout", "11s", url])), describe(parseOK([url])))
        XCTAssertNotEqual(describe(parseOK(["--backoff", "1s:30s:3", url])), describe(parseOK([url])))
    }

    func testParsingNothingGivesTheTableDefaults() {
        var defaults = ArgumentParser.defaults
        defaults.url = url
        XCTAssertEqual(describe(parseOK([url])), describe(defaults))
        let o = parseOK([url])
        XCTAssertEqual(o.connectTimeoutNanos, 10_000_000_000)
        XCTAssertEqual(o.userAgent, "wspipe/" + wspipeVersion)
        XCTAssertEqual(o.typeKey, ["type"])
        XCTAssertEqual(o.jitter, 0.2)
        XCTAssertNil(o.pingIntervalNanos)
        XCTAssertNil(o.maxRetries)
    }

    /// A literal default in `Options` would be a second source the table
    /// could disagree with: every field is nil, false, zero or empty. Enums
    /// have no such value: `lineFormat` is JSON, the mode without -t or -b,
    /// and `binaryOutput` is always set from the table.
    func testOptionsHoldNoDefaultsOfTheirOwn() {
        let enums: Set<String> = ["lineFormat", "binaryOutput"]
        let fields = Mirror(reflecting: Options()).children
        XCTAssertGreaterThan(fields.count, 40)
        for field in fields {
            let label = field.label ?? "?"
            if enums.contains(label) { continue }
            XCTAssertTrue(isNeutral(field.value),
                          "Options.\(label) = \(field.value): write the default in the flag table instead")
        }
        XCTAssertEqual(Options().lineFormat, .json)
    }

    /// Nor do the bridge's option structs, which `Plan` fills from `Options`
    /// (PlanTests checks that it sets every field a flag controls): a literal
    /// there would be a copy of the table's default. The exceptions are not
    /// defaults of a flag: enums, the newline that -0 and --no-line change,
    /// reconnecting unless --no-reconnect.
    func testTheBridgeStructsHoldNoDefaultsOfTheirOwn() throws {
        let url = try WebSocketURL(parsing: "ws://example.com/")
        let structs: [(name: String, value: Any, exempt: Set<String>)] = [
            ("BridgeOptions", BridgeOptions(), ["format", "binaryOutput", "closeCode", "separator"]),
            ("SessionPolicy", SessionPolicy(), ["reconnect", "backoff"]),
            ("BackoffPolicy", BackoffPolicy(), []),
            ("ClientOptions", ClientOptions(url: url), ["url", "route", "tls", "family", "redirects"]),
            ("RedirectOptions", RedirectOptions(), []),
            // The handshake's time limit is no flag's.
            ("ServerOptions", ServerOptions(address: ListenAddress(parsing: "8080")!),
             ["address", "handshakeTimeoutNanos"]),
        ]
        for (name, value, exempt) in structs {
            for field in Mirror(reflecting: value).children where !exempt.contains(field.label ?? "?") {
                XCTAssertTrue(isNeutral(field.value),
                              "\(name).\(field.label ?? "?") = \(field.value): the default belongs in the flag table")
            }
        }
        XCTAssertEqual(InteractiveConsole.Options().maxMessageSize, 0, "--max-message-size")
    }

    private func isNeutral(_ value: Any) -> Bool {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional || mirror.displayStyle == .collection { return mirror.children.isEmpty }
        // A nested option struct (BridgeOptions.script) is neutral when each of its fields is.
        if mirror.displayStyle == .struct { return mirror.children.allSatisfy { isNeutral($0.value) } }
        switch value {
        case let flag as Bool: return !flag
        case let number as Int: return number == 0
        case let number as Int64: return number == 0
        case let number as Double: return number == 0
        case let text as String: return text.isEmpty
        default: return false
        }
    }

    func testNeutralityCheckCatchesALiteralDefault() {
        XCTAssertFalse(isNeutral(Int64(10_000_000_000)))
        XCTAssertFalse(isNeutral(["type"]))
        XCTAssertFalse(isNeutral(Optional(3) as Any))
        XCTAssertFalse(isNeutral(true))
        XCTAssertTrue(isNeutral(Optional<Int>.none as Any))
        XCTAssertTrue(isNeutral([(name: String, value: String)]()))
    }
}
