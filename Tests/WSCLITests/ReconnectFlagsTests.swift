import XCTest
@testable import WSCLI

/// The keepalive, reconnect, queue, replay and ack flags (wspipe(1): RECONNECT AND REPLAY) and
/// --events/--stats (wspipe(1): OPTIONS, Diagnostics): values stored, defaults, every error text.
final class ReconnectFlagsTests: XCTestCase {
    // MARK: Defaults

    func testDefaultsWithOnlyAURL() {
        let o = parseOK([url])
        XCTAssertNil(o.pingIntervalNanos)
        XCTAssertNil(o.pingTimeoutNanos)
        XCTAssertEqual(o.backoffMinNanos, 1_000_000_000)
        XCTAssertEqual(o.backoffMaxNanos, 30_000_000_000)
        XCTAssertEqual(o.backoffFactor, 2)
        XCTAssertEqual(o.jitter, 0.2)
        XCTAssertNil(o.maxRetries)
        XCTAssertFalse(o.noReconnect)
        XCTAssertFalse(o.wait)
        XCTAssertEqual(o.queueLimit, 16 << 20)
        XCTAssertEqual(o.onConnect, [])
        XCTAssertNil(o.onConnectFile)
        XCTAssertEqual(o.onReconnect, [])
        XCTAssertTrue(o.captures.isEmpty)
        XCTAssertNil(o.ackPath)
        XCTAssertEqual(o.ackTimeoutNanos, 10_000_000_000)
        XCTAssertFalse(o.events)
        XCTAssertFalse(o.stats)
    }

