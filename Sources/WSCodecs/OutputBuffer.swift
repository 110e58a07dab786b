/// Bytes written through a raw pointer: a converter reserves what one step
/// may write (`reserve`), then writes without further checks. It grows by
/// doubling, and never past `limit` (plus `slack`, the room a reservation
/// may ask beyond what it writes): a reservation past it fails, and the
/// converter reports the message as too large, so a hostile message cannot
/// make wspipe's memory grow beyond a bound it chose.
///
/// Owned by a `Transcoder`, which frees it; the converters take it `inout`.
struct OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var count = 0
    var limit: Int

    /// What a reservation may ask beyond what it writes (16-byte stores).
    static let slack = 64

    init(capacity: Int, limit: Int) {
        self.capacity = max(capacity, 64)
        self.base = .allocate(capacity: self.capacity)
        self.limit = limit
    }

    func deallocate() { base.deallocate() }

    /// Room for `n` more bytes; false when that would pass the limit.
    @inline(__always)
    mutating func reserve(_ n: Int) -> Bool {
        if n <= capacity &- count { return true }
        return grow(n)
    }

    @inline(never)
    private mutating func grow(_ n: Int) -> Bool {
        let (needed, overflow) = count.addingReportingOverflow(n)
        guard !overflow, needed <= limit &+ Self.slack || needed <= capacity else { return false }
        var size = capacity
        while size < needed { size = size > Int.max / 2 ? needed : size &* 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = size
        return true
    }

    /// Gives back memory after an unusually large message (above `keep`).
    mutating func shrink(to keep: Int) {
        guard capacity > keep, count <= keep else { return }
        let smaller = UnsafeMutablePointer<UInt8>.allocate(capacity: keep)
        smaller.update(from: base, count: count)
        base.deallocate()
        base = smaller
        capacity = keep
    }

    /// The bytes written.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    // MARK: writes within a reservation

    @inline(__always)
    mutating func put(_ b: UInt8) {
        base[count] = b
        count &+= 1
    }

    @inline(__always)
    mutating func put(_ a: UInt8, _ b: UInt8) {
        base[count] = a
        base[count &+ 1] = b
        count &+= 2
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        let n = text.utf8CodeUnitCount
        (base + count).update(from: text.utf8Start, count: n)
        count &+= n
    }

    @inline(__always)
    mutating func put(_ p: UnsafePointer<UInt8>, _ n: Int) {
        (base + count).update(from: p, count: n)
        count &+= n
    }

    /// Big-endian, `width` bytes (1, 2, 4 or 8) of `value`.
    @inline(__always)
    mutating func putBigEndian(_ value: UInt64, width: Int) {
        var k = width
        while k > 0 {
            k &-= 1
            base[count &+ width &- 1 &- k] = UInt8(truncatingIfNeeded: value &>> UInt64(k &* 8))
        }
        count &+= width
    }

    /// Writes `b` at `offset` (already written).
    @inline(__always)
    mutating func set(_ b: UInt8, at offset: Int) {
        base[offset] = b
    }
}
