/// What `JSONToBinary` writes for each value, in one binary format. Each
/// function writes within a reservation the caller made (`maxHead` bytes
/// for a head) and returns nil, or why the format cannot hold the value.
protocol BinaryEmitter {
    static var format: BinaryFormat { get }
    /// Longest head of a string, byte string, container or tag.
    static var maxHead: Int { get }
    static func null(_ out: inout OutputBuffer)
    static func bool(_ value: Bool, _ out: inout OutputBuffer)
    /// An integer as sign and magnitude, magnitude below 2^64.
    static func integer(negative: Bool, magnitude: UInt64, _ out: inout OutputBuffer) -> String?
    /// An integer beyond 64 bits (or the magnitude 2^64), from its decimal
    /// digits (no sign, no leading zero, at most `CodecLimits.bigIntDigits`).
    static func bigInteger(negative: Bool, digits: UnsafeBufferPointer<UInt8>, _ out: inout OutputBuffer) -> String?
    static func double(_ value: Double, _ out: inout OutputBuffer)
    static func stringHead(_ length: Int, _ out: inout OutputBuffer)
    static func bytesHead(_ length: Int, _ out: inout OutputBuffer)
    /// The head of an extension type of `length` bytes.
    static func extHead(type: Int8, length: Int, _ out: inout OutputBuffer) -> String?
    static func tagHead(_ tag: UInt64, _ out: inout OutputBuffer) -> String?
    static func undefined(_ out: inout OutputBuffer) -> String?
    static func simple(_ value: UInt8, _ out: inout OutputBuffer) -> String?
    /// The head of an array or map of `count` items (entries), written at
    /// `at`; returns its length (at most `placeholder`).
    static func containerHead(map: Bool, count: Int, at: UnsafeMutablePointer<UInt8>) -> Int
}

extension BinaryEmitter {
    /// Room left for a container's head until its count is known.
    static var placeholder: Int { 5 }
}

/// MessagePack's forms: the shortest that holds each value (the msgpack
/// spec, "Type system" and "Formats"); floats as float 64.
enum MessagePackEmitter: BinaryEmitter {
    static var format: BinaryFormat { .msgpack }
    static var maxHead: Int { 9 }

    static func null(_ out: inout OutputBuffer) { out.put(0xC0) }
    static func bool(_ value: Bool, _ out: inout OutputBuffer) { out.put(value ? 0xC3 : 0xC2) }

    static func integer(negative: Bool, magnitude: UInt64, _ out: inout OutputBuffer) -> String? {
        if !negative || magnitude == 0 {
            if magnitude < 0x80 {
                out.put(UInt8(magnitude))
            } else if magnitude <= 0xFF {
                out.put(0xCC, UInt8(magnitude))
            } else if magnitude <= 0xFFFF {
                out.put(0xCD)
                out.putBigEndian(magnitude, width: 2)
            } else if magnitude <= 0xFFFF_FFFF {
                out.put(0xCE)
                out.putBigEndian(magnitude, width: 4)
            } else {
                out.put(0xCF)
                out.putBigEndian(magnitude, width: 8)
            }
            return nil
        }
        guard magnitude <= 1 << 63 else { return outOfRange }
        let value = UInt64(bitPattern: 0 &- Int64(bitPattern: magnitude))
        if magnitude <= 32 {
            out.put(UInt8(truncatingIfNeeded: value))
        } else if magnitude <= 0x80 {
            out.put(0xD0, UInt8(truncatingIfNeeded: value))
        } else if magnitude <= 0x8000 {
            out.put(0xD1)
            out.putBigEndian(value, width: 2)
        } else if magnitude <= 0x8000_0000 {
            out.put(0xD2)
            out.putBigEndian(value, width: 4)
        } else {
            out.put(0xD3)
            out.putBigEndian(value, width: 8)
        }
        return nil
    }

    private static let outOfRange = "integer out of MessagePack's range (-2^63 to 2^64-1); write it as a float (with a fraction or an exponent) to send it as one"

    static func bigInteger(negative: Bool, digits: UnsafeBufferPointer<UInt8>, _ out: inout OutputBuffer) -> String? {
        outOfRange
    }

    static func double(_ value: Double, _ out: inout OutputBuffer) {
        out.put(0xCB)
        out.putBigEndian(value.bitPattern, width: 8)
    }

    static func stringHead(_ length: Int, _ out: inout OutputBuffer) {
        if length < 32 {
            out.put(0xA0 | UInt8(length))
        } else {
            sized(length, 0xD9, out: &out)
        }
    }

    static func bytesHead(_ length: Int, _ out: inout OutputBuffer) {
        sized(length, 0xC4, out: &out)
    }

    /// A length in 1, 2 or 4 bytes after `type8`, `type8 + 1` or `type8 + 2`.
    private static func sized(_ length: Int, _ type8: UInt8, out: inout OutputBuffer) {
        if length <= 0xFF {
            out.put(type8, UInt8(length))
        } else if length <= 0xFFFF {
            out.put(type8 &+ 1)
            out.putBigEndian(UInt64(length), width: 2)
        } else {
            out.put(type8 &+ 2)
            out.putBigEndian(UInt64(length), width: 4)
        }
    }

    static func extHead(type: Int8, length: Int, _ out: inout OutputBuffer) -> String? {
        switch length {
        case 1: out.put(0xD4)
        case 2: out.put(0xD5)
        case 4: out.put(0xD6)
        case 8: out.put(0xD7)
        case 16: out.put(0xD8)
        default: sized(length, 0xC7, out: &out)
        }
        out.put(UInt8(bitPattern: type))
        return nil
    }

    static func tagHead(_ tag: UInt64, _ out: inout OutputBuffer) -> String? {
        "$tag is a CBOR tag: MessagePack has none (--codec cbor)"
    }