    /// The words the help shows as defaults are values the flags accept.
    func testOffAndUnlimitedAreValues() {
        XCTAssertNil(parseOK(["--ping-interval", "5s", "--ping-interval", "off", url]).pingIntervalNanos)
        XCTAssertNil(parseOK(["--max-retries", "3", "--max-retries=unlimited", url]).maxRetries)
        XCTAssertNil(parseOK(["--listen", "1", "--send-timeout", "1s", "--send-timeout", "off"]).sendTimeoutNanos)
        assertUsageError(["--ping-interval", "OFF", url],
                         "--ping-interval: invalid duration 'OFF' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(["--max-retries", "infinite", url], "--max-retries: expected an integer >= 0, got 'infinite'")
    }

    // MARK: Keepalive

    func testPingInterval() {
        XCTAssertEqual(parseOK(["--ping-interval", "30s", url]).pingIntervalNanos, 30_000_000_000)
        XCTAssertEqual(parseOK(["--ping-interval=250ms", url]).pingIntervalNanos, 250_000_000)
        XCTAssertEqual(parseOK(["--ping-interval", "1.5", url]).pingIntervalNanos, 1_500_000_000)
    }

    func testPingTimeoutStoredOnlyWhenGiven() {
        let defaulted = parseOK(["--ping-interval", "20s", url])
        XCTAssertNil(defaulted.pingTimeoutNanos)
        let given = parseOK(["--ping-timeout", "5s", "--ping-interval", "20s", url])
        XCTAssertEqual(given.pingTimeoutNanos, 5_000_000_000)
        XCTAssertEqual(given.pingIntervalNanos, 20_000_000_000)
        // Longer than the interval is allowed: a slow peer may answer late.
        XCTAssertEqual(parseOK(["--ping-interval", "1s", "--ping-timeout", "1m", url]).pingTimeoutNanos,
                       60_000_000_000)
    }

    func testPingErrors() {
        assertUsageError(["--ping-interval", "often", url],
                         "--ping-interval: invalid duration 'often' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(["--ping-interval", "0", url],
                         "--ping-interval: '0' is too short: an interval must be at least 10ms")
        assertUsageError(["--ping-interval", "9.999ms", url],
                         "--ping-interval: '9.999ms' is too short: an interval must be at least 10ms")
        XCTAssertEqual(parseOK(["--ping-interval", "10ms", url]).pingIntervalNanos, 10_000_000)
        assertUsageError(["--ping-interval", "1s", "--ping-timeout", "-1s", url],
                         "--ping-timeout: invalid duration '-1s' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(["--ping-interval", "1s", "--ping-timeout", "0s", url],
                         "--ping-timeout: duration must be greater than 0")
        assertUsageError([url, "--ping-interval"], "missing value for --ping-interval")
    }

    func testPingTimeoutRequiresPingInterval() {
        assertUsageError(["--ping-timeout", "5s", url], "--ping-timeout requires --ping-interval")
        assertUsageError(["--listen", "8080", "--ping-timeout", "5s"], "--ping-timeout requires --ping-interval")
    }

    // MARK: Backoff

    func testBackoffAllParts() {
        let o = parseOK(["--backoff", "100ms:5s:1.5", url])
        XCTAssertEqual(o.backoffMinNanos, 100_000_000)
        XCTAssertEqual(o.backoffMaxNanos, 5_000_000_000)
        XCTAssertEqual(o.backoffFactor, 1.5)
    }

    func testBackoffOmittedPartsKeepTheirDefaults() {
        let minOnly = parseOK(["--backoff", "500ms", url])
        XCTAssertEqual(minOnly.backoffMinNanos, 500_000_000)
        XCTAssertEqual(minOnly.backoffMaxNanos, 30_000_000_000)
        XCTAssertEqual(minOnly.backoffFactor, 2)
        let noFactor = parseOK(["--backoff=2s:1m", url])
        XCTAssertEqual(noFactor.backoffMinNanos, 2_000_000_000)
        XCTAssertEqual(noFactor.backoffMaxNanos, 60_000_000_000)
        XCTAssertEqual(noFactor.backoffFactor, 2)
    }

    func testBackoffBareNumbersAreSecondsAndBoundsMayMeet() {
        let o = parseOK(["--backoff", "3:3:1", url])
        XCTAssertEqual(o.backoffMinNanos, 3_000_000_000)
        XCTAssertEqual(o.backoffMaxNanos, 3_000_000_000)
        XCTAssertEqual(o.backoffFactor, 1)
        XCTAssertEqual(parseOK(["--backoff", "30s", url]).backoffMinNanos, 30_000_000_000)
        XCTAssertEqual(parseOK(["--backoff", "1s:1h:10", url]).backoffFactor, 10)
    }

    func testBackoffLastOneWinsFromTheDefaults() {
        // The second --backoff does not inherit MAX and FACTOR from the first.
        let o = parseOK(["--backoff", "5s:1m:3", "--backoff", "2s", url])
        XCTAssertEqual(o.backoffMinNanos, 2_000_000_000)
        XCTAssertEqual(o.backoffMaxNanos, 30_000_000_000)
        XCTAssertEqual(o.backoffFactor, 2)
    }

    func testBackoffMalformed() {
        for bad in ["1s:x", "", ":", "x", "1s:", ":30s", "1s:30s:", "1s:30s:2:3", "1s:30s:x",
                    "1s:30s:-2", "1s:30s:+2", "1s:30s:1e3", "1s:30s:inf", "1s:30s:nan", "1s:30s:2.",
                    "1s:30s:0x2", "-1s", "1s 30s", "1s,30s", "1s::2"] {
            assertUsageError(["--backoff", bad, url],
                             "--backoff: invalid value '\(bad)' (use MIN[:MAX[:FACTOR]], e.g. 500ms:30s:2)")
        }
    }

    func testBackoffMinMustBePositive() {
        assertUsageError(["--backoff", "0", url], "--backoff: MIN must be greater than 0 (got '0')")
        assertUsageError(["--backoff", "0ms:1s", url], "--backoff: MIN must be greater than 0 (got '0ms:1s')")
    }

    func testBackoffMaxBelowMin() {
        assertUsageError(["--backoff", "5s:1s", url], "--backoff: MAX must be at least MIN (got '5s:1s')")
        assertUsageError(["--backoff", "2m:1m:2", url], "--backoff: MAX must be at least MIN (got '2m:1m:2')")
        // An omitted MAX is the default 30s, which a larger MIN also exceeds.
        assertUsageError(["--backoff", "45s", url],
                         "--backoff: MAX must be at least MIN (got '45s'; MAX defaults to 30s)")
        XCTAssertEqual(parseOK(["--backoff", "45s:45s", url]).backoffMaxNanos, 45_000_000_000)
    }

    func testBackoffFactorBelowOne() {
        assertUsageError(["--backoff", "1s:30s:0.5", url], "--backoff: FACTOR must be at least 1 (got '1s:30s:0.5')")
        assertUsageError(["--backoff", "1s:30s:0", url], "--backoff: FACTOR must be at least 1 (got '1s:30s:0')")
        XCTAssertEqual(parseOK(["--backoff", "1s:30s:1.0", url]).backoffFactor, 1)
    }

    // MARK: Jitter, retries, reconnect switches, queue

    func testJitter() {
        XCTAssertEqual(parseOK(["--jitter", "0", url]).jitter, 0)
        XCTAssertEqual(parseOK(["--jitter", "1", url]).jitter, 1)
        XCTAssertEqual(parseOK(["--jitter", "0.5", url]).jitter, 0.5)
        XCTAssertEqual(parseOK(["--jitter=.25", url]).jitter, 0.25)
        XCTAssertEqual(parseOK(["--jitter", "1.000", url]).jitter, 1)
    }

    func testJitterErrors() {
        for bad in ["1.5", "1.0001", "-0.1", "x", "", "1e-1", "nan", "inf", "0.2.", ".", "+0.5", "0.5 ", "20%"] {
            assertUsageError(["--jitter", bad, url], "--jitter: expected a fraction from 0 to 1, got '\(bad)'")
        }
    }

    func testMaxRetries() {
        XCTAssertEqual(parseOK(["--max-retries", "0", url]).maxRetries, 0)
        XCTAssertEqual(parseOK(["--max-retries", "5", url]).maxRetries, 5)
        XCTAssertEqual(parseOK(["--max-retries", "5", "--max-retries", "2", url]).maxRetries, 2)
    }

    func testMaxRetriesErrors() {
        for bad in ["-1", "-0", "+1", "x", "", "1.5", "1e3", "99999999999999999999"] {
            assertUsageError(["--max-retries", bad, url], "--max-retries: expected an integer >= 0, got '\(bad)'")
        }
    }

    func testReconnectSwitches() {
        let o = parseOK(["--no-reconnect", "--wait", url])
        XCTAssertTrue(o.noReconnect)
        XCTAssertTrue(o.wait)
        XCTAssertFalse(parseOK(["--wait", url]).noReconnect)
        XCTAssertFalse(parseOK(["--no-reconnect", url]).wait)
        assertUsageError(["--wait=yes", url], "--wait does not take a value")
        assertUsageError(["--no-reconnect=1", url], "--no-reconnect does not take a value")
    }

    func testQueueLimit() {
        XCTAssertEqual(parseOK(["--queue-limit", "1K", url]).queueLimit, 1024)
        XCTAssertEqual(parseOK(["--queue-limit", "100", url]).queueLimit, 100)
        XCTAssertEqual(parseOK(["--queue-limit=1G", url]).queueLimit, 1 << 30)
        assertUsageError(["--queue-limit", "0", url], "--queue-limit: size must be greater than 0")
        assertUsageError(["--queue-limit", "lots", url], "--queue-limit: invalid size 'lots' (use e.g. 512K, 64M, 1G)")
    }

    // MARK: On-connect and on-reconnect messages

    func testOnConnectRepeatsInOrder() {
        let o = parseOK(["--on-connect", #"{"type":"auth","token":"t"}"#,
                         "--on-connect={\"type\":\"subscribe\",\"since\":${seq}}", url])
        XCTAssertEqual(o.onConnect, [#"{"type":"auth","token":"t"}"#, #"{"type":"subscribe","since":${seq}}"#])
        XCTAssertEqual(o.onReconnect, [])
    }

    func testOnConnectValueMayLookLikeAFlag() {
        let o = parseOK(["--on-connect", "-v", url])
        XCTAssertEqual(o.onConnect, ["-v"])
        XCTAssertEqual(o.verbose, 0)
    }

    func testOnReconnectRepeatsInOrder() {
        let o = parseOK(["--on-reconnect", "a", "--on-connect", "b", "--on-reconnect", "c", url])
        XCTAssertEqual(o.onReconnect, ["a", "c"])
        XCTAssertEqual(o.onConnect, ["b"])
    }

    func testOnConnectFile() {
        XCTAssertEqual(parseOK(["--on-connect-file", "hello.ndjson", url]).onConnectFile, "hello.ndjson")
        XCTAssertEqual(parseOK(["--on-connect-file", "a", "--on-connect-file", "b", url]).onConnectFile, "b")
    }

    func testEmptyMessagesAndFileRejected() {
        assertUsageError(["--on-connect", "", url], "--on-connect: empty value")
        assertUsageError(["--on-reconnect=", url], "--on-reconnect: empty value")
        assertUsageError(["--on-connect-file", "", url], "--on-connect-file: empty value")
    }

    // MARK: Captures

    func testCapturesKeepOrderAndSplitPaths() {
        let o = parseOK(["--capture", "sq=sequence", "--capture", "sid=meta.session.id",
                         "--capture=_Tok2=a b.c", url])
        XCTAssertEqual(o.captures.map(\.name), ["sq", "sid", "_Tok2"])
        XCTAssertEqual(o.captures.map(\.path), [["sequence"], ["meta", "session", "id"], ["a b", "c"]])
    }

    func testCaptureSplitsAtTheFirstEquals() {
        let o = parseOK(["--capture", "x=a=b.c", url])
        XCTAssertEqual(o.captures.first?.name, "x")
        XCTAssertEqual(o.captures.first?.path, ["a=b", "c"])
    }

    func testCaptureErrors() {
        assertUsageError(["--capture", "seq", url], "--capture: expected NAME=KEYPATH, got 'seq'")
        assertUsageError(["--capture", "", url], "--capture: expected NAME=KEYPATH, got ''")
        for badName in ["", "1x", "a-b", "a.b", "a b", "é", "$x"] {
            assertUsageError(["--capture", "\(badName)=k", url],
                             "--capture: invalid name '\(badName)' (use letters, digits and _, not starting with a digit)")
        }
        for badPath in ["", "a..b", ".a", "a.", "."] {
            assertUsageError(["--capture", "x=\(badPath)", url],
                             "--capture: invalid key path '\(badPath)' (use keys joined by dots, e.g. meta.seq)")
        }
    }

    func testCaptureNameGivenTwice() {
        assertUsageError(["--capture", "id=a", "--capture", "id=b", url], "--capture: name 'id' given twice")
        // Names are case-sensitive, like ${NAME}.
        XCTAssertEqual(parseOK(["--capture", "id=a", "--capture", "ID=b", url]).captures.count, 2)
    }

    // MARK: Acks

    func testAckPath() {
        XCTAssertEqual(parseOK(["--ack", "sequence", url]).ackPath, ["sequence"])
        XCTAssertEqual(parseOK(["--ack=meta.seq", url]).ackPath, ["meta", "seq"])
        XCTAssertEqual(parseOK(["--ack", "a-b.c d", url]).ackPath, ["a-b", "c d"])
    }

    func testAckPathErrors() {
        for bad in ["", "a..b", ".seq", "seq.", "."] {
            assertUsageError(["--ack", bad, url],
                             "--ack: invalid key path '\(bad)' (use keys joined by dots, e.g. meta.seq)")
        }
    }

    func testAckTimeout() {
        XCTAssertEqual(parseOK(["--ack", "seq", "--ack-timeout", "2.5s", url]).ackTimeoutNanos, 2_500_000_000)
        // Zero means: do not wait at EOF, report what is unacknowledged at once.
        XCTAssertEqual(parseOK(["--ack-timeout", "0", "--ack", "seq", url]).ackTimeoutNanos, 0)
        XCTAssertEqual(parseOK(["--ack", "seq", url]).ackTimeoutNanos, 10_000_000_000)
        assertUsageError(["--ack", "seq", "--ack-timeout", "soon", url],
                         "--ack-timeout: invalid duration 'soon' (use e.g. 250ms, 2s, 1.5m)")
    }

    func testAckTimeoutRequiresAck() {
        assertUsageError(["--ack-timeout", "5s", url], "--ack-timeout requires --ack")
    }

    /// Issue 30: an ack before the result carries the key too.
    func testReplyMatchNeedsReplyAndAKeyPathAndValue() {
        let options = parseOK(["--reply", "id", "--reply-match", "type=result", url])
        XCTAssertEqual(options.replyMatch?.path, ["type"])
        XCTAssertEqual(options.replyMatch?.value, "result")
        assertUsageError(["--reply-match", "type=result", url], "--reply-match requires --reply")
        assertUsageError(["--reply", "id", "--reply-match", "result", url], "--reply-match: expected KEYPATH=VALUE, got 'result'")
    }

    // MARK: Diagnostics

    func testEventsAndStats() {
        let both = parseOK(["--events", "--stats", url])
        XCTAssertTrue(both.events)
        XCTAssertTrue(both.stats)
        XCTAssertFalse(parseOK(["--events", url]).stats)
        XCTAssertFalse(parseOK(["--stats", url]).events)
        assertUsageError(["--stats=json", url], "--stats does not take a value")
    }

    // MARK: Client-only flags with --listen

    static let clientOnlyArgs: [(long: String, args: [String])] = [
        ("on-reconnect", ["--on-reconnect", "{}"]),
        ("capture", ["--capture", "a=b"]),
        ("ack", ["--ack", "seq"]),
        ("wait", ["--wait"]),
        ("backoff", ["--backoff", "2s"]),
        ("max-retries", ["--max-retries", "3"]),
        ("no-reconnect", ["--no-reconnect"]),
        ("linger", ["--linger", "2s"]),
        ("proxy", ["--proxy", "socks5h://127.0.0.1:1080"]),
        ("noproxy", ["--noproxy", "localhost"]),
        ("unix-socket", ["--unix-socket", "/run/app.sock"]),
        ("interactive", ["-i"]),
        ("history-size", ["--history-size", "1M"]),
        ("no-status-line", ["--no-status-line"]),
        ("until", ["--until", "type=done"]),
        ("idle-timeout", ["--idle-timeout", "1s"]),
        ("header-command", ["--header-command", "echo"]),
        ("reply", ["--reply", "id"]),
        ("reply-match", ["--reply-match", "type=result", "--reply", "id"]),
        ("origin", ["--origin", "http://o"]),
        ("user-agent", ["--user-agent", "ua"]),
        ("connect-timeout", ["--connect-timeout", "3s"]),
        ("insecure", ["-k"]),
        ("jitter", ["--jitter", "0"]),
        ("queue-limit", ["--queue-limit", "1M"]),
        ("ack-timeout", ["--ack-timeout", "1s", "--ack", "seq"]),
        ("proxy-user", ["--proxy-user", "u:p"]),
        ("proxy-user-file", ["--proxy-user-file", "f"]),
        ("location", ["-L"]),
        ("max-redirs", ["--max-redirs", "3", "-L"]),
        ("location-downgrade", ["--location-downgrade", "-L"]),
        ("cookie", ["--cookie", "a=b"]),
        ("cookie-jar", ["-c", "jar.txt"]),
        ("user", ["--user", "ann:pw"]),
        ("ipv4", ["-4"]),
        ("write-out", ["-w", "%{json}"]),
        ("user-file", ["--user-file", "creds"]),
        ("ipv6", ["-6"]),
        ("max-reply-p99", ["--max-reply-p99", "1s"]),
        ("har-credentials", ["--har-credentials"]),
        ("sio-auth", ["--socketio", "--sio-auth", "{}"]),
    ]

    func testClientOnlyFlagsRefusedWithListen() {
        for (long, args) in Self.clientOnlyArgs {
            assertUsageError(["--listen", "8080"] + args, "--\(long) is for client mode (not with --listen)")
            assertUsageError(args + ["--listen=8080"], "--\(long) is for client mode (not with --listen)")
        }
    }

    func testClientOnlyFlagsAreExactlyThese() {
        XCTAssertEqual(Set(flagTable.filter(\.clientOnly).map(\.long)), Set(Self.clientOnlyArgs.map(\.long)))
    }

    func testClientOnlyFlagsAcceptedWithAURL() {
        // Conflicting pairs (--proxy-user and --proxy-user-file, --user and --user-file,
        // -4 and -6): one of each is enough here.
        // (-i makes the run interactive, where these two are refused.)
        let skipped: Set<String> = ["proxy-user-file", "user-file", "ipv6", "max-reply-p99", "har-credentials"]
        let o = parseOK(Self.clientOnlyArgs.filter { !skipped.contains($0.long) }.flatMap(\.args) + [url])
        XCTAssertEqual(o.onReconnect, ["{}"])
        XCTAssertEqual(o.captures.map(\.name), ["a"])
        XCTAssertEqual(o.ackPath, ["seq"])
        XCTAssertTrue(o.wait)
        XCTAssertEqual(o.backoffMinNanos, 2_000_000_000)
        XCTAssertEqual(o.maxRetries, 3)
        XCTAssertTrue(o.noReconnect)
    }

    func testFirstClientOnlyFlagInArgumentOrderIsNamed() {
        assertUsageError(["--wait", "--listen", "8080", "--ack", "seq"], "--wait is for client mode (not with --listen)")
        assertUsageError(["--ack", "seq", "--listen", "8080", "--wait"], "--ack is for client mode (not with --listen)")
    }

    func testOtherChecksComeFirst() {
        assertUsageError(["--listen", "8080", url, "--ack", "seq"], "give either a URL or --listen, not both")
        assertUsageError(["--listen", "8080", "--ack-timeout", "1s"], "--ack-timeout requires --ack")
        assertUsageError(["--listen", "8080", "--backoff", "x"],
                         "--backoff: invalid value 'x' (use MIN[:MAX[:FACTOR]], e.g. 500ms:30s:2)")
    }

    func testServerSideFlagsAcceptedWithListen() {
        let o = parseOK(["--listen", "8080", "--ping-interval", "10s", "--ping-timeout", "3s", "--events", "--stats"])
        XCTAssertEqual(o.listen, "8080")
        XCTAssertEqual(o.pingIntervalNanos, 10_000_000_000)
        XCTAssertEqual(o.pingTimeoutNanos, 3_000_000_000)
        XCTAssertTrue(o.events && o.stats)
    }

    // MARK: Suggestions for the new names

    func testTyposSuggestTheNewFlags() {
        assertUsageError(["--no-reconect", url], "unknown option '--no-reconect' (did you mean '--no-reconnect'?)")
        assertUsageError(["--ping", "1s", url], "unknown option '--ping' (did you mean '--ping-interval'?)")
        assertUsageError(["--captrue", "a=b", url], "unknown option '--captrue' (did you mean '--capture'?)")
    }
}

/// The value checks behind the new flags, on their own.
final class ReconnectValueTests: XCTestCase {
    func testDecimal() {
        let good: [(String, Double)] = [("0", 0), ("2", 2), ("1.5", 1.5), (".5", 0.5), ("007", 7), ("10.25", 10.25)]
        for (text, value) in good {
            XCTAssertEqual(FlagValue.decimal(text), value, text)
        }
        for text in ["", ".", "1.", "1..2", "1.2.3", "-1", "+1", "1e3", "inf", "nan", "0x10", " 1", "1 ", "١"] {
            XCTAssertNil(FlagValue.decimal(text), "'\(text)' should be rejected")
        }
        XCTAssertNil(FlagValue.decimal(String(repeating: "9", count: 400)), "overflows to infinity")
    }

    func testIdentifier() {
        for name in ["a", "_", "seq", "Session_ID2", "_1"] {
            XCTAssertTrue(FlagValue.isIdentifier(name), name)
        }
        for name in ["", "1", "9a", "a-b", "a.b", "a b", "é", "ä1", "a$"] {
            XCTAssertFalse(FlagValue.isIdentifier(name), name)
        }
    }

    func testBackoffValueParse() throws {
        let value = try BackoffValue.parse("backoff", "250ms:4s:3")
        XCTAssertEqual(value, BackoffValue(minNanos: 250_000_000, maxNanos: 4_000_000_000, factor: 3))
        XCTAssertEqual(FlagTable.flag(long: "backoff")?.defaultValue, "1s:30s:2")
        let defaults = try BackoffValue.parse("backoff", "1s:30s:2")
        XCTAssertEqual(defaults, BackoffValue(minNanos: 1_000_000_000, maxNanos: 30_000_000_000, factor: 2))
        // Omitted parts come from the table's default.
        XCTAssertEqual(try BackoffValue.parse("backoff", "1s"), defaults)
    }
}
