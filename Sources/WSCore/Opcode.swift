/// A frame opcode (RFC 6455 §5.2, "Opcode: 4 bits").
///
/// Any 4-bit value can be represented so the decoder can report exactly which
/// reserved opcode a peer sent; `isReserved` tells the defined ones apart.
public struct Opcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// %x0 denotes a continuation frame.
    public static let continuation = Opcode(rawValue: 0x0)
    /// %x1 denotes a text frame.
    public static let text = Opcode(rawValue: 0x1)
    /// %x2 denotes a binary frame.
    public static let binary = Opcode(rawValue: 0x2)
    /// %x8 denotes a connection close.
    public static let close = Opcode(rawValue: 0x8)
    /// %x9 denotes a ping.
    public static let ping = Opcode(rawValue: 0x9)
    /// %xA denotes a pong.
    public static let pong = Opcode(rawValue: 0xA)

    /// "Control frames are identified by opcodes where the most significant
    /// bit of the opcode is 1" (RFC 6455 §5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// %x3-7 are reserved for further non-control frames and %xB-F for further
    /// control frames (RFC 6455 §5.2); anything above 4 bits cannot come off the wire.
    public var isReserved: Bool {
        switch rawValue {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: return false
        default: return true
        }
    }

    public var description: String {
        switch rawValue {
        case 0x0: return "continuation"
        case 0x1: return "text"
        case 0x2: return "binary"
        case 0x8: return "close"
        case 0x9: return "ping"
        case 0xA: return "pong"
        default: return "reserved(0x" + String(rawValue, radix: 16, uppercase: true) + ")"
        }
    }
}
