/// Incremental UTF-8 validator (RFC 3629), fed chunk by chunk across fragments.
/// Fails as soon as a byte makes the sequence invalid (fail fast), even in the
/// middle of a message. Fast path for ASCII (8 bytes at a time).
///
/// RFC 6455 §8.1: "When an endpoint is to interpret a byte stream as UTF-8 but
/// finds that the byte stream is not, in fact, a valid UTF-8 stream, that
/// endpoint MUST _Fail the WebSocket Connection_." The state between chunks is
/// just how many continuation bytes are still due and the range the next one
/// must fall in, which is what RFC 3629 §4's grammar needs:
///
///     UTF8-2 = %xC2-DF UTF8-tail
///     UTF8-3 = %xE0 %xA0-BF UTF8-tail / %xE1-EC 2( UTF8-tail ) /
///              %xED %x80-9F UTF8-tail / %xEE-EF 2( UTF8-tail )
///     UTF8-4 = %xF0 %x90-BF 2( UTF8-tail ) / %xF1-F3 3( UTF8-tail ) /
///              %xF4 %x80-8F 2( UTF8-tail )
///
/// The narrowed second-byte ranges reject overlongs (E0 80-9F, F0 80-8F),
/// surrogates (ED A0-BF) and code points above U+10FFFF (F4 90-BF, F5-FF).
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current character.
    private var pending: UInt8 = 0
    /// Inclusive range the next continuation byte must fall in.
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var failed = false

    public init() {}

    /// Returns false as soon as the bytes seen so far cannot be a prefix of valid UTF-8.
    /// Once it has returned false it keeps returning false until `reset()`.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if failed { return false }
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var pending = self.pending, lower = self.lower, upper = self.upper
        var i = 0
        while i < count {
            if pending == 0 {
                i = UTF8Validator.skipASCII(base, from: i, count: count)
                if i == count { break }
            }
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            i += 1
            if pending > 0 {
                if byte < lower || byte > upper { return fail() }
                pending -= 1
                lower = 0x80
                upper = 0xBF
                continue
            }
            if byte < 0x80 { continue }
            switch byte {
            case 0xC2...0xDF: pending = 1
            case 0xE0: pending = 2; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: pending = 2
            case 0xED: pending = 2; upper = 0x9F
            case 0xF0: pending = 3; lower = 0x90
            case 0xF1...0xF3: pending = 3
            case 0xF4: pending = 3; upper = 0x8F
            default: return fail()  // 80-C1 (stray tail, overlong 2-byte lead), F5-FF
            }
        }
        self.pending = pending
        self.lower = lower
        self.upper = upper
        return true
    }

    /// True when the bytes fed so far end on a character boundary (and were valid).
    public var isAtBoundary: Bool { !failed && pending == 0 }

    public mutating func reset() {
        self = UTF8Validator()
    }

    /// One-shot helper.
    public static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.feed(bytes) && validator.isAtBoundary
    }

    private mutating func fail() -> Bool {
        failed = true
        return false
    }

    /// Index of the first byte at or after `start` that has its high bit set
    /// (or `count`). Checks 64 bytes per step as four 128-bit vectors ORed
    /// together, then 32 and 8 with unaligned 64-bit loads.
    @inline(__always)
    private static func skipASCII(_ base: UnsafeRawPointer, from start: Int, count: Int) -> Int {
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var i = start
        while i + 64 <= count {
            let a = base.loadUnaligned(fromByteOffset: i, as: SIMD2<UInt64>.self)
            let b = base.loadUnaligned(fromByteOffset: i + 16, as: SIMD2<UInt64>.self)
            let c = base.loadUnaligned(fromByteOffset: i + 32, as: SIMD2<UInt64>.self)
            let d = base.loadUnaligned(fromByteOffset: i + 48, as: SIMD2<UInt64>.self)
            let any = (a | b | c | d) & SIMD2(repeating: highBits)
            if any[0] | any[1] != 0 { break }
            i += 64
        }
        while i + 32 <= count {
            let a = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let b = base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            let c = base.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
            let d = base.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            if (a | b | c | d) & highBits != 0 { break }
            i += 32
        }
        while i + 8 <= count {
            if base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & highBits != 0 { break }
            i += 8
        }
        while i < count && base.load(fromByteOffset: i, as: UInt8.self) < 0x80 {
            i += 1
        }
        return i
    }
}
