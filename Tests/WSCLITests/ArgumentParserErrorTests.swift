import XCTest
@testable import WSCLI

/// Every usage error, quoted exactly: these texts are what users see.
final class ArgumentParserErrorTests: XCTestCase {
    func testUnknownLongWithSuggestion() {
        assertUsageError(["--hedaer", "X: y", url], "unknown option '--hedaer' (did you mean '--header'?)")
        assertUsageError(["--insecur", url], "unknown option '--insecur' (did you mean '--insecure'?)")
        assertUsageError(["--verbos", url], "unknown option '--verbos' (did you mean '--verbose'?)")
    }

    func testUnknownLongWithValueNamesOnlyTheFlag() {
        assertUsageError(["--hedaer=X: y", url], "unknown option '--hedaer' (did you mean '--header'?)")
    }

    func testUnknownLongPrefixSuggestion() {
        assertUsageError(["--conn", "1s", url], "unknown option '--conn' (did you mean '--connect-timeout'?)")
    }

    func testUnknownLongWithoutSuggestion() {
        assertUsageError(["--frobnicate", url], "unknown option '--frobnicate'")
    }

    /// curl's `-u user:pass`: -u is websocat's here, and the credentials
    /// were taken for a URL ("URL must start with ws://").
    func testCurlsDashUPointsToUser() {
        let advice = "'-u alice:…': -u is websocat's --unidirectional here, not curl's -u; write --user alice:PASSWORD "
            + "(or --user-file FILE, which keeps the password out of ps)"
        assertUsageError(["-u", "alice:s3cret", url], advice)
        assertUsageError([url, "-u", "alice:s3cret"], advice)
        assertUsageError(["-nu", "alice:s3cret", url], advice)
        assertUsageError(["-HX: u", "alice:s3cret", url], "URL must start with ws:// or wss:// (got 'alice:s3cret')")
        XCTAssertTrue(parseOK(["-u", url]).unidirectional)
    }

    func testUnknownShort() {
        assertUsageError(["-Z", url], "unknown option '-Z'")
        assertUsageError(["-kZ", url], "unknown option '-Z'")
    }

    func testUnknownShortEndsTheBundle() {
        // After an unknown letter nothing more is read from the bundle (the
        // rest might have been its value), so this "h" does not ask for help.
        assertUsageError(["-Zh", url], "unknown option '-Z'")
    }

    func testMissingValue() {
        assertUsageError([url, "--header"], "missing value for --header")
        assertUsageError([url, "-H"], "missing value for --header")
        assertUsageError([url, "-kH"], "missing value for --header")
        assertUsageError([url, "--connect-timeout"], "missing value for --connect-timeout")
    }

    func testSwitchGivenAValue() {
        assertUsageError(["--insecure=yes", url], "--insecure does not take a value")
        assertUsageError(["-k=yes", url], "--insecure does not take a value")
        assertUsageError(["--once=", "--listen", "1"], "--once does not take a value")
    }

    func testInvalidDuration() {
        assertUsageError(["--connect-timeout", "abc", url],
                         "--connect-timeout: invalid duration 'abc' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(["--close-timeout=-1s", url],
                         "--close-timeout: invalid duration '-1s' (use e.g. 250ms, 2s, 1.5m)")
    }

    func testInvalidSize() {
        assertUsageError(["--max-message-size", "12Q", url],
                         "--max-message-size: invalid size '12Q' (use e.g. 512K, 64M, 1G)")
        assertUsageError(["--max-message-size", "0", url], "--max-message-size: size must be greater than 0")
        assertUsageError(["--max-message-size", "0K", url], "--max-message-size: size must be greater than 0")
    }

    func testInvalidMaxMessages() {
        for bad in ["0", "-3", "x", "1.5", "", "+2"] {
            assertUsageError(["--max-messages", bad, url], "--max-messages: expected a positive integer, got '\(bad)'")
        }
    }

    func testInvalidBinaryOutput() {
        assertUsageError(["--binary-output", "hex", url],
                         "--binary-output: invalid value 'hex' (choose one of: raw, base64, drop)")
    }

    func testInvalidHeader() {
        assertUsageError(["-H", "nocolon", url], "--header: expected 'Name: value', got 'nocolon'")
        assertUsageError(["-H", ": v", url], "--header: expected 'Name: value', got ': v'")
        assertUsageError(["-H", "Bad Name: v", url], "--header: expected 'Name: value', got 'Bad Name: v'")
        assertUsageError(["-H", " X: v", url], "--header: expected 'Name: value', got ' X: v'")
        assertUsageError(["-H", "X: a\r\nEvil: 1", url], "--header: header value contains a line break")
        assertUsageError(["-H", "X: a\nEvil: 1", url], "--header: header value contains a line break")
    }

    /// The headers the handshake owns are refused, whatever their case;
    /// Host, Origin and User-Agent are accepted (they replace wspipe's own).
    func testHandshakeHeadersAreRefused() {
        for name in ["Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Accept", "Upgrade", "Connection",
                     "Content-Length", "Transfer-Encoding"] {
            assertUsageError(["-H", "\(name.lowercased()): x", url],
                             "--header: \(name) belongs to the WebSocket handshake; wspipe sets it and it cannot be given")
        }
        assertUsageError(["-H", "Sec-WebSocket-Extensions: permessage-deflate", url],
                         "--header: Sec-WebSocket-Extensions belongs to the WebSocket handshake; wspipe sets it and it cannot be given (--compress offers permessage-deflate)")
        XCTAssertEqual(parseOK(["-H", "Host: api.example.com", "-H", "Origin: https://o", url]).headers.map(\.name),
                       ["Host", "Origin"])
    }

