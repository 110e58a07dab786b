/// Parses durations as the spec writes them (wspipe(1): SYNOPSIS): "250ms", "2s", "1.5m",
/// "1h", or a bare number of seconds ("3", "0.5"). Fractions are allowed,
/// negative values and other units are not.
public enum DurationParser {
    /// Nanoseconds, or nil when `s` is not a duration or does not fit in Int64.
    public static func nanos(_ s: String) -> Int64? {
        let bytes = Array(s.utf8)
        var index = 0
        var whole: Int64 = 0
        var wholeDigits = 0
        while index < bytes.count, let digit = decimalDigit(bytes[index]) {
            let (times10, o1) = whole.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(digit)
            if o1 || o2 { return nil }
            whole = sum
            wholeDigits += 1
            index += 1
        }
        // The fraction is kept as digits over a power of ten; digits past the
        // 12th cannot change the result by a nanosecond even for hours.
        var fraction: Int64 = 0
        var fractionScale: Int64 = 1
        var fractionDigits = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, let digit = decimalDigit(bytes[index]) {
                if fractionDigits < 12 {
                    fraction = fraction * 10 + digit
                    fractionScale *= 10
                }
                fractionDigits += 1
                index += 1
            }
            if fractionDigits == 0 { return nil }   // "2." is a typo, not a duration
        }
        if wholeDigits == 0 && fractionDigits == 0 { return nil }
        guard let unit = unitNanos(bytes[index...]) else { return nil }

        let (wholeNanos, overflow) = whole.multipliedReportingOverflow(by: unit)
        if overflow { return nil }
        // fraction < fractionScale, so fraction * unit / fractionScale < unit:
        // exact in 128-bit intermediate arithmetic (sub-nanoseconds truncated).
        let product = fraction.multipliedFullWidth(by: unit)
        let fractionNanos = fractionScale.dividingFullWidth((product.high, product.low)).quotient
        let (total, overflow2) = wholeNanos.addingReportingOverflow(fractionNanos)
        return overflow2 ? nil : total
    }

    /// `s` is written as a duration but its number does not fit in Int64
    /// nanoseconds (292 years): too long rather than malformed.
    public static func isTooLong(_ s: String) -> Bool {
        let bytes = Array(s.utf8)
        var i = 0
        while i < bytes.count, decimalDigit(bytes[i]) != nil { i += 1 }
        let wholeDigits = i
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fractionStart = i
            while i < bytes.count, decimalDigit(bytes[i]) != nil { i += 1 }
            if i == fractionStart { return false }
        }
        return wholeDigits > 0 && unitNanos(bytes[i...]) != nil && nanos(s) == nil
    }

    private static func decimalDigit(_ byte: UInt8) -> Int64? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int64(byte - UInt8(ascii: "0")) : nil
    }

    /// Nanoseconds per unit for the suffix; an empty suffix means seconds.
    private static func unitNanos(_ suffix: ArraySlice<UInt8>) -> Int64? {
        switch String(decoding: suffix, as: UTF8.self) {
        case "", "s": return 1_000_000_000
        case "ms": return 1_000_000
        case "m": return 60_000_000_000
        case "h": return 3_600_000_000_000
        default: return nil
        }
    }
}
