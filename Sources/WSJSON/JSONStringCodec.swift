extension JSONScanner {
    /// Unescape a JSON string token (with its quotes, known valid) into UTF-8 bytes,
    /// appended to `out`. \u escapes incl. surrogate pairs; a lone surrogate becomes U+FFFD.
    ///
    /// RFC 8259 §7: a character outside the BMP is written as a UTF-16 surrogate
    /// pair of two \u escapes. An unpaired surrogate has no UTF-8 form (RFC 3629
    /// §3), so it becomes U+FFFD (EF BF BD). Runs without a backslash are copied
    /// with one append.
    public static func appendUnescaped(stringToken: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        guard let raw = stringToken.baseAddress, stringToken.count >= 2 else { return }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let end = stringToken.count &- 1          // the closing quote
        var i = 1
        var runStart = 1
        while true {
            // Find the next backslash; the body of a valid token holds no bare '"'.
            while i &+ 8 <= end {
                let mask = SWAR.equal(SWAR.load(p, i), 0x5C)
                if mask != 0 {
                    i &+= SWAR.firstLane(mask)
                    break
                }
                i &+= 8
            }
            while i < end && p[i] != 0x5C { i &+= 1 }
            appendBytes(p, runStart, i, into: &out)
            if i >= end { return }
            i = appendEscape(p, end, at: i, into: &out)
            runStart = i
        }
    }

    /// Decodes the escape whose backslash is at `i` (body ends at `end`);
    /// returns the index after it.
    private static func appendEscape(_ p: UnsafePointer<UInt8>, _ end: Int, at i: Int,
                                     into out: inout [UInt8]) -> Int {
        guard i &+ 1 < end else { return end }
        let e = p[i &+ 1]
        switch e {
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hexUnit(p, end, at: i &+ 2) else {
                appendScalar(0xFFFD, into: &out)
                return min(i &+ 2, end)
            }
            if unit & 0xFC00 == 0xD800 {
                // High surrogate: combine with a following \u low surrogate.
                if i &+ 12 <= end, p[i &+ 6] == 0x5C, p[i &+ 7] == UInt8(ascii: "u"),
                   let next = hexUnit(p, end, at: i &+ 8), next & 0xFC00 == 0xDC00 {
                    appendScalar(0x10000 &+ ((unit &- 0xD800) &<< 10) &+ (next &- 0xDC00), into: &out)
                    return i &+ 12
                }
                appendScalar(0xFFFD, into: &out)
            } else if unit & 0xFC00 == 0xDC00 {
                appendScalar(0xFFFD, into: &out)
            } else {
                appendScalar(unit, into: &out)
            }
            return i &+ 6
        default:
            out.append(e)                          // '"', '\\', '/'
        }
        return i &+ 2
    }

    /// The four hex digits at `i` (before `end`) as a UTF-16 code unit, or nil.
    @inline(__always)
    private static func hexUnit(_ p: UnsafePointer<UInt8>, _ end: Int, at i: Int) -> UInt32? {
        guard i &+ 4 <= end else { return nil }
        var unit: UInt32 = 0
        var k = i
        while k < i &+ 4 {
            let v = hexValue(p[k])
            if v < 0 { return nil }
            unit = unit &<< 4 | UInt32(v)
            k &+= 1
        }
        return unit
    }

    /// UTF-8 encoding of a scalar value (RFC 3629 §3).
    @inline(__always)
    private static func appendScalar(_ v: UInt32, into out: inout [UInt8]) {
        if v < 0x80 {
            out.append(UInt8(v))
        } else if v < 0x800 {
            out.append(UInt8(0xC0 | (v >> 6)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else if v < 0x10000 {
            out.append(UInt8(0xE0 | (v >> 12)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        } else {
            out.append(UInt8(0xF0 | (v >> 18)))
            out.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Append `text` (valid UTF-8) as a JSON string token with quotes, escaping '"',
    /// '\\', and control characters (\n, \r, \t, \b, \f, others \u00XX); everything
    /// else (including non-ASCII) unchanged. Fast path for runs needing no escape.
    ///
    /// RFC 8259 §7 requires escaping exactly these; DEL and non-ASCII pass
    /// through, so the token is as short as possible and jq reads back the same
    /// string.
    public static func appendQuoted(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(0x22)
        guard let raw = text.baseAddress, text.count > 0 else {
            out.append(0x22)
            return
        }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = text.count
        var i = 0
        var runStart = 0
        while true {
            while i &+ 8 <= n {
                let mask = SWAR.quotingStops(SWAR.load(p, i))
                if mask != 0 {
                    i &+= SWAR.firstLane(mask)
                    break
                }
                i &+= 8
            }
            while i < n {
                let b = p[i]
                if b < 0x20 || b == 0x22 || b == 0x5C { break }
                i &+= 1
            }
            appendBytes(p, runStart, i, into: &out)
            if i == n { break }
            appendEscaped(p[i], into: &out)
            i &+= 1
            runStart = i
        }
        out.append(0x22)
    }

    /// The escape for one byte that may not appear raw in a string.
    private static func appendEscaped(_ b: UInt8, into out: inout [UInt8]) {
        out.append(0x5C)
        switch b {
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x08: out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(UInt8(ascii: "f"))
        case 0x0A: out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(UInt8(ascii: "r"))
        case 0x09: out.append(UInt8(ascii: "t"))
        default:
            // \u00XX with lower-case hex, as jq writes it.
            let digits: StaticString = "0123456789abcdef"
            out.append(UInt8(ascii: "u"))
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "0"))
            out.append(digits.utf8Start[Int(b >> 4)])
            out.append(digits.utf8Start[Int(b & 0xF)])
        }
    }
}
