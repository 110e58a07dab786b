/// A converter's write position in its `OutputBuffer`, kept in registers
/// for the whole message: `d`, the next byte, and `end`, the end of the
/// allocation. The buffer itself is the converter's `inout` parameter, in
/// memory; were the position read from there, every byte stored through
/// the buffer's pointer could be a store to it, and it would be loaded
/// again after each one.
///
/// After each value a converter writes (a number within `JSONNumber.room`,
/// a string within its reservation of `slack` more bytes than it takes,
/// `$bytes` and `$ext` envelopes) there is room for 8 more bytes: the
/// comma or brackets that follow it need no reservation of their own.
///
/// So the rule is: a `JSONWriter` lives in a local variable and is never
/// passed by address to a call that is not inlined (it would go to memory
/// for the whole function). The slow paths take it by value and give back
/// a new one (`grown`, `stringSlowly`), and code that writes to the
/// buffer directly runs between `sync` and `JSONWriter(out)`.
struct JSONWriter {
    var d: UnsafeMutablePointer<UInt8>
    var end: UnsafeMutablePointer<UInt8>

    @inline(__always)
    init(_ out: OutputBuffer) {
        d = out.base + out.count
        end = out.base + out.capacity
    }

    /// Gives the position back to the buffer: before something else writes
    /// to it, and when the converter is done.
    @inline(__always)
    func sync(_ out: inout OutputBuffer) {
        out.count = d - out.base
    }

    /// The bytes written since the buffer's start.
    @inline(__always)
    func count(_ out: OutputBuffer) -> Int { d - out.base }

    /// Room for `n` more bytes; false when that would pass the limit.
    @inline(__always)
    mutating func reserve(_ n: Int, _ out: inout OutputBuffer) -> Bool {
        if n <= end - d { return true }
        guard let moved = Self.grown(self, n, &out) else { return false }
        self = moved
        return true
    }

    @inline(never)
    private static func grown(_ w: JSONWriter, _ n: Int, _ out: inout OutputBuffer) -> JSONWriter? {
        w.sync(&out)
        guard out.reserve(n) else { return nil }
        return JSONWriter(out)
    }

    // MARK: writes within a reservation

    @inline(__always)
    mutating func put(_ b: UInt8) {
        d.pointee = b
        d += 1
    }

    /// The first `n` (at most 8) bytes of `bytes`, little-endian: an ASCII
    /// literal in one store (8 bytes of room reserved).
    @inline(__always)
    mutating func put(_ bytes: UInt64, _ n: Int) {
        UnsafeMutableRawPointer(d).storeBytes(of: bytes.littleEndian, as: UInt64.self)
        d += n
    }

    /// The literals, as `put(_:_:)` takes them.
    static let nullText: UInt64 = 0x6C6C_756E         // null
    static let trueText: UInt64 = 0x6575_7274         // true
    static let falseText: UInt64 = 0x65_736C_6166     // false
    static let nextPair: UInt64 = 0x5B_2C5D           // ],[
    static let lastPair: UInt64 = 0x7D_5D5D           // ]]}

    /// 0 to 999 in decimal (MessagePack's fixints).
    @inline(__always)
    mutating func smallDecimal(_ v: Int) {
        let pairs = JSONNumber.digitPairs.utf8Start
        if v < 10 {
            d.pointee = UInt8(truncatingIfNeeded: v) &+ 0x30
            d += 1
        } else if v < 100 {
            d[0] = pairs[v &* 2]
            d[1] = pairs[v &* 2 &+ 1]
            d += 2
        } else {
            let low = (v % 100) &* 2
            d[0] = UInt8(truncatingIfNeeded: v / 100) &+ 0x30
            d[1] = pairs[low]
            d[2] = pairs[low &+ 1]
            d += 3
        }
    }

    // MARK: strings

    /// `n` bytes at `s` (the text of a string in the binary format) as a
    /// JSON string token, as `OutputBuffer.putString` writes it, reserving
    /// what it needs; `readable`: the bytes that may be read from `s` (at
    /// least `n`; the input's end). Returns -1 when written, the index of
    /// the first byte that is not UTF-8, or -2 past the limit. Leaves room
    /// for one more byte (the ':' after a key).
    @inline(__always)
    mutating func string(_ s: UnsafePointer<UInt8>, _ n: Int, readable: Int, _ out: inout OutputBuffer) -> Int {
        guard reserve(n &+ 2 &+ OutputBuffer.slack, &out) else { return -2 }
        // Most strings (keys, names, codes, text in ASCII) are plain: 16
        // bytes a step, stored as they are checked (the reservation has
        // room), while the input has 16 bytes to read; the last step may
        // read past the string and keeps only what is the string's.
        var i = 0
        if n <= 16 && readable >= 16 {
            // (Apart: most strings are this short, and one step needs no loop.)
            let v = UnsafeRawPointer(s).loadUnaligned(as: SIMD16<UInt8>.self)
            if StringScan.firstStop(v) >= n {
                d.pointee = 0x22
                UnsafeMutableRawPointer(d + 1).storeBytes(of: v, as: SIMD16<UInt8>.self)
                d[n &+ 1] = 0x22
                d += n &+ 2
                return -1
            }
        } else {
            while i &+ 16 <= readable {
                let v = UnsafeRawPointer(s + i).loadUnaligned(as: SIMD16<UInt8>.self)
                UnsafeMutableRawPointer(d + 1 + i).storeBytes(of: v, as: SIMD16<UInt8>.self)
                let left = n &- i
                if StringScan.firstStop(v) < min(left, 16) { break }
                if left <= 16 {
                    d.pointee = 0x22
                    d[n &+ 1] = 0x22
                    d += n &+ 2
                    return -1
                }
                i &+= 16
            }
        }
        if n <= 8 && readable < 16 && readable >= 8 {
            let word = UInt64(littleEndian: UnsafeRawPointer(s).loadUnaligned(as: UInt64.self))
            // Lanes that are controls, '"', '\\' or non-ASCII, among the first n.
            let stops = (OutputBuffer.lanesBelow(word, 0x20) | OutputBuffer.lanesEqual(word, 0x22)
                         | OutputBuffer.lanesEqual(word, 0x5C) | word) & 0x8080_8080_8080_8080
            if (stops == 0 ? 8 : stops.trailingZeroBitCount &>> 3) >= n {
                d.pointee = 0x22
                UnsafeMutableRawPointer(d + 1).storeBytes(of: word.littleEndian, as: UInt64.self)
                d[n &+ 1] = 0x22
                d += n &+ 2
                return -1
            }
        }
        // The first i bytes are plain and written.
        let (moved, answer) = Self.stringSlowly(self, s, n, readable, i, &out)
        self = moved
        return answer
    }

    /// A string that is long, near the input's end, or holds bytes to
    /// escape or check.
    @inline(never)
    private static func stringSlowly(_ w: JSONWriter, _ s: UnsafePointer<UInt8>, _ n: Int, _ readable: Int,
                                     _ plain: Int, _ out: inout OutputBuffer) -> (JSONWriter, Int) {
        w.sync(&out)
        let answer = out.putStringSlowly(s, n, readable: readable, quoted: true, plain: plain)
        return (JSONWriter(out), answer)
    }
}
