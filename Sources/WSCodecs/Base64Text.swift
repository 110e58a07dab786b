/// Base64 (RFC 4648 §4, the standard alphabet) for `$bytes`: written
/// padded; read with padding optional, no whitespace, as wspipe reads
/// `$binary` (non-zero bits in the last symbol, which RFC 4648 §3.5 lets a
/// decoder reject, are ignored).
enum Base64Text {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    static func encodedLength(_ count: Int) -> Int { (count &+ 2) / 3 &* 4 }

    /// Writes the encoding of `n` bytes at `p` into `out` from `at` (room
    /// reserved); returns the index after it.
    @inline(__always)
    static func encode(_ p: UnsafePointer<UInt8>, _ n: Int, into out: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        let table = alphabet.utf8Start
        var i = 0
        var o = start
        while i &+ 3 <= n {
            let group = UInt32(p[i]) &<< 16 | UInt32(p[i &+ 1]) &<< 8 | UInt32(p[i &+ 2])
            out[o] = table[Int(group &>> 18)]
            out[o &+ 1] = table[Int(group &>> 12 & 63)]
            out[o &+ 2] = table[Int(group &>> 6 & 63)]
            out[o &+ 3] = table[Int(group & 63)]
            i &+= 3
            o &+= 4
        }
        let left = n &- i
        if left > 0 {
            let group = UInt32(p[i]) &<< 16 | (left == 2 ? UInt32(p[i &+ 1]) &<< 8 : 0)
            out[o] = table[Int(group &>> 18)]
            out[o &+ 1] = table[Int(group &>> 12 & 63)]
            out[o &+ 2] = left == 2 ? table[Int(group &>> 6 & 63)] : 0x3D
            out[o &+ 3] = 0x3D
            o &+= 4
        }
        return o
    }

    /// The 6-bit value of a symbol, or nil.
    @inline(__always)
    private static func value(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x41 ... 0x5A: return UInt32(c &- 0x41)
        case 0x61 ... 0x7A: return UInt32(c &- 0x61 &+ 26)
        case 0x30 ... 0x39: return UInt32(c &- 0x30 &+ 52)
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }

    /// The number of bytes `n` symbols at `p` decode to, or the index of
    /// the first byte that makes them no base64 (as a negative: -1 - index).
    static func decodedLength(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var symbols = n
        if symbols > 0 && p[symbols &- 1] == 0x3D { symbols &-= 1 }
        if symbols > 0 && p[symbols &- 1] == 0x3D { symbols &-= 1 }
        // Padding only completes a group of four.
        if symbols < n && n % 4 != 0 { return -1 &- symbols }
        if symbols % 4 == 1 { return -1 &- (symbols &- 1) }
        var i = 0
        while i < symbols {
            if value(p[i]) == nil { return -1 &- i }
            i &+= 1
        }
        return symbols / 4 &* 3 &+ max(symbols % 4 &- 1, 0)
    }

    /// Decodes the `n` symbols at `p` (checked by `decodedLength`) into
    /// `out` from `at`; returns the index after the bytes.
    static func decode(_ p: UnsafePointer<UInt8>, _ n: Int, into out: UnsafeMutablePointer<UInt8>, at start: Int) -> Int {
        var symbols = n
        while symbols > 0 && p[symbols &- 1] == 0x3D { symbols &-= 1 }
        var i = 0
        var o = start
        var group: UInt32 = 0
        var held = 0
        while i < symbols {
            group = group &<< 6 | (value(p[i]) ?? 0)
            held &+= 1
            if held == 4 {
                out[o] = UInt8(truncatingIfNeeded: group &>> 16)
                out[o &+ 1] = UInt8(truncatingIfNeeded: group &>> 8)
                out[o &+ 2] = UInt8(truncatingIfNeeded: group)
                o &+= 3
                held = 0
                group = 0
            }
            i &+= 1
        }
        if held == 2 {
            out[o] = UInt8(truncatingIfNeeded: group &>> 4)
            o &+= 1
        } else if held == 3 {
            out[o] = UInt8(truncatingIfNeeded: group &>> 10)
            out[o &+ 1] = UInt8(truncatingIfNeeded: group &>> 2)
            o &+= 2
        }
        return o
    }
}
