import XCTest
@testable import WSCLI

/// The accepted spellings of flags and values.
final class ArgumentParserFormsTests: XCTestCase {
    func testDefaultsWithOnlyAURL() {
        let o = parseOK([url])
        XCTAssertEqual(o.url, url)
        XCTAssertNil(o.listen)
        XCTAssertTrue(o.headers.isEmpty)
        XCTAssertEqual(o.connectTimeoutNanos, 10_000_000_000)
        XCTAssertEqual(o.closeTimeoutNanos, 2_000_000_000)
        XCTAssertEqual(o.maxMessageSize, 64 << 20)
        XCTAssertEqual(o.lineFormat, .json)
        XCTAssertEqual(o.binaryOutput, .raw)
        XCTAssertNil(o.maxMessages)
        XCTAssertEqual(o.userAgent, "wspipe/" + wspipeVersion)
        XCTAssertEqual(o.verbose, 0)
        XCTAssertFalse(o.insecure || o.quiet || o.noClose || o.once || o.showHelp || o.showVersion)
    }

    /// Where each password is, for wspipe to blank it in its argument vector
    /// (index among the arguments after the program's name, first byte).
    func testSecretValuesAreLocated() {
        let o = parseOK(["-v", "--user", "a:b", "--user=é:pw", "--proxy", "http://p", "--proxy-user=c:d",
                         "--proxy-user", "e:f", "--origin", "x", url])
        XCTAssertEqual(o.secretArguments.map(\.index), [2, 3, 6, 8])
        XCTAssertEqual(o.secretArguments.map(\.offset), [0, 7, 13, 0])
        XCTAssertTrue(parseOK(["--user-file", "f", url]).secretArguments.isEmpty, "a file name is no secret")
        XCTAssertEqual(flagTable.filter(\.secret).map(\.long), ["proxy-user", "user"])
    }

    func testLongWithSeparateValue() {
        XCTAssertEqual(parseOK(["--origin", "https://a.example", url]).origin, "https://a.example")
    }

    func testLongWithEqualsValue() {
        XCTAssertEqual(parseOK(["--origin=https://a.example", url]).origin, "https://a.example")
    }

    func testLongEqualsKeepsLaterEqualsSigns() {
        XCTAssertEqual(parseOK(["--user-agent=a=b", url]).userAgent, "a=b")
    }

    func testLongEqualsEmptyValue() {
        XCTAssertEqual(parseOK(["--user-agent=", url]).userAgent, "")
    }

    func testShortWithSeparateValue() {
        let o = parseOK(["-H", "X-A: 1", url])
        XCTAssertEqual(o.headers.map(\.name), ["X-A"])
        XCTAssertEqual(o.headers.map(\.value), ["1"])
    }

    func testShortWithAttachedValue() {
        let o = parseOK(["-HX-A: 1", url])
        XCTAssertEqual(o.headers.map(\.name), ["X-A"])
        XCTAssertEqual(o.headers.map(\.value), ["1"])
    }

    func testShortWithEqualsValue() {
        let o = parseOK(["-H=X-A: 1", url])
        XCTAssertEqual(o.headers.map(\.name), ["X-A"])
    }

    func testBundledSwitches() {
        let o = parseOK(["-nvq", url])
        XCTAssertTrue(o.noClose)
        XCTAssertEqual(o.verbose, 1)
        XCTAssertTrue(o.quiet)
    }

    func testBundleEndingInValueFlagTakesNextArgument() {
        let o = parseOK(["-kH", "X: y", url])
        XCTAssertTrue(o.insecure)
        XCTAssertEqual(o.headers.map(\.name), ["X"])
        XCTAssertEqual(o.headers.map(\.value), ["y"])
        XCTAssertEqual(o.url, url)
    }

    func testBundleEndingInValueFlagWithAttachedValue() {
        let o = parseOK(["-kHX: y", url])
        XCTAssertTrue(o.insecure)
        XCTAssertEqual(o.headers.map(\.value), ["y"])
    }

