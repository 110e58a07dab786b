#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// The tokens of a JSON text (RFC 8259) for `JSONToBinary`: each one
/// checked as it is read (string escapes, UTF-8, the number grammar), with
/// the byte where a check failed.
struct Reader {
    let p: UnsafePointer<UInt8>
    let n: Int
    var i = 0

    init(p: UnsafePointer<UInt8>, n: Int) {
        self.p = p
        self.n = n
    }

    /// A string token's text, between its quotes.
    struct Token {
        var start: Int
        var end: Int
        /// The text holds a backslash escape.
        var escaped: Bool
    }

    /// The byte at `i`, 0 at the end.
    var peek: UInt8 { i < n ? p[i] : 0 }

    func error(_ reason: String) -> CodecError {
        CodecError(offset: i, reason: i < n ? reason : "input ends: " + reason)
    }

    /// RFC 8259 §2 whitespace.
    @inline(__always)
    mutating func skipBlanks() {
        while i < n {
            let c = p[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i &+= 1
        }
    }

    /// The byte `c` after blanks, then past it.
    @inline(__always)
    mutating func expect(_ c: UInt8, _ what: String) throws(CodecError) {
        skipBlanks()
        guard i < n, p[i] == c else { throw error("expected " + what) }
        i &+= 1
    }

    mutating func literal(_ word: StaticString) throws(CodecError) {
        let count = word.utf8CodeUnitCount
        var k = 0
        while k < count {
            guard i &+ k < n, p[i &+ k] == word.utf8Start[k] else {
                i &+= k
                throw error("invalid literal, expected '\(word)'")
            }
            k &+= 1
        }
        i &+= count
    }

    /// The raw token with its quotes, for what is said about it.
    func text(_ token: Token) -> String {
        String(decoding: UnsafeBufferPointer(start: p + (token.start &- 1), count: token.end &- token.start &+ 2), as: UTF8.self)
    }

    /// A string after blanks: checked (no raw control character, valid
    /// escapes, valid UTF-8), `i` after its closing quote.
    mutating func string(what: String) throws(CodecError) -> Token {
        skipBlanks()
        guard i < n, p[i] == 0x22 else { throw error("expected " + what) }
        i &+= 1
        let start = i
        var escaped = false
        while true {
            while i &+ 16 <= n {
                let stop = StringScan.firstStop(UnsafeRawPointer(p + i).loadUnaligned(as: SIMD16<UInt8>.self))
                i &+= stop
                if stop < 16 { break }
            }
            while i < n {
                let b = p[i]
                if b < 0x20 || b >= 0x80 || b == 0x22 || b == 0x5C { break }
                i &+= 1
            }
            guard i < n else { throw error("unterminated string") }
            let b = p[i]
            if b == 0x22 { break }
            if b == 0x5C {
                escaped = true
                try escape()
            } else if b < 0x20 {
                throw error("control character in a string (write it as an escape)")
            } else {
                let length = StringScan.utf8Sequence(p, n, i)
                guard length > 0 else { throw error("invalid UTF-8 in a string") }
                i &+= length
            }
        }
        let token = Token(start: start, end: i, escaped: escaped)
        i &+= 1
        return token
    }

    /// The escape whose backslash is at `i` (RFC 8259 §7); `i` after it.
    private mutating func escape() throws(CodecError) {
        guard i &+ 1 < n else { throw error("unterminated string") }
        switch p[i &+ 1] {
        case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
            i &+= 2
        case 0x75:
            guard hexUnit(at: i &+ 2) != nil else { throw error("invalid \\u escape (four hex digits)") }
            i &+= 6
        default:
            throw error("invalid escape in a string")
        }
    }

    /// The UTF-16 unit of the four hex digits at `at`, or nil.
    private func hexUnit(at: Int) -> UInt32? {
        guard at &+ 4 <= n else { return nil }
        var unit: UInt32 = 0
        for k in at ..< at &+ 4 {
            let c = p[k]
            let digit: UInt8
            switch c {
            case 0x30 ... 0x39: digit = c &- 0x30
            case 0x41 ... 0x46: digit = c &- 0x41 &+ 10
            case 0x61 ... 0x66: digit = c &- 0x61 &+ 10
            default: return nil
            }
            unit = unit &<< 4 | UInt32(digit)
        }
        return unit
    }

    /// The UTF-8 length of a checked token's text. A surrogate escape that
    /// is not half of a pair has no UTF-8 form (RFC 3629 §3): an error.
    func unescapedLength(_ token: Token) throws(CodecError) -> Int {
        guard token.escaped else { return token.end &- token.start }
        var length = 0
        var k = token.start
        while k < token.end {
            guard p[k] == 0x5C else { length &+= 1; k &+= 1; continue }
            guard p[k &+ 1] == 0x75, let unit = hexUnit(at: k &+ 2) else { length &+= 1; k &+= 2; continue }
            if unit & 0xFC00 == 0xD800, k &+ 12 <= token.end, p[k &+ 6] == 0x5C, p[k &+ 7] == 0x75,
               let low = hexUnit(at: k &+ 8), low & 0xFC00 == 0xDC00 {
                length &+= 4
                k &+= 12
                continue
            }
            if unit & 0xF800 == 0xD800 {
                throw CodecError(offset: k, reason: "lone surrogate \(String(decoding: UnsafeBufferPointer(start: p + k, count: 6), as: UTF8.self)) in a string (it has no UTF-8 form)")
            }
            length &+= unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3
            k &+= 6
        }
        return length
    }

    /// Writes a checked token's text, escapes decoded, within a reservation
    /// of `unescapedLength` bytes.
    func unescape(_ token: Token, into out: inout OutputBuffer) {
        var k = token.start
        while k < token.end {
            let c = p[k]
            guard c == 0x5C else { out.put(c); k &+= 1; continue }
            let e = p[k &+ 1]
            k &+= 2
            switch e {
            case 0x62: out.put(0x08)
            case 0x66: out.put(0x0C)
            case 0x6E: out.put(0x0A)
            case 0x72: out.put(0x0D)
            case 0x74: out.put(0x09)
            case 0x75:
                var scalar = hexUnit(at: k) ?? 0xFFFD
                k &+= 4
                if scalar & 0xFC00 == 0xD800, let low = hexUnit(at: k &+ 2) {
                    scalar = 0x10000 &+ ((scalar &- 0xD800) &<< 10) &+ (low &- 0xDC00)
                    k &+= 6
                }
                putScalar(scalar, &out)
            default: out.put(e)   // " \ /
            }
        }
    }

    private func putScalar(_ v: UInt32, _ out: inout OutputBuffer) {
        if v < 0x80 {
            out.put(UInt8(v))
        } else if v < 0x800 {
            out.put(UInt8(0xC0 | v >> 6), UInt8(0x80 | v & 0x3F))
        } else if v < 0x10000 {
            out.put(UInt8(0xE0 | v >> 12), UInt8(0x80 | v >> 6 & 0x3F))
            out.put(UInt8(0x80 | v & 0x3F))
        } else {
            out.put(UInt8(0xF0 | v >> 18), UInt8(0x80 | v >> 12 & 0x3F))
            out.put(UInt8(0x80 | v >> 6 & 0x3F), UInt8(0x80 | v & 0x3F))
        }
    }

    /// Which envelope a key names (`$text` and `$binary` are no envelopes
    /// inside a value: plain keys there).
    func envelopeKind(_ key: Token) throws(CodecError) -> EnvelopeKey.Kind? {
        var kind: EnvelopeKey.Kind?
        if !key.escaped {
            guard key.end &- key.start >= 4, p[key.start] == 0x24 else { return nil }
            kind = EnvelopeKey.kind(p + key.start, key.end &- key.start)
        } else {
            // An escaped spelling ("\u0024bytes") is the same key.
            let length = try unescapedLength(key)
            guard length <= 16 else { return nil }
            var buffer = OutputBuffer(capacity: 64, limit: 64)
            defer { buffer.deallocate() }
            unescape(key, into: &buffer)
            kind = EnvelopeKey.kind(buffer.base, buffer.count)
        }
        return kind == .text || kind == .binary ? nil : kind
    }

    /// A number (RFC 8259 §6 grammar), `i` after it. Its value when it is
    /// not an integer and the quick conversion holds it exactly.
    mutating func number() throws(CodecError) -> (isInteger: Bool, value: Double?) {
        let start = i
        if p[i] == 0x2D { i &+= 1 }
        guard i < n, p[i] &- 0x30 < 10 else { throw error("invalid number: expected a digit") }
        if p[i] == 0x30 {
            i &+= 1
            if i < n && p[i] &- 0x30 < 10 { throw error("invalid number: leading zero") }
        } else {
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        }
        var integer = true
        if i < n && p[i] == 0x2E {
            integer = false
            i &+= 1
            guard i < n, p[i] &- 0x30 < 10 else { throw error("invalid number: expected a digit after '.'") }
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        }
        if i < n && p[i] | 0x20 == 0x65 {
            integer = false
            i &+= 1
            if i < n && (p[i] == 0x2B || p[i] == 0x2D) { i &+= 1 }
            guard i < n, p[i] &- 0x30 < 10 else { throw error("invalid number: expected a digit in the exponent") }
            while i < n && p[i] &- 0x30 < 10 { i &+= 1 }
        }
        return (integer, integer ? nil : FloatText.quick(p + start, i &- start))
    }

    /// A non-negative integer (a tag number, a simple value) after blanks.
    mutating func unsigned(what: String) throws(CodecError) -> UInt64 {
        skipBlanks()
        let start = i
        guard i < n, p[i] &- 0x30 < 10 else { throw error("expected " + what) }
        let scan = try number()
        guard scan.isInteger, let value = UInt64(decimal: p + start, i &- start) else {
            throw CodecError(offset: start, reason: "expected " + what)
        }
        return value
    }

    /// `$ext`'s type: an integer from -128 to 127.
    mutating func extType() throws(CodecError) -> Int8 {
        skipBlanks()
        let start = i
        let what = "an extension type (an integer from -128 to 127)"
        guard i < n, p[i] == 0x2D || p[i] &- 0x30 < 10 else { throw error("expected " + what) }
        let scan = try number()
        let negative = p[start] == 0x2D
        let digits = negative ? start &+ 1 : start
        guard scan.isInteger, let magnitude = UInt64(decimal: p + digits, i &- digits),
              negative ? magnitude <= 128 : magnitude <= 127 else {
            throw CodecError(offset: start, reason: "expected " + what)
        }
        return Int8(truncatingIfNeeded: negative ? 0 &- Int64(magnitude) : Int64(magnitude))
    }
}

extension UInt64 {
    /// The value of `count` decimal digits at `p`, nil past UInt64.max.
    init?(decimal p: UnsafePointer<UInt8>, _ count: Int) {
        var value: UInt64 = 0
        for k in 0 ..< count {
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(p[k] &- 0x30))
            if o1 || o2 { return nil }
            value = sum
        }
        self = value
    }
}

