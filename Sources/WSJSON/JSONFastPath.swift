#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

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
///
/// The vector steps have two forms (`StringStops`): x86-64's, and the
/// portable one every other machine runs (Apple Silicon, arm64 Linux). Both
/// are compiled on every machine, and the property tests run both
/// (`checkPortable`), so the branch a Mac takes has run before a Mac does.
@usableFromInline
enum JSONFastPath {
    /// 0: valid; 1: valid, and the whitespace outside strings holds '\n' or
    /// '\r' (needs compaction); -1: not known valid (run the full scan).
    @usableFromInline
    static func check(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        scan(p, n, NativeStops.self)
    }

    /// `check` with the portable vector steps, whatever this machine is: for
    /// the tests (and the fuzzer) to hold it to the same answers.
    static func checkPortable(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        scan(p, n, PortableStops.self)
    }

    /// One loop over the tokens with what the grammar expects next: a value,
    /// an object key, or whatever may follow a value. Strings (keys and
    /// values) are scanned in one place, so the vector constants stay in
    /// registers for the whole text. Inlined into `check` with the machine's
    /// `Stops`, so the choice costs nothing at run time.
    @inline(__always)
    private static func scan<Stops: StringStops>(_ p: UnsafePointer<UInt8>, _ n: Int, _: Stops.Type) -> Int {
        var i = 0
        var lineBreak = false
        var depth = 0
        // Bit k set: open container k (0 = outermost) is an object.
        var objects: UInt64 = 0
        var expect = Expect.value

        while true {
            // RFC 8259 §2 whitespace; only '\n' and '\r' force compaction.
            var c: UInt8 = 0
            while true {
                if i == n {
                    return expect == .separator && depth == 0 ? (lineBreak ? 1 : 0) : -1
                }
                c = p[i]
                if c > 0x20 { break }
                if c == 0x0A || c == 0x0D {
                    lineBreak = true
                } else if c != 0x20 && c != 0x09 {
                    return -1
                }
                i &+= 1
            }

            if expect == .separator {
                // After a value: a comma asks for the next one, closers pop.
                if depth == 0 { return -1 }   // trailing characters
                i &+= 1
                let inObject = (objects &>> UInt64(depth &- 1)) & 1 != 0
                if c == 0x2C {  // ','
                    expect = inObject ? .key : .value
                } else if c == (inObject ? 0x7D : 0x5D) {  // '}' or ']'
                    depth &-= 1
                } else {
                    return -1
                }
                continue
            }

            if c == 0x22 {  // '"': a key or a string value
                i &+= 1
                while true {
                    // Plain bytes 16 at a time, and past the first 16 (a
                    // long string) 64, then 32 at a time.
                    if i &+ 16 <= n {
                        let first = Stops.firstStop(stops(p + i))
                        if first == 16 {
                            i &+= 16
                            while i &+ 64 <= n && Stops.isEmpty(stops(p + i) .| stops(p + (i &+ 16))
                                                                .| stops(p + (i &+ 32)) .| stops(p + (i &+ 48))) {
                                i &+= 64
                            }
                            while i &+ 32 <= n && Stops.isEmpty(stops(p + i) .| stops(p + (i &+ 16))) {
                                i &+= 32
                            }
                            continue
                        }
                        i &+= first
                    } else {
                        while i < n {
                            let b = p[i]
                            if b == 0x22 || b == 0x5C || b < 0x20 || b >= 0x80 { break }
                            i &+= 1
                        }
                        if i == n { return -1 }
                    }
                    let stop = p[i]
                    if stop == 0x22 { break }
                    if stop == 0x5C {
                        i = escape(p, n, i)
                    } else if stop < 0x20 {
                        return -1
                    } else {
                        i = utf8Sequence(p, n, i)
                    }
                    if i < 0 { return -1 }
                }
                i &+= 1
                if expect == .key {
                    // The colon, then the member's value. (Written out, not
                    // `skipBlanks`: that cost 11 instructions more per 100 B
                    // message, callgrind.)
                    while i < n && p[i] <= 0x20 {
                        if p[i] == 0x0A || p[i] == 0x0D { lineBreak = true } else if p[i] != 0x20 && p[i] != 0x09 { return -1 }
                        i &+= 1
                    }
                    if i == n || p[i] != 0x3A { return -1 }
                    i &+= 1
                    expect = .value
                } else {
                    expect = .separator
                }
                continue
            }
            if expect == .key { return -1 }

            // '{' and '[' stay two cases: one case closing with `c + 2` cost
            // 13 instructions more per 100 B message (callgrind).
            switch c {
            case 0x7B:  // '{'
                i = skipBlanks(p, n, i &+ 1, &lineBreak)
                if i < n && p[i] == 0x7D {  // '}': empty object
                    i &+= 1
                    expect = .separator
                } else {
                    if depth == 64 { return -1 }
                    objects |= 1 &<< UInt64(depth)
                    depth &+= 1
                    expect = .key
                }
            case 0x5B:  // '['
                i = skipBlanks(p, n, i &+ 1, &lineBreak)
                if i < n && p[i] == 0x5D {  // ']': empty array
                    i &+= 1
                    expect = .separator
                } else {
                    if depth == 64 { return -1 }
                    objects &= ~(1 &<< UInt64(depth))
                    depth &+= 1
                }
            case 0x2D, 0x30 ... 0x39:  // '-', digits
                i = number(p, n, i)
                if i < 0 { return -1 }
                expect = .separator
            case 0x74:  // "true"
                i = literal(p, n, i, 0x6575_7274, 4)
                if i < 0 { return -1 }
                expect = .separator
            case 0x66:  // "false": "fals" as a word, then 'e'
                i = literal(p, n, i, 0x736C_6166, 5)
                if i < 0 { return -1 }
                expect = .separator
            case 0x6E:  // "null"
                i = literal(p, n, i, 0x6C6C_756E, 4)
                if i < 0 { return -1 }
                expect = .separator
            default:
                return -1
            }
        }
    }

