import XCTest
@testable import WSCLI

/// The flags of issue 12: server mode as a websocketd replacement (--exec,
/// --relay, --max-clients, --allow-origin) and the scripting hooks (--until,
/// --idle-timeout, --close-code).
final class ScriptingFlagsTests: XCTestCase {
    private let listen = ["--listen", "8080"]

    func testServerFlags() {
        let o = parseOK(listen + ["--exec", "cat", "--max-clients", "5", "--allow-origin", "https://a",
                                  "--allow-origin", "https://b"])
        XCTAssertEqual(o.exec, "cat")
        XCTAssertEqual(o.maxClients, 5)
        XCTAssertEqual(o.allowedOrigins, ["https://a", "https://b"])
        XCTAssertNil(parseOK(listen).maxClients, "unlimited by default")
        XCTAssertTrue(parseOK(listen + ["--relay"]).relay)
    }

    func testServerFlagErrors() {
        assertUsageError(["--exec", "cat", url], "--exec requires --listen")
        assertUsageError(["--relay", url], "--relay requires --listen")
        assertUsageError(["--max-clients", "2", url], "--max-clients requires --listen")
        assertUsageError(["--allow-origin", "https://a", url], "--allow-origin requires --listen")
        assertUsageError(listen + ["--max-clients", "0"], "--max-clients: expected a positive integer, got '0'")
        assertUsageError(listen + ["--cacert", "ca.pem"], "--cacert requires --cert with --listen")
        XCTAssertEqual(parseOK(listen + ["--cacert", "ca.pem", "--cert", "c.pem", "--key", "k.pem"]).cacert, "ca.pem")
        assertUsageError(listen + ["--exec", ""], "--exec: empty value")
        for other in [["--relay"], ["--tag"], ["--send-timeout", "1s"], ["-u"], ["-U"]] {
            let long = other[0] == "-u" ? "unidirectional" : other[0] == "-U" ? "unidirectional-reverse"
                : String(other[0].dropFirst(2))
            assertUsageError(listen + ["--exec", "cat"] + other, "--exec and --\(long) cannot be used together")
        }
    }

    func testUntil() {
        let o = parseOK(["--until", "event.type=done", url])
        XCTAssertEqual(o.until?.path, ["event", "type"])
        XCTAssertEqual(o.until?.value, "done")
        XCTAssertEqual(parseOK(["--until", "a=b=c", url]).until?.value, "b=c", "split at the first =")
        XCTAssertEqual(parseOK(["--until", "a=", url]).until?.value, "")
        assertUsageError(["--until", "done", url], "--until: expected KEYPATH=VALUE, got 'done'")
        assertUsageError(["--until", "a..b=1", url],
                         "--until: invalid key path 'a..b' (use keys joined by dots, e.g. meta.seq)")
        assertUsageError(listen + ["--until", "a=1"], "--until is for client mode (not with --listen)")
    }

    func testIdleTimeout() {
        XCTAssertEqual(parseOK(["--idle-timeout", "1.5s", url]).idleTimeoutNanos, 1_500_000_000)
        XCTAssertNil(parseOK([url]).idleTimeoutNanos)
        assertUsageError(["--idle-timeout", "0", url], "--idle-timeout: duration must be greater than 0")
        assertUsageError(listen + ["--idle-timeout", "1s"], "--idle-timeout is for client mode (not with --listen)")
    }

    func testRate() {
        XCTAssertNil(parseOK([url]).rateIntervalNanos)
        XCTAssertEqual(parseOK(["--rate", "10/s", url]).rateIntervalNanos, 100_000_000)
        XCTAssertEqual(parseOK(["--rate", "4", url]).rateIntervalNanos, 250_000_000)
        XCTAssertEqual(parseOK(["--rate", "0.5/s", url]).rateIntervalNanos, 2_000_000_000)
        XCTAssertEqual(parseOK(["--rate", "90/m", url]).rateIntervalNanos, 666_666_667)
        XCTAssertEqual(parseOK(listen + ["--rate", "1/s"]).rateIntervalNanos, 1_000_000_000, "server mode too")
        for bad in ["0/s", "-1/s", "10/h", "fast", "/s", "1e3/s", "2000000000/s"] {
            assertUsageError(["--rate", bad, url], "--rate: invalid rate '\(bad)' (use e.g. 10/s, 0.5/s, 90/m)")
        }
        // Was a trap (an interval no Int64 holds).
        assertUsageError(["--rate", "0.0000000000001/m", url],
                         "--rate: '0.0000000000001/m' is slower than one message every 8760h (a year)")
        XCTAssertEqual(parseOK(["--rate", "0.0000019026/m", url]).rateIntervalNanos, 31_535_793_125_197_100)
    }

    func testCloseCode() {
        XCTAssertEqual(parseOK([url]).closeCode, 1000)
        let o = parseOK(["--close-code", "4000:all: done", url])
        XCTAssertEqual(o.closeCode, 4000)
        XCTAssertEqual(o.closeReason, "all: done", "the reason is what follows the first colon")
        XCTAssertEqual(parseOK(listen + ["--close-code", "1001"]).closeCode, 1001)
        for code in ["1004", "1005", "1006", "1015", "999", "2000", "5000", "70000", "x", "", "+1000"] {
            assertUsageError(["--close-code", code, url],
                             "--close-code: '\(code)' is not a close code wspipe may send (use 1000-1003, 1007-1014 or 3000-4999)")
        }
        assertUsageError(["--close-code", "1000:" + String(repeating: "é", count: 62), url],
                         "--close-code: the reason is 124 bytes; a Close has room for 123")
        XCTAssertEqual(parseOK(["--close-code", "1000:" + String(repeating: "x", count: 123), url]).closeReason.count, 123)
    }
}
