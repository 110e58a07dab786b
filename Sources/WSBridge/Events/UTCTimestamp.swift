import WSTransport

/// The `time` of event lines and --stats (wspipe(1): OPTIONS, Diagnostics):
/// RFC 3339 in UTC with milliseconds, "2025-03-01T09:30:05.123Z", computed
/// from the wall clock without Foundation or the time zone files.
enum UTCTimestamp {
    /// Now.
    static func now() -> [UInt8] {
        format(epochNanos: wallClockNanos())
    }

    /// The time `epochNanos` after 1970-01-01T00:00:00Z (negative: before).
    static func format(epochNanos: Int64) -> [UInt8] {
        let millis = floorDivide(epochNanos, 1_000_000)
        let days = floorDivide(millis, 86_400_000)
        let ofDay = millis - days * 86_400_000
        let (year, month, day) = civilDate(daysSinceEpoch: days)
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(year, digits: 4, &out)
        out.append(UInt8(ascii: "-"))
        append(month, digits: 2, &out)
        out.append(UInt8(ascii: "-"))
        append(day, digits: 2, &out)
        out.append(UInt8(ascii: "T"))
        append(ofDay / 3_600_000, digits: 2, &out)
        out.append(UInt8(ascii: ":"))
        append(ofDay / 60_000 % 60, digits: 2, &out)
        out.append(UInt8(ascii: ":"))
        append(ofDay / 1000 % 60, digits: 2, &out)
        out.append(UInt8(ascii: "."))
        append(ofDay % 1000, digits: 3, &out)
        out.append(UInt8(ascii: "Z"))
        return out
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01, by
    /// counting 400-year eras from 0000-03-01 (a year then ends with
    /// February, so the leap day is its last day).
    static func civilDate(daysSinceEpoch days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468                 // days from 0000-03-01
        let era = floorDivide(shifted, 146_097)      // 400 years
        let dayOfEra = shifted - era * 146_097       // 0...146096
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)   // from March 1st
        let shiftedMonth = (5 * dayOfYear + 2) / 153                                        // 0 = March
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// `value` in decimal, zero-padded to `digits` (a wider value is written whole).
    private static func append(_ value: Int64, digits: Int, _ out: inout [UInt8]) {
        var text = Array(String(value.magnitude).utf8)
        while text.count < digits { text.insert(UInt8(ascii: "0"), at: 0) }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        out.append(contentsOf: text)
    }

    /// The line with `"time":"..."` right after its first member (`"$event"`
    /// of an event line), or before its closing brace when it has no member.
    static func stamping(_ line: [UInt8], time: [UInt8]) -> [UInt8] {
        var member: [UInt8] = Array(#""time":""#.utf8)
        member.append(contentsOf: time)
        member.append(UInt8(ascii: "\""))
        let prefix = Array(#"{"$event":""#.utf8)
        if line.starts(with: prefix), let close = line[prefix.count...].firstIndex(of: UInt8(ascii: "\"")) {
            var out = line
            out.insert(contentsOf: [UInt8(ascii: ",")] + member, at: close + 1)
            return out
        }
        guard let end = line.lastIndex(of: UInt8(ascii: "}")) else { return line }
        var out = line
        let empty = end > 0 && line[end - 1] == UInt8(ascii: "{")
        out.insert(contentsOf: (empty ? [] : [UInt8(ascii: ",")]) + member, at: end)
        return out
    }
}
