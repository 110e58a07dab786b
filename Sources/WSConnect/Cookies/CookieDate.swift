/// The cookie date format of RFC 6265 §5.1.1, the lenient reading every
/// browser does of an Expires attribute ("Wed, 21 Oct 2026 07:28:00 GMT",
/// "Wednesday, 21-Oct-26 07:28:00 GMT", ...), to seconds since the epoch.
enum CookieDate {
    static func parse(_ text: String) -> Int64? {
        var time: (Int, Int, Int)?
        var day: Int?, month: Int?, year: Int?
        for token in tokens(text) {
            if time == nil, let found = timeOfDay(token) { time = found; continue }
            if day == nil, let found = digits(token, 1...2) { day = found; continue }
            if month == nil, let found = monthNumber(token) { month = found; continue }
            if year == nil, let found = digits(token, 2...4) { year = found; continue }
        }
        guard var year, let day, let month, let (hour, minute, second) = time else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The date-tokens between delimiters (§5.1.1: %x09, %x20-2F, %x3B-40,
    /// %x5B-60, %x7B-7E).
    private static func tokens(_ text: String) -> [Substring] {
        text.split(whereSeparator: { character in
            guard let byte = character.asciiValue else { return false }
            return byte == 0x09 || (0x20...0x2F).contains(byte) || (0x3B...0x40).contains(byte)
                || (0x5B...0x60).contains(byte) || (0x7B...0x7E).contains(byte)
        })
    }

    /// 1-2 digits ":" 1-2 digits ":" 1-2 digits, anything after them ignored.
    private static func timeOfDay(_ token: Substring) -> (Int, Int, Int)? {
        let parts = token.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let hour = digits(parts[0], 1...2), let minute = digits(parts[1], 1...2),
              let second = digits(leadingDigits(parts[2]), 1...2) else { return nil }
        return (hour, minute, second)
    }

    /// A number of `count` digits at the start of `token` (anything after
    /// them ignored, as §5.1.1 says for day and year).
    private static func digits(_ token: Substring, _ count: ClosedRange<Int>) -> Int? {
        let lead = leadingDigits(token)
        guard count.contains(lead.count) else { return nil }
        return Int(lead)
    }

    private static func leadingDigits(_ token: Substring) -> Substring {
        token.prefix { $0.isASCII && $0.isNumber }
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    private static func monthNumber(_ token: Substring) -> Int? {
        guard token.count >= 3 else { return nil }
        return months.firstIndex(of: token.prefix(3).lowercased()).map { $0 + 1 }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (the
    /// era-based algorithm: 400-year eras of 146097 days).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
