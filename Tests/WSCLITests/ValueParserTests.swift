import XCTest
@testable import WSCLI

final class DurationParserTests: XCTestCase {
    func testValidDurations() {
        let cases: [(String, Int64)] = [
            ("250ms", 250_000_000),
            ("2s", 2_000_000_000),
            ("1.5m", 90_000_000_000),
            ("1h", 3_600_000_000_000),
            ("3", 3_000_000_000),
            ("0", 0),
            ("0s", 0),
            ("0.5", 500_000_000),
            (".25s", 250_000_000),
            ("1.5ms", 1_500_000),
            ("0.001s", 1_000_000),
            ("0.000000001s", 1),
            ("2.5h", 9_000_000_000_000),
            ("10s", 10_000_000_000),
            ("007s", 7_000_000_000),
            ("1.0000000000000000001s", 1_000_000_000),
        ]
        for (text, nanos) in cases {
            XCTAssertEqual(DurationParser.nanos(text), nanos, text)
        }
    }

    func testInvalidDurations() {
        for text in ["", "abc", "s", "ms", "-1s", "-1", "+1s", "1.", ".", "1..5s", "1.5.2s",
                     "2 s", " 2s", "2s ", "1d", "500us", "2S", "1M", "1h30m", "1e3",
                     "99999999999999999999", "9999999999999h"] {
            XCTAssertNil(DurationParser.nanos(text), "'\(text)' should be rejected")
        }
    }

    func testLargestRepresentable() {
        XCTAssertEqual(DurationParser.nanos("9223372036.854775807"), Int64.max)
        XCTAssertNil(DurationParser.nanos("9223372037"))
    }

    /// Flags take at most a year: a deadline made of a longer one could
    /// wrap (a trap, or a timer in the past that fired at once).
    func testDurationsPastAYearAreRefusedAsTooLong() {
        XCTAssertEqual(try? FlagValue.duration("linger", "8760h"), 8760 * 3_600_000_000_000)
        for text in ["8760.001h", "525601m", "9223372036s", "9223372037", "99999999999999999999h"] {
            XCTAssertThrowsError(try FlagValue.duration("linger", text), text) { error in
                XCTAssertEqual(error as? UsageError,
                               UsageError("--linger: '\(text)' is longer than 8760h (a year), the longest duration wspipe takes"))
            }
        }
        XCTAssertTrue(DurationParser.isTooLong("99999999999999999999ms"))
        for text in ["2.", "1e99", "99999999999999999999d", "-99999999999999999999"] {
            XCTAssertFalse(DurationParser.isTooLong(text), text)
        }
    }
}

final class SizeParserTests: XCTestCase {
    func testValidSizes() {
        let cases: [(String, Int)] = [
            ("100", 100),
            ("100B", 100),
            ("0", 0),
            ("1K", 1024),
            ("16k", 16 * 1024),
            ("512KiB", 512 * 1024),
            ("2KB", 2048),
            ("64M", 64 << 20),
            ("64m", 64 << 20),
            ("64MiB", 64 << 20),
            ("64Mi", 64 << 20),
            ("64mib", 64 << 20),
            ("1G", 1 << 30),
            ("1g", 1 << 30),
            ("3GiB", 3 << 30),
        ]
        for (text, bytes) in cases {
            XCTAssertEqual(SizeParser.bytes(text), bytes, text)
        }
    }

    func testInvalidSizes() {
        for text in ["", "M", "12Q", "1.5M", "-1", "+1", "1 M", " 1M", "1M ", "1T", "1KK",
                     "1MiBs", "1iB", "0x10", "99999999999999999999", "9999999999999G"] {
            XCTAssertNil(SizeParser.bytes(text), "'\(text)' should be rejected")
        }
    }
}
