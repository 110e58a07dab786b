#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Local wall-clock time to the millisecond, for the transcript's
/// `12:01:02.123` marks. Read with clock_gettime(2) and localtime_r(3): no
/// Foundation.
public struct TimeOfDay: Equatable, Sendable, CustomStringConvertible {
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int

    public init(hour: Int, minute: Int, second: Int, millisecond: Int) {
        self.hour = hour
        self.minute = minute
        self.second = second
        self.millisecond = millisecond
    }

    /// Now, in the local time zone (TZ, or /etc/localtime).
    public static func now() -> TimeOfDay {
        var ts = timespec()
        _ = clock_gettime(CLOCK_REALTIME, &ts)
        var seconds = time_t(ts.tv_sec)
        var parts = tm()
        // localtime_r need not read TZ itself (POSIX); tzset makes sure it has.
        tzset()
        guard localtime_r(&seconds, &parts) != nil else {
            return TimeOfDay(hour: 0, minute: 0, second: 0, millisecond: 0)
        }
        return TimeOfDay(hour: Int(parts.tm_hour), minute: Int(parts.tm_min),
                         second: Int(parts.tm_sec), millisecond: Int(ts.tv_nsec) / 1_000_000)
    }

    /// "HH:MM:SS.mmm".
    public var description: String {
        Self.digits(hour, 2) + ":" + Self.digits(minute, 2) + ":" + Self.digits(second, 2) + "."
            + Self.digits(millisecond, 3)
    }

    private static func digits(_ value: Int, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }
}
