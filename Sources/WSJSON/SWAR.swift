/// "SIMD within a register": tests on eight bytes at once in a UInt64, used to
/// skip runs of plain string bytes at memory speed.
///
/// Every mask below has the high bit (0x80) set in the lanes whose byte matches.
/// The lowest set bit is always exact (no borrow can reach a lane below the first
/// match), higher ones may be false positives after a borrow; callers only use
/// "any lane matched" and "index of the first matching lane".
enum SWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Eight bytes starting at `offset`, byte `offset` in the lowest lane on every
    /// host (so `firstLane` gives the earliest byte).
    @inline(__always)
    static func load(_ base: UnsafePointer<UInt8>, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
    }

    /// Lanes equal to `byte`.
    @inline(__always)
    static func equal(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highBits
    }

    /// Lanes below `bound` (bound <= 0x80).
    @inline(__always)
    static func less(_ word: UInt64, _ bound: UInt8) -> UInt64 {
        (word &- ones &* UInt64(bound)) & ~word & highBits
    }

    /// Lanes with the high bit set (non-ASCII).
    @inline(__always)
    static func nonASCII(_ word: UInt64) -> UInt64 {
        word & highBits
    }

    /// Index (0...7) of the first matching lane of a non-zero mask.
    @inline(__always)
    static func firstLane(_ mask: UInt64) -> Int {
        mask.trailingZeroBitCount &>> 3
    }

    /// Lanes a validator must look at inside a string: '"', '\\', control
    /// characters (< 0x20) and non-ASCII bytes (UTF-8 to check).
    @inline(__always)
    static func validationStops(_ word: UInt64) -> UInt64 {
        less(word, 0x20) | nonASCII(word) | equal(word, 0x22) | equal(word, 0x5C)
    }

    /// Lanes that end a run of bytes copied unchanged into a JSON string token:
    /// '"', '\\' and control characters.
    @inline(__always)
    static func quotingStops(_ word: UInt64) -> UInt64 {
        less(word, 0x20) | equal(word, 0x22) | equal(word, 0x5C)
    }

    /// Lanes that matter when skipping a string already known valid: '"' and '\\'.
    @inline(__always)
    static func skippingStops(_ word: UInt64) -> UInt64 {
        equal(word, 0x22) | equal(word, 0x5C)
    }

    /// Advances `i` to the first byte at or after it whose lane `stops` marks,
    /// 16 bytes a step while at least 16 remain. False when fewer than 16
    /// bytes were left without a stop: the caller finishes byte by byte.
    @inline(__always)
    static func findStop(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int,
                         _ stops: (UInt64) -> UInt64) -> Bool {
        while i &+ 16 <= n {
            let low = stops(load(p, i))
            if low != 0 { i &+= firstLane(low); return true }
            let high = stops(load(p, i &+ 8))
            if high != 0 { i &+= 8 &+ firstLane(high); return true }
            i &+= 16
        }
        return false
    }
}