    /// The lanes of the 16 bytes at `p` where a string body must stop: one
    /// signed compare finds controls and non-ASCII bytes (both below 0x20 as
    /// signed bytes), two more find '"' and '\\'.
    @inline(__always)
    private static func stops(_ p: UnsafePointer<UInt8>) -> SIMDMask<SIMD16<Int8>> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
        return (unsafeBitCast(v, to: SIMD16<Int8>.self) .< SIMD16<Int8>(repeating: 0x20))
            .| (v .== SIMD16<UInt8>(repeating: 0x22)) .| (v .== SIMD16<UInt8>(repeating: 0x5C))
    }

    /// What the grammar expects at the next token.
    private enum Expect {
        case value
        case key
        /// A comma or a closer (or the end, at the top level).
        case separator
    }

    /// Skips RFC 8259 §2 whitespace from `start` (noting line breaks); a
    /// control byte that is not whitespace stops it like any other byte.
    @inline(__always)
    private static func skipBlanks(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int, _ lineBreak: inout Bool) -> Int {
        var i = start
        while i < n {
            let c = p[i]
            if c == 0x0A || c == 0x0D {
                lineBreak = true
            } else if c != 0x20 && c != 0x09 {
                break
            }
            i &+= 1
        }
        return i
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

/// The two questions the string steps ask of a 16-lane mask of stop bytes
/// (`JSONFastPath.stops`): is no lane set, and which lane is the first set.
/// Not `any`: the optimizer does not always inline it, and a call per 16
/// bytes would cost more than the scan.
protocol StringStops {
    static func isEmpty(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool
    /// Index (0...15) of the first lane set, or 16 when none is. Short
    /// strings (keys, most values) end in their first 16 bytes: this is
    /// their whole scan.
    static func firstStop(_ mask: SIMDMask<SIMD16<Int8>>) -> Int
}

#if arch(x86_64)
/// x86-64: one pmovmskb says it.
enum SSE2Stops: StringStops {
    @inline(__always)
    static func isEmpty(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        _mm_movemask_epi8(unsafeBitCast(mask, to: __m128i.self)) == 0
    }

    @inline(__always)
    static func firstStop(_ mask: SIMDMask<SIMD16<Int8>>) -> Int {
        let bits = UInt32(bitPattern: _mm_movemask_epi8(unsafeBitCast(mask, to: __m128i.self)))
        return (bits | 0x1_0000).trailingZeroBitCount
    }
}

typealias NativeStops = SSE2Stops
#else
typealias NativeStops = PortableStops
#endif

/// Every other machine: the mask as two 64-bit halves (a set lane is 0xFF).
enum PortableStops: StringStops {
    @inline(__always)
    static func isEmpty(_ mask: SIMDMask<SIMD16<Int8>>) -> Bool {
        let words = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return words[0] | words[1] == 0
    }

    @inline(__always)
    static func firstStop(_ mask: SIMDMask<SIMD16<Int8>>) -> Int {
        let lanes = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        if lanes[0] != 0 { return lanes[0].trailingZeroBitCount &>> 3 }
        return lanes[1] != 0 ? 8 &+ lanes[1].trailingZeroBitCount &>> 3 : 16
    }
}
