#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// JSON numbers written at a raw pointer, with room for them reserved by
/// the caller (`JSONNumber.room`): pure functions of the pointer, which
/// return the pointer after what they wrote, so that a converter's write
/// position stays in a register across them (`JSONWriter`).
enum JSONNumber {
    /// Room a number or a small envelope may take.
    static let room = 48

    /// "00" "01" … "99": two digits per step.
    static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// `value` in decimal (at most 20 bytes; up to 8 bytes after the
    /// digits may be written over, within the caller's room).
    @inline(__always)
    static func decimal(_ value: UInt64, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if value < 10 {
            d.pointee = UInt8(truncatingIfNeeded: value) &+ 0x30
            return d + 1
        }
        if value < 100_000_000 { return upToEightDigits(UInt32(truncatingIfNeeded: value), at: d) }
        // Eight digits at a time from the right: the first group as short
        // as it is, the others with their zeros.
        let high = value / 100_000_000
        let low = UInt32(truncatingIfNeeded: value &- high &* 100_000_000)
        var e: UnsafeMutablePointer<UInt8>
        if high < 100_000_000 {
            e = upToEightDigits(UInt32(truncatingIfNeeded: high), at: d)
        } else {
            let top = high / 100_000_000   // at most 1844
            e = upToEightDigits(UInt32(truncatingIfNeeded: top), at: d)
            storeEightDigits(UInt32(truncatingIfNeeded: high &- top &* 100_000_000), at: e)
            e += 8
        }
        storeEightDigits(low, at: e)
        return e + 8
    }

    /// `value` (1 to 10^8 - 1) without leading zeros: the eight digits
    /// shifted past them, in one store of 8 bytes.
    /// (The leading zeros are the low bytes that are '0': found with one
    /// count of trailing zero bits, not by counting digits.)
    @inline(__always)
    private static func upToEightDigits(_ value: UInt32, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let word = eightDigits(value)
        let zeros = (word ^ 0x3030_3030_3030_3030).trailingZeroBitCount & 0x38   // 8 x the zero digits (value > 0)
        UnsafeMutableRawPointer(d).storeBytes(of: (word &>> UInt64(zeros)).littleEndian, as: UInt64.self)
        return d + (8 &- zeros &>> 3)
    }

    /// `value` (< 10^8) as exactly eight digits, leading zeros included.
    @inline(__always)
    private static func storeEightDigits(_ value: UInt32, at d: UnsafeMutablePointer<UInt8>) {
        UnsafeMutableRawPointer(d).storeBytes(of: eightDigits(value).littleEndian, as: UInt64.self)
    }

    /// The eight ASCII digits of `value` (< 10^8), the first in the low
    /// byte, without a division loop: split into two halves of four digits
    /// (one per 32-bit lane), each into two pairs (16-bit lanes), each into
    /// two digits (bytes), with multiplications that divide every lane at
    /// once (x * 10486 >> 20 is x / 100 below 10^4, x * 103 >> 10 is x / 10
    /// below 100).
    @inline(__always)
    static func eightDigits(_ value: UInt32) -> UInt64 {
        let v = UInt64(value)
        let first = v / 10_000
        var x = first | (v &- first &* 10_000) &<< 32
        let hundreds = ((x &* 10_486) &>> 20) & 0x0000_007F_0000_007F
        x = hundreds | (x &- hundreds &* 100) &<< 16
        let tens = ((x &* 103) &>> 10) & 0x000F_000F_000F_000F
        x = tens | (x &- tens &* 10) &<< 8
        return x | 0x3030_3030_3030_3030
    }

