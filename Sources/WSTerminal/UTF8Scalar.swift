/// One UTF-8 sequence read from a byte array (RFC 3629 §3, §4: shortest
/// form, no surrogates, at most U+10FFFF), telling a sequence cut by the end
/// of the array from an invalid one.
enum UTF8Scalar {
    enum Decoded: Equatable {
        case scalar(Unicode.Scalar, length: Int)
        case invalid
        case truncated
    }

    static func decode(_ bytes: [UInt8], at i: Int) -> Decoded {
        let lead = bytes[i]
        if lead < 0x80 { return .scalar(Unicode.Scalar(lead), length: 1) }
        let length: Int
        let initial: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; initial = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; initial = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; initial = UInt32(lead & 0x07)
        default: return .invalid
        }
        var value = initial
        for k in 1..<length {
            guard i + k < bytes.count else { return .truncated }
            let b = bytes[i + k]
            guard b & 0xC0 == 0x80 else { return .invalid }
            value = value << 6 | UInt32(b & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return .invalid }
        return .scalar(scalar, length: length)
    }
}
