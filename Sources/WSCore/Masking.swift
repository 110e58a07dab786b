/// Masking of frame payloads (RFC 6455 §5.3):
///
///     transformed-octet-i = original-octet-i XOR masking-key-octet-j
///     where j = i MOD 4
///
/// The same operation masks and unmasks. It runs 8 bytes at a time: the 4-byte
/// key is spread into a 64-bit pattern (rotated for the payload offset we start
/// at, so a payload can be processed in pieces), then each unaligned 64-bit
/// word is XORed with it.
public enum Masking {
    /// XORs `count` bytes from `source` into `destination` (they may be the
    /// same pointer for in-place unmasking). `key` holds the four key bytes in
    /// wire order as a big-endian number; `offset` is the payload position of
    /// `source[0]`, so only `offset % 4` matters.
    public static func apply(key: UInt32, offset: Int, source: UnsafeRawPointer,
                             destination: UnsafeMutableRawPointer, count: Int) {
        let pattern = Masking.pattern(key: key, offset: offset)
        var i = 0
        while i + 32 <= count {
            let a = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            let b = source.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
            let c = source.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)
            let d = source.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)
            destination.storeBytes(of: a ^ pattern, toByteOffset: i, as: UInt64.self)
            destination.storeBytes(of: b ^ pattern, toByteOffset: i + 8, as: UInt64.self)
            destination.storeBytes(of: c ^ pattern, toByteOffset: i + 16, as: UInt64.self)
            destination.storeBytes(of: d ^ pattern, toByteOffset: i + 24, as: UInt64.self)
            i += 32
        }
        while i + 8 <= count {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            destination.storeBytes(of: word ^ pattern, toByteOffset: i, as: UInt64.self)
            i += 8
        }
        // Four bytes in one step (both halves of the pattern are the same),
        // so a tail of 4 to 7 bytes does not go byte by byte.
        if i + 4 <= count {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt32.self)
            destination.storeBytes(of: word ^ UInt32(truncatingIfNeeded: pattern), toByteOffset: i, as: UInt32.self)
            i += 4
        }
        // The tail starts at a multiple of 4 from `source`, so pattern byte
        // (i & 7) lines up with it.
        withUnsafeBytes(of: pattern) { patternBytes in
            while i < count {
                let byte = source.load(fromByteOffset: i, as: UInt8.self) ^ patternBytes[i & 7]
                destination.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
                i += 1
            }
        }
    }

    /// Unmasks (or masks) `buffer` in place.
    public static func apply(key: UInt32, offset: Int, inPlace buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress else { return }
        apply(key: key, offset: offset, source: UnsafeRawPointer(base), destination: base, count: buffer.count)
    }

    /// The key bytes repeated to fill 8 bytes in memory order, starting with
    /// key byte `offset % 4`.
    @inline(__always)
    static func pattern(key: UInt32, offset: Int) -> UInt64 {
        let rotated = key.rotatedLeft(by: (offset & 3) * 8)
        // In memory the first payload byte must meet the first (most
        // significant) key byte, so store the key big-endian, twice.
        let half = UInt64(rotated.bigEndian)
        var pattern: UInt64 = 0
        withUnsafeMutableBytes(of: &pattern) { bytes in
            bytes.storeBytes(of: UInt32(truncatingIfNeeded: half), toByteOffset: 0, as: UInt32.self)
            bytes.storeBytes(of: UInt32(truncatingIfNeeded: half), toByteOffset: 4, as: UInt32.self)
        }
        return pattern
    }
}

extension UInt32 {
    @inline(__always)
    fileprivate func rotatedLeft(by bits: Int) -> UInt32 {
        bits == 0 ? self : self << UInt32(bits) | self >> UInt32(32 - bits)
    }
}
