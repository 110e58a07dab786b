/// Moving over JSON already known valid: whitespace, whole strings and whole
/// values, without checking anything on the way. Shared by compaction and key
/// lookup. Every read is bounds-checked against `n`, so invalid input gives
/// a wrong answer, never a bad memory access.
public enum JSONSkipper {
    /// RFC 8259 §2 insignificant whitespace.
    @inline(__always)
    public static func isWhitespace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    /// Index of the first non-whitespace byte at or after `i` (or `n`).
    @inline(__always)
    /// `range` without JSON whitespace at either end (RFC 8259 §2).
    public static func trimmingWhitespace(_ range: Range<Int>, in json: UnsafeRawBufferPointer) -> Range<Int> {
        var lower = range.lowerBound
        var upper = range.upperBound
        while lower < upper && isWhitespace(json[lower]) { lower += 1 }
        while upper > lower && isWhitespace(json[upper - 1]) { upper -= 1 }
        return lower ..< upper
    }

    static func skipWhitespace(_ p: UnsafePointer<UInt8>, _ n: Int, from i: Int) -> Int {
        var i = i
        while i < n && isWhitespace(p[i]) { i &+= 1 }
        return i
    }

    /// Index after the closing quote of the string whose opening quote is at
    /// `start - 1`. `sawEscape` becomes true if the body holds a backslash.
    @inline(__always)
    static func skipString(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int,
                           sawEscape: inout Bool) -> Int {
        var i = start
        while true {
            let found = SWAR.findStop(p, n, &i, SWAR.skippingStops)
            if !found {
                while i < n && p[i] != 0x22 && p[i] != 0x5C { i &+= 1 }
                if i >= n { return n }
            }
            if p[i] == 0x22 { return i &+ 1 }
            // A backslash: the escaped byte can be '"' or '\\', never the end.
            sawEscape = true
            i &+= 2
        }
    }

    /// Index after the value starting at `i` (a non-whitespace byte).
    /// Containers are skipped by counting brackets outside strings.
    static func skipValue(_ p: UnsafePointer<UInt8>, _ n: Int, from i: Int) -> Int {
        guard i < n else { return n }
        var escape = false
        switch p[i] {
        case 0x22:
            return skipString(p, n, from: i &+ 1, sawEscape: &escape)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var j = i
            while j < n {
                switch p[j] {
                case 0x22:
                    j = skipString(p, n, from: j &+ 1, sawEscape: &escape)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth &+= 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth &-= 1
                    if depth == 0 { return j &+ 1 }
                default:
                    break
                }
                j &+= 1
            }
            return n
        default:
            // Number or literal: ends at a delimiter.
            var j = i &+ 1
            while j < n {
                let b = p[j]
                if isWhitespace(b) || b == UInt8(ascii: ",") || b == UInt8(ascii: "}")
                    || b == UInt8(ascii: "]") { break }
                j &+= 1
            }
            return j
        }
    }
}