    func testMaxPrograms() {
        XCTAssertEqual(parseOK(["--listen", "1", "--exec", "cat"]).maxPrograms, 256)
        XCTAssertEqual(parseOK(["--listen", "1", "--exec", "cat", "--max-programs", "4"]).maxPrograms, 4)
        assertUsageError(["--listen", "1", "--max-programs", "4"], "--max-programs requires --exec")
        assertUsageError(["--listen", "1", "--exec", "cat", "--max-programs", "0"],
                         "--max-programs: expected a positive integer, got '0'")
    }

    func testInvalidProtocol() {
        assertUsageError(["--protocol", "a b", url], "--protocol: invalid subprotocol name 'a b'")
        assertUsageError(["--protocol", "", url], "--protocol: invalid subprotocol name ''")
        assertUsageError(["--protocol", "a,b", url], "--protocol: invalid subprotocol name 'a,b'")
    }

    func testEmptyFileAndAddressValues() {
        assertUsageError(["--cacert", "", url], "--cacert: empty value")
        assertUsageError(["--listen", ""], "--listen: empty value")
    }

    func testURLScheme() {
        assertUsageError(["http://x"], "URL must start with ws:// or wss:// (got 'http://x')")
        assertUsageError(["example.com"], "URL must start with ws:// or wss:// (got 'example.com')")
    }

    func testMissingURL() {
        assertUsageError([], "missing URL (see 'wspipe --help')")
        assertUsageError(["-k", "-v"], "missing URL (see 'wspipe --help')")
    }

    func testURLAndListen() {
        assertUsageError(["--listen", "8080", url], "give either a URL or --listen, not both")
        assertUsageError([url, "--listen=8080"], "give either a URL or --listen, not both")
    }

    func testTooManyPositionals() {
        assertUsageError([url, "ws://other"], "unexpected argument 'ws://other' (only one URL is allowed)")
    }

    func testTextBinaryConflict() {
        assertUsageError(["-t", "-b", url], "--text and --binary cannot be used together")
        assertUsageError(["--binary", "--text", url], "--binary and --text cannot be used together")
        assertUsageError(["-tb", url], "--text and --binary cannot be used together")
    }

    func testUnidirectionalConflict() {
        assertUsageError(["-u", "-U", url], "--unidirectional and --unidirectional-reverse cannot be used together")
        assertUsageError(["-Uu", url], "--unidirectional-reverse and --unidirectional cannot be used together")
    }

    func testLenientStrictConflict() {
        assertUsageError(["--lenient", "--strict", url], "--lenient and --strict cannot be used together")
    }

    func testConflictReportedEvenWhenRepeated() {
        assertUsageError(["-t", "-t", "-b", "-b", url], "--text and --binary cannot be used together")
    }

    func testOnceRequiresListen() {
        assertUsageError(["--once", url], "--once requires --listen")
    }

    func testServerModeFlagsNeedListen() {
        for args in [["--once"], ["--tag"], ["--send-timeout", "1s"]] {
            assertUsageError(args + [url], "\(args[0]) requires --listen")
        }
    }

    func testKeyRequiresCert() {
        assertUsageError(["--key", "k.pem", url], "--key requires --cert")
        assertUsageError(["--listen", "8443", "--key", "k.pem"], "--key requires --cert")
    }

    func testCertRequiresKeyOnlyWithListen() {
        // A client reads its key from the certificate file when there is no --key.
        XCTAssertEqual(parseOK(["--cert", "both.pem", url]).cert, "both.pem")
        assertUsageError(["--listen", "8443", "--cert", "c.pem"], "--cert requires --key with --listen")
        assertUsageError(["--cert", "c.pem", "--listen=8443"], "--cert requires --key with --listen")
        let server = parseOK(["--listen", "8443", "--cert", "c.pem", "--key", "k.pem"])
        XCTAssertEqual(server.cert, "c.pem")
        XCTAssertEqual(server.key, "k.pem")
    }

    func testFirstErrorInArgumentOrderIsReported() {
        assertUsageError(["--connect-timeout", "x", "--bogus", "http://y"],
                         "--connect-timeout: invalid duration 'x' (use e.g. 250ms, 2s, 1.5m)")
        assertUsageError(["http://y", "--connect-timeout", "x"],
                         "URL must start with ws:// or wss:// (got 'http://y')")
    }

    func testParseErrorsComeBeforeConflictsAndMissingURL() {
        assertUsageError(["-t", "-b", "-Z"], "unknown option '-Z'")
        assertUsageError(["-t", "-b"], "--text and --binary cannot be used together")
    }

    func testUsageErrorDescriptionIsTheMessage() {
        XCTAssertEqual(UsageError("boom").description, "boom")
        XCTAssertEqual(String(describing: UsageError("boom")), "boom")
    }
}
