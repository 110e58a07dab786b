import XCTest
@testable import WSBridge

/// The `time` of events and --stats: RFC 3339, UTC, milliseconds, computed without Foundation.
final class UTCTimestampTests: XCTestCase {
    private func format(_ millis: Int64) -> String {
        String(decoding: UTCTimestamp.format(epochNanos: millis * 1_000_000), as: UTF8.self)
    }

    func testKnownInstants() {
        XCTAssertEqual(format(0), "1970-01-01T00:00:00.000Z")
        XCTAssertEqual(format(951_825_600_123), "2000-02-29T12:00:00.123Z")
        XCTAssertEqual(format(1_709_210_096_789), "2024-02-29T12:34:56.789Z")
        XCTAssertEqual(format(1_735_689_599_999), "2024-12-31T23:59:59.999Z")
        XCTAssertEqual(format(4_107_542_400_000), "2100-03-01T00:00:00.000Z")
        XCTAssertEqual(format(-1), "1969-12-31T23:59:59.999Z")
        XCTAssertEqual(format(4_102_444_799_999), "2099-12-31T23:59:59.999Z")
    }

    /// Every day of four centuries against a day-by-day count of the calendar.
    func testEveryDayOfFourCenturies() {
        var year: Int64 = 1970, month: Int64 = 1, day: Int64 = 1
        for days in Int64(0) ..< 146_097 {
            let date = UTCTimestamp.civilDate(daysSinceEpoch: days)
            guard date == (year, month, day) else {
                return XCTFail("day \(days): \(date) instead of \((year, month, day))")
            }
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            let length: Int64 = month == 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].contains(month) ? 30 : 31
            day += 1
            if day > length { day = 1; month += 1 }
            if month > 12 { month = 1; year += 1 }
        }
    }

    func testTheTimeGoesAfterTheEventName() {
        let time = Array("2024-02-29T12:34:56.789Z".utf8)
        XCTAssertEqual(String(decoding: UTCTimestamp.stamping(Array(#"{"$event":"connected","attempt":1}"#.utf8) + [10], time: time),
                              as: UTF8.self),
                       #"{"$event":"connected","time":"2024-02-29T12:34:56.789Z","attempt":1}"# + "\n")
        XCTAssertEqual(String(decoding: UTCTimestamp.stamping(Array(#"{"$event":"x"}"#.utf8), time: time), as: UTF8.self),
                       #"{"$event":"x","time":"2024-02-29T12:34:56.789Z"}"#)
        XCTAssertEqual(String(decoding: UTCTimestamp.stamping(Array("{}".utf8), time: time), as: UTF8.self),
                       #"{"time":"2024-02-29T12:34:56.789Z"}"#)
    }

    func testStatsLineEndsWithTheTime() {
        let line = String(decoding: SessionStats().jsonLine(time: Array("2024-02-29T12:34:56.789Z".utf8)), as: UTF8.self)
        XCTAssertTrue(line.hasSuffix(#","unread":0,"unread_lines":[],"time":"2024-02-29T12:34:56.789Z"}}"# + "\n"), line)
    }
}