    /// An integer given as sign and magnitude (magnitude up to 2^64, the
    /// most negative CBOR integer being -2^64 = -1 - (2^64 - 1)): a plain
    /// JSON number while JSON readers hold it exactly (|v| <= 2^53),
    /// otherwise `{"$int":"…"}` (wspipe(1): BINARY CODECS).
    /// `plusOne`: the magnitude is `magnitude + 1` (CBOR's -1 - n).
    @inline(never)
    static func integer(negative: Bool, magnitude: UInt64, plusOne: Bool = false,
                        at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var d = start
        let safe: UInt64 = 1 << 53
        if !plusOne && magnitude <= safe || plusOne && magnitude < safe {
            if negative { d.pointee = 0x2D; d += 1 }
            return decimal(plusOne ? magnitude &+ 1 : magnitude, at: d)
        }
        d = copy(#"{"$int":""#, to: d)
        if negative { d.pointee = 0x2D; d += 1 }
        if plusOne && magnitude == UInt64.max {
            d = copy("18446744073709551616", to: d)
        } else {
            d = decimal(plusOne ? magnitude &+ 1 : magnitude, at: d)
        }
        return copy(#""}"#, to: d)
    }

    /// A non-negative integer (MessagePack's uint, CBOR's major type 0):
    /// `integer` without the cases of a sign.
    @inline(never)
    static func unsigned(_ value: UInt64, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if value <= 1 << 53 { return decimal(value, at: d) }
        return integer(negative: false, magnitude: value, at: d)
    }

    /// A float, always with a fraction or an exponent (`2.0`, never `2`), so
    /// that it reads back as a float; NaN and the infinities, which JSON
    /// lacks, as `{"$float":"NaN"}`, `"Infinity"`, `"-Infinity"`. The digits
    /// are the shortest that read back as the same double.
    @inline(never)
    static func double(_ value: Double, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if let after = shortDecimal(value, at: d) { return after }
        return doubleSlowly(value, at: d)
    }

    /// Most floats in messages are short decimals (prices, ratios,
    /// coordinates: 64250.37, 0.125): the fewest decimals k (0 to 8) for
    /// which m / 10^k, m the integer nearest value * 10^k, is the double
    /// itself (both exact doubles below 2^53: the division is correctly
    /// rounded), written as m with the point put in. No shorter text reads
    /// back as it: one would have fewer decimals. Nil for the others.
    @inline(__always)
    private static func shortDecimal(_ value: Double, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>? {
        let magnitude = value.magnitude
        if !(magnitude >= 1e-4 && magnitude < 1e15) {
            // Of the rest only 0 (not -0.0, NaN or the infinities).
            guard value == 0 && value.sign == .plus else { return nil }
        }
        var k = 0
        var scaled = magnitude
        var power = 1.0
        while true {
            // The nearest integer (any would do: the division checks it):
            // below 2^52, adding 2^52 leaves it in the low bits of the
            // significand (no call to round(), no checked conversion).
            let whole = (scaled + 4_503_599_627_370_496).bitPattern & 0xF_FFFF_FFFF_FFFF
            if Double(whole) / power == magnitude {
                if magnitude < 1 && k > 0 { return writeFraction(whole, decimals: k, negative: value < 0, at: d) }
                return write(whole, decimals: k, negative: value < 0, at: d)
            }
            k &+= 1
            if k > 8 { return nil }
            power *= 10   // exact: 10^k is a double up to 10^22
            scaled = magnitude * power
            if scaled >= 4_503_599_627_370_496 { return nil }
        }
    }

    /// `m / 10^decimals` below 1 (`m` < 10^decimals, decimals 1 to 8):
    /// "0." and the last `decimals` of the eight digits of `m` (zeros in
    /// front), in one store; no bytes moved.
    @inline(__always)
    private static func writeFraction(_ m: UInt64, decimals: Int, negative: Bool,
                                      at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var d = start
        if negative { d.pointee = 0x2D; d += 1 }
        d[0] = 0x30
        d[1] = 0x2E
        let digits = eightDigits(UInt32(truncatingIfNeeded: m)) &>> UInt64((8 &- decimals) &* 8)
        UnsafeMutableRawPointer(d + 2).storeBytes(of: digits.littleEndian, as: UInt64.self)
        return d + 2 + decimals
    }

    /// `m / 10^decimals` in decimal, with at least one digit each side of the point.
    @inline(__always)
    private static func write(_ m: UInt64, decimals: Int, negative: Bool,
                              at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var d = start
        if negative { d.pointee = 0x2D; d += 1 }
        d = decimal(m, at: d)
        if decimals == 0 {
            d[0] = 0x2E
            d[1] = 0x30
            return d + 2
        }
        // The point before the last `decimals` digits (fewer than the
        // digits: the value is at least 1). (A byte loop: a few bytes,
        // where a call to memmove costs more.)
        let point = d - decimals
        var k = decimals
        while k > 0 { point[k] = point[k &- 1]; k &-= 1 }
        point.pointee = 0x2E
        return d + 1
    }

    /// Any other float: Swift's shortest digits ("1e-05", "1e+16",
    /// "5e-324", "-0.0": all JSON numbers with a fraction or an exponent).
    @inline(never)
    private static func doubleSlowly(_ value: Double, at d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if !value.isFinite {
            if value.isNaN { return copy(#"{"$float":"NaN"}"#, to: d) }
            return copy(value < 0 ? #"{"$float":"-Infinity"}"# : #"{"$float":"Infinity"}"#, to: d)
        }
        var text = value.description
        return text.withUTF8 { utf8 in
            guard let start = utf8.baseAddress else { return d }
            let n = min(utf8.count, room)
            d.update(from: start, count: n)
            return d + n
        }
    }

    @inline(__always)
    static func copy(_ text: StaticString, to d: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let n = text.utf8CodeUnitCount
        d.update(from: text.utf8Start, count: n)
        return d + n
    }
}

/// Writing JSON tokens into an `OutputBuffer` for what is not on a
/// converter's hot path (which writes through a `JSONWriter`): numbers,
/// strings checked as UTF-8 on the way, and base64. Each function reserves
/// what it writes and answers false when the buffer's limit is reached.
extension OutputBuffer {
    /// `JSONNumber.integer`, within a reservation of `JSONNumber.room` bytes.
    mutating func putInteger(negative: Bool, magnitude: UInt64, plusOne: Bool = false) {
        count = JSONNumber.integer(negative: negative, magnitude: magnitude, plusOne: plusOne, at: base + count) - base
    }

    /// `n` bytes at `p` (text of a string in the binary format) as a JSON
    /// string token: '"', '\\' and control characters escaped, everything
    /// else copied, UTF-8 checked on the way (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF). Returns -1 when written, the
    /// index of the first byte that is not UTF-8, or -2 past the limit.
    /// `quoted` false: only the text between the quotes (a chunk of a CBOR
    /// string of indefinite length). (`JSONWriter.string` has the fast
    /// paths of short plain strings.)
    /// `readable`: the bytes that may be read from `p` (at least `n`; the
    /// input's end).
    @inline(__always)
    mutating func putString(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int, quoted: Bool = true) -> Int {
        guard reserve(n &+ 2 &+ Self.slack) else { return -2 }
        // Most strings (keys, names, codes) are short and plain: one
        // 16-byte load and store when the input has 16 bytes to read.
        if n <= 16 && readable >= 16 {
            let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD16<UInt8>.self)
            if StringScan.firstStop(v) >= n {
                var d = count
                if quoted { base[d] = 0x22; d &+= 1 }
                UnsafeMutableRawPointer(base + d).storeBytes(of: v, as: SIMD16<UInt8>.self)
                d &+= n
                if quoted { base[d] = 0x22; d &+= 1 }
                count = d
                return -1
            }
        }
        return putStringSlowly(p, n, readable: readable, quoted: quoted)
    }

    /// SWAR: the high bit set in the lanes of `word` below `bound` (<= 0x80);
    /// exact up to the first such lane.
    @inline(__always)
    static func lanesBelow(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- 0x0101_0101_0101_0101 &* UInt64(bound)) & ~word & 0x8080_8080_8080_8080
    }

    /// SWAR: the high bit set in the lanes of `word` equal to `byte`; exact
    /// up to the first such lane.
    @inline(__always)
    static func lanesEqual(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }

    /// `putString` within its first reservation (n + 2 + slack bytes).
    /// `readable`: the bytes that may be read from `p` (at least `n`).
    /// `plain`: the first bytes of the string, plain ASCII, already written
    /// after the quote (by `JSONWriter.string`).
    @inline(never)
    mutating func putStringSlowly(_ p: UnsafePointer<UInt8>, _ n: Int, readable: Int, quoted: Bool, plain: Int = 0) -> Int {
        var d = count
        if quoted {
            base[d] = 0x22
            d &+= 1
        }
        var i = plain
        d &+= plain
        while true {
            // Plain bytes 16 at a time: stored whatever they are (the
            // reservation has room), kept up to the first that is not plain.
            // The last step may read past the string (not past the input)
            // and keeps only what is the string's.
            while i < n && i &+ 16 <= readable {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(base + d).storeBytes(of: v, as: SIMD16<UInt8>.self)
                let stop = min(StringScan.firstStop(v), n &- i)
                i &+= stop
                d &+= stop
                if stop < 16 { break }
            }
            while i < n {
                let b = p[i]
                if b < 0x20 || b >= 0x80 || b == 0x22 || b == 0x5C { break }
                base[d] = b
                d &+= 1
                i &+= 1
            }
            if i == n { break }
            let b = p[i]
            if b >= 0x80 {
                let length = StringScan.utf8Sequence(p, n, i)
                if length == 0 { return i }
                var k = 0
                while k < length { base[d &+ k] = p[i &+ k]; k &+= 1 }
                d &+= length
                i &+= length
                continue
            }
            // An escape takes up to six bytes for one.
            count = d
            guard reserve(n &- i &+ 8 &+ Self.slack) else { return -2 }
            putEscape(b)
            d = count
            i &+= 1
        }
        if quoted {
            base[d] = 0x22
            d &+= 1
        }
        count = d
        return -1
    }

    /// The escape of one byte that JSON does not allow raw in a string.
    private mutating func putEscape(_ b: UInt8) {
        switch b {
        case 0x22: put(0x5C, 0x22)
        case 0x5C: put(0x5C, 0x5C)
        case 0x0A: put(0x5C, 0x6E)
        case 0x0D: put(0x5C, 0x72)
        case 0x09: put(0x5C, 0x74)
        case 0x08: put(0x5C, 0x62)
        case 0x0C: put(0x5C, 0x66)
        default:
            // \u00XX, lower-case hex as jq writes it.
            let hex: StaticString = "0123456789abcdef"
            put(#"\u00"#)
            put(hex.utf8Start[Int(b &>> 4)], hex.utf8Start[Int(b & 0xF)])
        }
    }

    /// `{"$bytes":"<base64>"}` for `n` bytes at `p`, or only the base64
    /// string token when `bare` (inside an `$ext` envelope). False past the
    /// limit. Leaves room for 8 bytes after it (`JSONWriter`).
    @inline(__always)
    mutating func putBytes(_ p: UnsafePointer<UInt8>, _ n: Int, bare: Bool = false) -> Bool {
        guard reserve(Base64Text.encodedLength(n) &+ 24) else { return false }
        if !bare { put(#"{"$bytes":"#) }
        put(0x22)
        count = Base64Text.encode(p, n, into: base, at: count)
        put(0x22)
        if !bare { put(0x7D) }
        return true
    }
}

/// Scanning the text of a string: what may be copied as is, and UTF-8.
enum StringScan {
    /// Index (0...16) of the first of 16 bytes that is not plain (a control
    /// character, '"', '\\' or non-ASCII), 16 when all are.
    @inline(__always)
    static func firstStop(_ v: SIMD16<UInt8>) -> Int {
        // Controls and non-ASCII bytes are both below 0x20 as signed bytes.
        let stops = (unsafeBitCast(v, to: SIMD16<Int8>.self) .< SIMD16<Int8>(repeating: 0x20))
            .| (v .== SIMD16<UInt8>(repeating: 0x22)) .| (v .== SIMD16<UInt8>(repeating: 0x5C))
        #if arch(x86_64)
        // One pmovmskb: a bit per lane.
        let bits = UInt32(bitPattern: _mm_movemask_epi8(unsafeBitCast(stops, to: __m128i.self)))
        return (bits | 0x1_0000).trailingZeroBitCount
        #else
        let lanes = unsafeBitCast(stops, to: SIMD2<UInt64>.self)
        if lanes[0] != 0 { return lanes[0].trailingZeroBitCount &>> 3 }
        if lanes[1] != 0 { return 8 &+ lanes[1].trailingZeroBitCount &>> 3 }
        return 16
        #endif
    }

    /// Length (2...4) of the UTF-8 sequence whose lead byte is at `i`
    /// (RFC 3629 §4), or 0 when it is not one.
    @inline(__always)
    static func utf8Sequence(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: Int) -> Int {
        var length = 0
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch p[i] {
        case 0xC2 ... 0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1 ... 0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return 0
        }
        if length > n &- i { return 0 }
        var k = 1
        while k < length {
            let b = p[i &+ k]
            if b < low || b > high { return 0 }
            low = 0x80
            high = 0xBF
            k &+= 1
        }
        return length
    }
}