/// Decimal text to a double, correctly rounded.
enum FloatText {
    /// Exact powers of ten as doubles (10^22 is the last one).
    private static let exactPowers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                                1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The value of a JSON number of `count` bytes at `p` when the digits
    /// (at most 2^53) and the power of ten (at most 10^22) are both exact
    /// doubles: one correctly rounded multiplication or division (Clinger's
    /// fast path). Nil otherwise.
    static func quick(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double? {
        var k = 0
        let negative = p[0] == 0x2D
        if negative { k = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var fraction = false
        while k < count {
            let c = p[k]
            if c == 0x2E {
                fraction = true
            } else if c &- 0x30 < 10 {
                if mantissa != 0 || c != 0x30 { digits &+= 1 }
                if digits > 16 { return nil }
                mantissa = mantissa &* 10 &+ UInt64(c &- 0x30)
                if fraction { exponent &-= 1 }
            } else {
                break
            }
            k &+= 1
        }
        if k < count {
            // The exponent.
            k &+= 1
            var sign = 1
            if p[k] == 0x2D { sign = -1; k &+= 1 } else if p[k] == 0x2B { k &+= 1 }
            var e = 0
            while k < count {
                e = e &* 10 &+ Int(p[k] &- 0x30)
                if e > 400 { return nil }
                k &+= 1
            }
            exponent &+= sign &* e
        }
        guard mantissa <= 1 << 53, exponent >= -22, exponent <= 22 else { return nil }
        var value = Double(mantissa)
        value = exponent < 0 ? value / exactPowers[-exponent] : value * exactPowers[exponent]
        return negative ? -value : value
    }

    /// Any JSON number: the quick path, else the standard library's
    /// conversion (strtod's, correctly rounded). Infinite when too large.
    static func parse(_ p: UnsafePointer<UInt8>, _ count: Int) -> Double {
        if let value = quick(p, count) { return value }
        let text = String(decoding: UnsafeBufferPointer(start: p, count: count), as: UTF8.self)
        return Double(text) ?? .nan
    }
}