    func testDigitShortFlags() {
        let o = parseOK(["-0", "-1", url])
        XCTAssertTrue(o.nulSeparator)
        XCTAssertEqual(o.maxMessages, 1)
        let bundled = parseOK(["-t01", url])
        XCTAssertEqual(bundled.lineFormat, .text)
        XCTAssertTrue(bundled.nulSeparator)
        XCTAssertEqual(bundled.maxMessages, 1)
    }

    func testValueMayLookLikeAFlag() {
        // Like curl: the next argument is the value, whatever it looks like.
        XCTAssertEqual(parseOK(["--user-agent", "-v", url]).userAgent, "-v")
        XCTAssertEqual(parseOK(["--user-agent", "-v", url]).verbose, 0)
    }

    func testDoubleDashEndsFlags() {
        assertUsageError(["--", "-k"], "URL must start with ws:// or wss:// (got '-k')")
        let o = parseOK(["-k", "--", url])
        XCTAssertTrue(o.insecure)
        XCTAssertEqual(o.url, url)
    }

    func testHelpAfterDoubleDashIsPositional() {
        assertUsageError([url, "--", "--help"], "unexpected argument '--help' (only one URL is allowed)")
    }

    func testLoneDashIsPositional() {
        assertUsageError(["-"], "URL must start with ws:// or wss:// (got '-')")
        assertUsageError([url, "-"], "unexpected argument '-' (only one URL is allowed)")
    }

    func testFlagsAfterTheURL() {
        let o = parseOK([url, "-k", "--origin", "o"])
        XCTAssertTrue(o.insecure)
        XCTAssertEqual(o.origin, "o")
    }

    func testWssAndUppercaseSchemes() {
        XCTAssertEqual(parseOK(["wss://h/"]).url, "wss://h/")
        XCTAssertEqual(parseOK(["WS://h/"]).url, "WS://h/")
    }

    func testVerboseCounts() {
        XCTAssertEqual(parseOK(["-v", "-vv", "--verbose", url]).verbose, 4)
    }

    func testRepeatableValuesKeepOrder() {
        let o = parseOK(["-H", "A: 1", "--header", "B: 2", "-H", "A: 3",
                         "--protocol", "chat", "--protocol=superchat", url])
        XCTAssertEqual(o.headers.map(\.name), ["A", "B", "A"])
        XCTAssertEqual(o.headers.map(\.value), ["1", "2", "3"])
        XCTAssertEqual(o.protocols, ["chat", "superchat"])
    }

    func testNonRepeatableValueLastOneWins() {
        let o = parseOK(["--origin", "first", "--origin", "second",
                         "--connect-timeout", "1s", "--connect-timeout", "3s", url])
        XCTAssertEqual(o.origin, "second")
        XCTAssertEqual(o.connectTimeoutNanos, 3_000_000_000)
    }

    func testOneMessageAndMaxMessagesLastWins() {
        XCTAssertEqual(parseOK(["-1", "--max-messages", "5", url]).maxMessages, 5)
        XCTAssertEqual(parseOK(["--max-messages", "5", "-1", url]).maxMessages, 1)
    }

    func testHeaderValueLeadingSpacesTrimmed() {
        let o = parseOK(["-H", "Authorization:   Bearer x y ", "-H", "Empty:", "-H", "T:\tv", url])
        XCTAssertEqual(o.headers.map(\.name), ["Authorization", "Empty", "T"])
        XCTAssertEqual(o.headers.map(\.value), ["Bearer x y ", "", "v"])
    }

    func testHeaderValueMayContainColons() {
        let o = parseOK(["-H", "X-Url: http://a:1/", url])
        XCTAssertEqual(o.headers.first?.value, "http://a:1/")
    }

