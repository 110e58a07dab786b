#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// Writing JSON tokens into an `OutputBuffer` (RFC 8259): numbers, strings
/// checked as UTF-8 on the way, and base64. Each function reserves what it
/// writes and answers false when the buffer's limit is reached.
extension OutputBuffer {
    /// "00" "01" … "99": two digits per step.
    private static let digitPairs: StaticString = """
        00010203040506070809101112131415161718192021222324252627282930313233343536373839\
        40414243444546474849505152535455565758596061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899
        """

    /// `value` in decimal (within a reservation of 20 bytes).
    @inline(__always)
    mutating func putDecimal(_ value: UInt64) {
        if value < 10 {
            put(UInt8(truncatingIfNeeded: value) &+ 0x30)
            return
        }
        var digits = 1
        var probe = value
        while probe >= 100 { probe /= 100; digits &+= 2 }
        if probe >= 10 { digits &+= 1 }
        var v = value
        var end = count &+ digits
        let pairs = Self.digitPairs.utf8Start
        while v >= 100 {
            let pair = Int(v % 100) &* 2
            v /= 100
            base[end &- 1] = pairs[pair &+ 1]
            base[end &- 2] = pairs[pair]
            end &-= 2
        }
        if v >= 10 {
            base[end &- 1] = pairs[Int(v) &* 2 &+ 1]
            base[end &- 2] = pairs[Int(v) &* 2]
        } else {
            base[end &- 1] = UInt8(truncatingIfNeeded: v) &+ 0x30
        }
        count &+= digits
    }

    /// An integer given as sign and magnitude (magnitude up to 2^64, the
    /// most negative CBOR integer being -2^64 = -1 - (2^64 - 1)): a plain
    /// JSON number while JSON readers hold it exactly (|v| <= 2^53),
    /// otherwise `{"$int":"…"}` (wspipe(1): BINARY CODECS).
    /// `plusOne`: the magnitude is `magnitude + 1` (CBOR's -1 - n).
    @inline(__always)
    mutating func putInteger(negative: Bool, magnitude: UInt64, plusOne: Bool = false) {
        let safe: UInt64 = 1 << 53
        if !plusOne && magnitude <= safe || plusOne && magnitude < safe {
            if negative { put(0x2D) }
            putDecimal(plusOne ? magnitude &+ 1 : magnitude)
            return
        }
        put(#"{"$int":""#)
        if negative { put(0x2D) }
        if plusOne && magnitude == UInt64.max {
            put("18446744073709551616")
        } else {
            putDecimal(plusOne ? magnitude &+ 1 : magnitude)
        }
        put(#""}"#)
    }

    /// Room a number or a small envelope may take.
    static let scalarRoom = 48

    /// A float, always with a fraction or an exponent (`2.0`, never `2`), so
    /// that it reads back as a float; NaN and the infinities, which JSON
    /// lacks, as `{"$float":"NaN"}`, `"Infinity"`, `"-Infinity"`. The digits
    /// are the shortest that read back as the same double (Swift's own
    /// conversion). Within a reservation of `scalarRoom` bytes.
    mutating func putDouble(_ value: Double) {
        if !value.isFinite {
            if value.isNaN {
                put(#"{"$float":"NaN"}"#)
            } else {
                put(value < 0 ? #"{"$float":"-Infinity"}"# : #"{"$float":"Infinity"}"#)
            }
            return
        }
        // Whole numbers below 2^53 are common (prices, coordinates) and
        // need no conversion library: the integer, then ".0".
        let magnitude = value.magnitude
        if magnitude < 1e15, magnitude.rounded(.towardZero) == magnitude, !(value == 0 && value.sign == .minus) {
            if value < 0 { put(0x2D) }
            putDecimal(UInt64(magnitude))
            put(0x2E, 0x30)
            return
        }
        // Swift writes "1e-05", "1e+16", "5e-324", "0.1", "-0.0": all JSON
        // numbers with a fraction or an exponent.
        var text = value.description
        text.withUTF8 { utf8 in
            if let start = utf8.baseAddress { put(start, min(utf8.count, Self.scalarRoom)) }
        }
    }

    /// `n` bytes at `p` (text of a string in the binary format) as a JSON
    /// string token: '"', '\\' and control characters escaped, everything
    /// else copied, UTF-8 checked on the way (RFC 3629: no overlong forms,
    /// no surrogates, nothing above U+10FFFF). Returns -1 when written, the
    /// index of the first byte that is not UTF-8, or -2 past the limit.
    /// `quoted` false: only the text between the quotes (a chunk of a CBOR
    /// string of indefinite length).
    @inline(__always)
    mutating func putString(_ p: UnsafePointer<UInt8>, _ n: Int, quoted: Bool = true) -> Int {
        guard reserve(n &+ 2 &+ Self.slack) else { return -2 }
        var d = count
        if quoted {
            base[d] = 0x22
            d &+= 1
        }
        var i = 0
        while true {
            // Plain bytes 16 at a time: stored whatever they are (the
            // reservation has room), kept up to the first that is not plain.
            while i &+ 16 <= n {
                let v = UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(base + d).storeBytes(of: v, as: SIMD16<UInt8>.self)
                let stop = StringScan.firstStop(v)
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
    /// string token when `bare` (inside an `$ext` envelope). False past the limit.
    @inline(__always)
    mutating func putBytes(_ p: UnsafePointer<UInt8>, _ n: Int, bare: Bool = false) -> Bool {
        guard reserve(Base64Text.encodedLength(n) &+ 16) else { return false }
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
