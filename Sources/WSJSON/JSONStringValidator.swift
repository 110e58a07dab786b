extension JSONScanner {
    /// Validates a string token whose opening quote is at `start - 1`; returns the
    /// index after the closing quote, or -1 with `failure` filled in.
    ///
    /// RFC 8259 §7: any scalar may appear unescaped except '"', '\\' and the
    /// control characters U+0000-U+001F; escapes are \" \\ \/ \b \f \n \r \t and
    /// \uXXXX. Lone surrogate escapes are grammatical (§8.2), so they pass.
    /// §8.1: the text must be UTF-8; RFC 3629 §4 gives the well-formed sequences.
    ///
    /// Plain bytes are skipped 16 at a time; only stops (quote, backslash, control,
    /// non-ASCII) are looked at one by one.
    @inline(__always)
    static func validateString(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int,
                               _ failure: inout ScanFailure) -> Int {
        var i = start
        while true {
            var found = SWAR.findStop(p, n, &i, SWAR.validationStops)
            if !found {
                while i < n {
                    let b = p[i]
                    if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 {
                        found = true
                        break
                    }
                    i &+= 1
                }
                if !found { return failure.setIncomplete(n) }
            }

            let c = p[i]
            if c == 0x22 { return i &+ 1 }
            if c == 0x5C {
                i = validateEscape(p, n, at: i, &failure)
                if i < 0 { return -1 }
            } else if c < 0x20 {
                return failure.set(i, "control character U+\(hex4(UInt16(c))) in string")
            } else {
                i = validateUTF8Sequence(p, n, at: i, &failure)
                if i < 0 { return -1 }
            }
        }
    }

    /// The escape whose backslash is at `i`; returns the index after it. Errors
    /// point at the backslash (where the bad escape starts).
    @inline(__always)
    private static func validateEscape(_ p: UnsafePointer<UInt8>, _ n: Int, at i: Int,
                                       _ failure: inout ScanFailure) -> Int {
        if i &+ 1 == n { return failure.setIncomplete(n) }
        switch p[i &+ 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return i &+ 2
        case UInt8(ascii: "u"):
            var k = i &+ 2
            while k < i &+ 6 {
                if k == n { return failure.setIncomplete(n) }
                if hexValue(p[k]) < 0 {
                    return failure.set(i, "invalid \\u escape in string: expected 4 hex digits")
                }
                k &+= 1
            }
            return k
        case let e:
            if e > 0x20 && e < 0x7F {
                return failure.set(i, "invalid escape '\\\(Character(Unicode.Scalar(e)))' in string")
            }
            return failure.set(i, "invalid escape in string")
        }
    }

    /// A multi-byte UTF-8 sequence whose lead byte (>= 0x80) is at `i`
    /// (RFC 3629 §4); returns the index after it. Errors point at the lead byte.
    /// A valid prefix cut by the end of input is incomplete.
    @inline(__always)
    private static func validateUTF8Sequence(_ p: UnsafePointer<UInt8>, _ n: Int, at i: Int,
                                             _ failure: inout ScanFailure) -> Int {
        let lead = p[i]
        var count: Int
        // The second byte's range is narrower for some leads: no overlong forms
        // (E0, F0), no surrogates (ED), nothing above U+10FFFF (F4).
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: count = 2
        case 0xE0: count = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: count = 3
        case 0xED: count = 3; high = 0x9F
        case 0xF0: count = 4; low = 0x90
        case 0xF1...0xF3: count = 4
        case 0xF4: count = 4; high = 0x8F
        default: return failure.set(i, "invalid UTF-8 in string")
        }
        var k = 1
        while k < count {
            if i &+ k == n { return failure.setIncomplete(n) }
            let b = p[i &+ k]
            if b < low || b > high { return failure.set(i, "invalid UTF-8 in string") }
            low = 0x80
            high = 0xBF
            k &+= 1
        }
        return i &+ count
    }

    /// Value of an ASCII hex digit (either case), or -1.
    @inline(__always)
    static func hexValue(_ b: UInt8) -> Int {
        if b &- 0x30 < 10 { return Int(b &- 0x30) }
        let lower = b | 0x20
        if lower &- 0x61 < 6 { return Int(lower &- 0x61) &+ 10 }
        return -1
    }

    /// Four upper-case hex digits, for messages such as "U+001F".
    static func hex4(_ value: UInt16) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var text = ""
        var shift = 12
        while shift >= 0 {
            text.unicodeScalars.append(Unicode.Scalar(digits[Int((value >> UInt16(shift)) & 0xF)]))
            shift -= 4
        }
        return text
    }
}