    func testEveryFlagStoresItsValue() {
        let o = parseOK([
            "--header-file", "h.txt", "--origin", "http://o", "--user-agent", "ua/1",
            "--connect-timeout", "250ms", "--max-message-size", "16K",
            "-k", "--cacert", "ca.pem", "--cert", "c.pem", "--key", "k.pem",
            "-b", "-0", "--binary-output", "base64", "--lenient",
            "-n", "--max-messages", "7", "-u", "--close-timeout", "1.5m",
            "-q", url,
        ])
        XCTAssertEqual(o.headerFile, "h.txt")
        XCTAssertEqual(o.origin, "http://o")
        XCTAssertEqual(o.userAgent, "ua/1")
        XCTAssertEqual(o.connectTimeoutNanos, 250_000_000)
        XCTAssertEqual(o.maxMessageSize, 16 * 1024)
        XCTAssertTrue(o.insecure)
        XCTAssertEqual(o.cacert, "ca.pem")
        XCTAssertEqual(o.cert, "c.pem")
        XCTAssertEqual(o.key, "k.pem")
        XCTAssertEqual(o.lineFormat, .binary)
        XCTAssertTrue(o.nulSeparator)
        XCTAssertEqual(o.binaryOutput, .base64)
        XCTAssertTrue(o.lenient)
        XCTAssertFalse(o.strict)
        XCTAssertTrue(o.noClose)
        XCTAssertEqual(o.maxMessages, 7)
        XCTAssertTrue(o.unidirectional)
        XCTAssertFalse(o.reverseUnidirectional)
        XCTAssertEqual(o.closeTimeoutNanos, 90_000_000_000)
        XCTAssertTrue(o.quiet)
    }

    func testTextStrictReverse() {
        let o = parseOK(["-t", "--strict", "-U", "--binary-output", "drop", url])
        XCTAssertEqual(o.lineFormat, .text)
        XCTAssertTrue(o.strict)
        XCTAssertTrue(o.reverseUnidirectional)
        XCTAssertEqual(o.binaryOutput, .drop)
    }

    func testServerMode() {
        let o = parseOK(["--listen", "127.0.0.1:8080/ws", "--once"])
        XCTAssertEqual(o.listen, "127.0.0.1:8080/ws")
        XCTAssertTrue(o.once)
        XCTAssertNil(o.url)
    }

    func testHelpWinsOverEverything() {
        for args in [["--help"], ["-h"], ["--bogus", "--help"], ["-t", "-b", "-h"],
                     ["http://x", "--connect-timeout", "zz", "--help"], ["-vh"],
                     ["--listen", "1", url, "-h"], ["-h", "--bogus"]] {
            let o = parseOK(args)
            XCTAssertTrue(o.showHelp, "\(args)")
            XCTAssertFalse(o.showVersion, "\(args)")
            // Nothing else parsed is reported, so the caller cannot act on half a command line.
            XCTAssertEqual(o.verbose, 0, "\(args)")
            XCTAssertNil(o.url, "\(args)")
        }
    }

    func testVersionWins() {
        for args in [["--version"], ["-V"], ["--hedaer", "-V"], ["-qV"]] {
            let o = parseOK(args)
            XCTAssertTrue(o.showVersion, "\(args)")
            XCTAssertFalse(o.showHelp, "\(args)")
        }
    }

    func testFirstOfHelpAndVersionWins() {
        XCTAssertTrue(parseOK(["-V", "-h"]).showVersion)
        XCTAssertFalse(parseOK(["-V", "-h"]).showHelp)
        XCTAssertTrue(parseOK(["-h", "-V"]).showHelp)
    }

    func testHelpAsAValueIsNotHelp() {
        // "-H --help": --help is the header value (then rejected as a header).
        assertUsageError(["-H", "--help", url], "--header: expected 'Name: value', got '--help'")
        XCTAssertEqual(parseOK(["--user-agent", "--help", url]).userAgent, "--help")
        // "-Hh": h is the value of -H.
        assertUsageError(["-Hh", url], "--header: expected 'Name: value', got 'h'")
    }
}
