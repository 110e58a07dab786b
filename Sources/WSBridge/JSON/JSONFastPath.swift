/// The validator's fast path: the RFC 8259 grammar of `JSONScanner.scan`, in
/// a form that only answers "valid" (and whether compaction is needed). Every
/// message goes through it in both directions, so it is written for few
/// instructions per token: one loop that reads a value and then everything
/// that can follow it, string bodies 16 bytes per step with SSE2-style vector
/// compares, and no error bookkeeping at all.
///
/// When it cannot say "valid" (the text is invalid or incomplete, or nests
/// deeper than 64 levels) the caller runs the full scan, which finds the
/// exact position and reason; the full scan is also the reference this path
/// is tested against.
enum JSONFastPath {
    /// 0: valid; 1: valid, and the whitespace outside strings holds '\n' or
    /// '\r' (needs compaction); -1: not known valid (run the full scan).
    static func check(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var i = 0
        var lineBreak = false
        var depth = 0
        // Bit k set: open container k (0 = outermost) is an object.
        var objects: UInt64 = 0

        while true {
            // A value starts here (after optional whitespace).
            if !skipWhitespace(p, n, &i, &lineBreak) { return -1 }
            switch p[i] {
            case 0x22:  // '"'
                i = string(p, n, i &+ 1)
                if i < 0 { return -1 }
            case 0x7B:  // '{'
                i &+= 1
                if !skipWhitespace(p, n, &i, &lineBreak) { return -1 }
                if p[i] == 0x7D {  // '}': empty object
                    i &+= 1
                } else {
                    if depth == 64 { return -1 }
                    objects |= 1 &<< UInt64(depth)
                    depth &+= 1
                    i = member(p, n, i, &lineBreak)
                    if i < 0 { return -1 }
                    continue
                }
            case 0x5B:  // '['
                i &+= 1
                if !skipWhitespace(p, n, &i, &lineBreak) { return -1 }
                if p[i] == 0x5D {  // ']': empty array
                    i &+= 1
                } else {
                    if depth == 64 { return -1 }
                    objects &= ~(1 &<< UInt64(depth))
                    depth &+= 1
                    continue
                }
            case 0x2D, 0x30 ... 0x39:  // '-', digits
                i = number(p, n, i)
                if i < 0 { return -1 }
            case 0x74:  // "true"
                i = literal(p, n, i, 0x6575_7274, 4)
                if i < 0 { return -1 }
            case 0x66:  // "false": "fals" as a word, then 'e'
                i = literal(p, n, i, 0x736C_6166, 5)
                if i < 0 { return -1 }
            case 0x6E:  // "null"
                i = literal(p, n, i, 0x6C6C_756E, 4)
                if i < 0 { return -1 }
            default:
                return -1
            }

            // A value ended: closers pop, a comma asks for the next value.
            while true {
                if !skipWhitespace(p, n, &i, &lineBreak) {
                    return depth == 0 && i == n ? (lineBreak ? 1 : 0) : -1
                }
                if depth == 0 { return -1 }   // trailing characters
                let c = p[i]
                i &+= 1
                let inObject = (objects &>> UInt64(depth &- 1)) & 1 != 0
                if c == 0x2C {  // ','
                    if inObject {
                        if !skipWhitespace(p, n, &i, &lineBreak) { return -1 }
                        i = member(p, n, i, &lineBreak)
                        if i < 0 { return -1 }
                    }
                    break
                }
                if c != (inObject ? 0x7D : 0x5D) { return -1 }
                depth &-= 1
            }
        }
    }

    /// Skips RFC 8259 §2 whitespace; false at the end of the input (or a
    /// control byte that is not whitespace, which no grammar rule accepts).
    @inline(__always)
    private static func skipWhitespace(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int,
                                       _ lineBreak: inout Bool) -> Bool {
        while i < n {
            let c = p[i]
            if c > 0x20 { return true }
            if c == 0x0A || c == 0x0D {
                lineBreak = true
            } else if c != 0x20 && c != 0x09 {
                return false
            }
            i &+= 1
        }
        return false
    }

    /// An object member from its key (at `i`, after whitespace) through the
    /// colon and the whitespace after it; returns the index of its value.
    @inline(__always)
    private static func member(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, _ lineBreak: inout Bool) -> Int {
        if p[start] != 0x22 { return -1 }
        var i = string(p, n, start &+ 1)
        if i < 0 { return -1 }
        if !skipWhitespace(p, n, &i, &lineBreak) || p[i] != 0x3A { return -1 }  // ':'
        return i &+ 1
    }

