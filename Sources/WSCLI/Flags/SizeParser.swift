/// Parses byte sizes (wspipe(1): SYNOPSIS): a whole number of bytes ("100", "100B") or
/// one with a binary multiplier: K/M/G, lowercase k/m/g, optionally followed
/// by "i" and/or "B" ("64M", "64MiB", "16KB", "1g"). K is 1024, never 1000.
public enum SizeParser {
    /// Bytes, or nil when `s` is not a size or does not fit in Int.
    public static func bytes(_ s: String) -> Int? {
        let bytes = Array(s.utf8)
        var index = 0
        var value = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int(bytes[index] - UInt8(ascii: "0")))
            if o1 || o2 { return nil }
            value = sum
            index += 1
        }
        if index == 0 { return nil }
        guard let multiplier = multiplier(bytes[index...]) else { return nil }
        let (total, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : total
    }

    /// Multiplier for the suffix: "" or "B" = 1; then K/M/G in either case,
    /// optionally followed by "i", "B" or "iB" (any case).
    private static func multiplier(_ suffix: ArraySlice<UInt8>) -> Int? {
        let text = String(decoding: suffix, as: UTF8.self)
        if text == "" || text == "B" { return 1 }
        guard let first = text.first else { return nil }
        let shift: Int
        switch first {
        case "K", "k": shift = 10
        case "M", "m": shift = 20
        case "G", "g": shift = 30
        default: return nil
        }
        switch text.dropFirst().lowercased() {
        case "", "i", "b", "ib": return 1 << shift
        default: return nil
        }
    }
}