    static func undefined(_ out: inout OutputBuffer) -> String? {
        "$undefined is CBOR's: MessagePack has only nil (null)"
    }

    static func simple(_ value: UInt8, _ out: inout OutputBuffer) -> String? {
        "$simple is a CBOR simple value: MessagePack has none"
    }

    static func containerHead(map: Bool, count: Int, at p: UnsafeMutablePointer<UInt8>) -> Int {
        if count < 16 {
            p[0] = (map ? 0x80 : 0x90) | UInt8(count)
            return 1
        }
        if count <= 0xFFFF {
            p[0] = map ? 0xDE : 0xDC
            p[1] = UInt8(truncatingIfNeeded: count >> 8)
            p[2] = UInt8(truncatingIfNeeded: count)
            return 3
        }
        p[0] = map ? 0xDF : 0xDD
        p[1] = UInt8(truncatingIfNeeded: count >> 24)
        p[2] = UInt8(truncatingIfNeeded: count >> 16)
        p[3] = UInt8(truncatingIfNeeded: count >> 8)
        p[4] = UInt8(truncatingIfNeeded: count)
        return 5
    }
}

/// CBOR's forms (RFC 8949): the preferred serialization of §4.1 for heads
/// (the shortest argument), definite lengths, floats as float 64, integers
/// beyond 64 bits as bignums (tags 2 and 3, §3.4.3).
enum CBOREmitter: BinaryEmitter {
    static var format: BinaryFormat { .cbor }
    static var maxHead: Int { 9 }

    /// A head: major type and argument in the fewest bytes.
    static func head(_ major: UInt8, _ argument: UInt64, _ out: inout OutputBuffer) {
        let type = major &<< 5
        if argument < 24 {
            out.put(type | UInt8(argument))
        } else if argument <= 0xFF {
            out.put(type | 24, UInt8(argument))
        } else if argument <= 0xFFFF {
            out.put(type | 25)
            out.putBigEndian(argument, width: 2)
        } else if argument <= 0xFFFF_FFFF {
            out.put(type | 26)
            out.putBigEndian(argument, width: 4)
        } else {
            out.put(type | 27)
            out.putBigEndian(argument, width: 8)
        }
    }

    static func null(_ out: inout OutputBuffer) { out.put(0xF6) }
    static func bool(_ value: Bool, _ out: inout OutputBuffer) { out.put(value ? 0xF5 : 0xF4) }

    static func integer(negative: Bool, magnitude: UInt64, _ out: inout OutputBuffer) -> String? {
        if negative && magnitude > 0 {
            head(1, magnitude &- 1, &out)
        } else {
            head(0, magnitude, &out)
        }
        return nil
    }

    static func bigInteger(negative: Bool, digits: UnsafeBufferPointer<UInt8>, _ out: inout OutputBuffer) -> String? {
        // -1 - n for a negative value: n is the magnitude minus one.
        let bytes = BigIntegerText.bigEndian(decimal: digits, minusOne: negative)
        if bytes.count <= 8 {
            var value: UInt64 = 0
            for byte in bytes { value = value << 8 | UInt64(byte) }
            head(negative ? 1 : 0, value, &out)
            return nil
        }
        guard out.reserve(bytes.count &+ 2 &* maxHead) else { return "too large" }
        head(6, negative ? 3 : 2, &out)
        head(2, UInt64(bytes.count), &out)
        bytes.withUnsafeBufferPointer { out.put($0.baseAddress!, $0.count) }
        return nil
    }

    static func double(_ value: Double, _ out: inout OutputBuffer) {
        out.put(0xFB)
        out.putBigEndian(value.bitPattern, width: 8)
    }

    static func stringHead(_ length: Int, _ out: inout OutputBuffer) { head(3, UInt64(length), &out) }
    static func bytesHead(_ length: Int, _ out: inout OutputBuffer) { head(2, UInt64(length), &out) }

    static func extHead(type: Int8, length: Int, _ out: inout OutputBuffer) -> String? {
        "$ext is a MessagePack extension type: CBOR has tags instead ({\"$tag\":N,\"value\":…})"
    }

    static func tagHead(_ tag: UInt64, _ out: inout OutputBuffer) -> String? {
        head(6, tag, &out)
        return nil
    }

    static func undefined(_ out: inout OutputBuffer) -> String? {
        out.put(0xF7)
        return nil
    }

    static func simple(_ value: UInt8, _ out: inout OutputBuffer) -> String? {
        switch value {
        case 0 ..< 20: out.put(0xE0 | value)
        case 20 ..< 24: return "simple values 20 to 23 are false, true, null and undefined: write those"
        case 24 ..< 32: return "simple values 24 to 31 are reserved (RFC 8949 §3.3)"
        default: out.put(0xF8, value)
        }
        return nil
    }

    static func containerHead(map: Bool, count: Int, at p: UnsafeMutablePointer<UInt8>) -> Int {
        let type: UInt8 = map ? 0xA0 : 0x80
        if count < 24 {
            p[0] = type | UInt8(count)
            return 1
        }
        if count <= 0xFF {
            p[0] = type | 24
            p[1] = UInt8(count)
            return 2
        }
        if count <= 0xFFFF {
            p[0] = type | 25
            p[1] = UInt8(truncatingIfNeeded: count >> 8)
            p[2] = UInt8(truncatingIfNeeded: count)
            return 3
        }
        p[0] = type | 26
        p[1] = UInt8(truncatingIfNeeded: count >> 24)
        p[2] = UInt8(truncatingIfNeeded: count >> 16)
        p[3] = UInt8(truncatingIfNeeded: count >> 8)
        p[4] = UInt8(truncatingIfNeeded: count)
        return 5
    }
}