    /// A string body from `start` (after the opening quote); returns the
    /// index after the closing quote, or -1. Plain bytes go 16 at a time:
    /// a signed compare finds controls and non-ASCII bytes at once (both are
    /// below 0x20 as signed bytes), two more find '"' and '\\'.
    private static func string(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> Int {
        let control = SIMD16<Int8>(repeating: 0x20)
        let quote = SIMD16<UInt8>(repeating: 0x22)
        let backslash = SIMD16<UInt8>(repeating: 0x5C)
        var i = start
        while true {
            while i &+ 16 <= n {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)
                let stops = (unsafeBitCast(v, to: SIMD16<Int8>.self) .< control) .| (v .== quote) .| (v .== backslash)
                if any(stops) {
                    let lanes = unsafeBitCast(stops, to: SIMD2<UInt64>.self)
                    i &+= lanes[0] != 0 ? lanes[0].trailingZeroBitCount &>> 3
                                        : 8 &+ lanes[1].trailingZeroBitCount &>> 3
                    break
                }
                i &+= 16
            }
            // Fewer than 16 bytes left, or `i` is at a stop.
            while i < n {
                let b = p[i]
                if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                i &+= 1
            }
            if i == n { return -1 }
            let c = p[i]
            if c == 0x22 { return i &+ 1 }
            if c == 0x5C {
                i = escape(p, n, i)
            } else if c < 0x20 {
                return -1
            } else {
                i = utf8Sequence(p, n, i)
            }
            if i < 0 { return -1 }
        }
    }

    /// The escape whose backslash is at `i` (RFC 8259 §7); index after it, or -1.
    @inline(__always)
    private static func escape(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int) -> Int {
        if i &+ 1 >= n { return -1 }
        switch p[i &+ 1] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:  // " \ / b f n r t
            return i &+ 2
        case 0x75:  // u XXXX
            if i &+ 6 > n { return -1 }
            for k in 2 ..< 6 where JSONScanner.hexValue(p[i &+ k]) < 0 { return -1 }
            return i &+ 6
        default:
            return -1
        }
    }

    /// A multi-byte UTF-8 sequence whose lead byte is at `i` (RFC 3629 §4,
    /// the same ranges as `JSONScanner.validateUTF8Sequence`); index after it, or -1.
    @inline(__always)
    private static func utf8Sequence(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int) -> Int {
        var count = 0
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch p[i] {
        case 0xC2 ... 0xDF: count = 2
        case 0xE0: count = 3; low = 0xA0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: count = 3
        case 0xED: count = 3; high = 0x9F
        case 0xF0: count = 4; low = 0x90
        case 0xF1 ... 0xF3: count = 4
        case 0xF4: count = 4; high = 0x8F
        default: return -1
        }
        if i &+ count > n { return -1 }
        var k = 1
        while k < count {
            let b = p[i &+ k]
            if b < low || b > high { return -1 }
            low = 0x80
            high = 0xBF
            k &+= 1
        }
        return i &+ count
    }

    /// number = [ minus ] int [ frac ] [ exp ] (RFC 8259 §6), starting at
    /// `start`; index after it, or -1.
    @inline(__always)
    private static func number(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> Int {
        var i = start
        if p[i] == 0x2D {
            i &+= 1
            if i == n { return -1 }
        }
        let first = p[i]
        if first == 0x30 {
            i &+= 1
            if i < n && p[i] &- 0x30 < 10 { return -1 }   // leading zero
        } else if first &- 0x31 < 9 {
            i &+= 1
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        } else {
            return -1
        }
        if i < n && p[i] == 0x2E {  // '.'
            i &+= 1
            if i == n || p[i] &- 0x30 >= 10 { return -1 }
            i &+= 1
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        }
        if i < n && p[i] | 0x20 == 0x65 {  // 'e' or 'E'
            i &+= 1
            if i < n && (p[i] == 0x2B || p[i] == 0x2D) { i &+= 1 }
            if i == n || p[i] &- 0x30 >= 10 { return -1 }
            i &+= 1
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        }
        return i
    }

    /// true / false / null: `head` is the first four bytes as a little-endian
    /// word; a five-byte literal ("false") ends with 'e'. Index after it, or -1.
    @inline(__always)
    private static func literal(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, _ head: UInt32, _ count: Int) -> Int {
        if start &+ count > n { return -1 }
        let word = UInt32(littleEndian: UnsafeRawPointer(p + start).loadUnaligned(as: UInt32.self))
        if word != head || (count == 5 && p[start &+ 4] != 0x65) { return -1 }
        return start &+ count
    }
}
