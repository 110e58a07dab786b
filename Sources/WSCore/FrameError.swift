/// A frame-level protocol violation found by `FrameDecoder`. Every case fails
/// the connection with 1002 (RFC 6455 §7.4.1 "protocol error").
public enum FrameError: Error, Hashable, Sendable, CustomStringConvertible {
    /// §5.2: "MUST be 0 unless an extension is negotiated that defines meanings
    /// for non-zero values".
    case reservedBitsSet(UInt8)
    /// §5.2: "If an unknown opcode is received, the receiving endpoint MUST
    /// _Fail the WebSocket Connection_."
    case reservedOpcode(UInt8)
    /// §5.5: "Control frames MUST NOT be fragmented."
    case fragmentedControlFrame
    /// §5.5: "All control frames MUST have a payload length of 125 bytes or less".
    case controlFrameTooLong(Int)
    /// §5.2: "the minimal number of bytes MUST be used to encode the length".
    case nonMinimalLength(Int)
    /// §5.2: for the 64-bit length "the most significant bit MUST be 0".
    case lengthHighBitSet
    /// §5.1: "A client MUST close a connection if it detects a masked frame."
    case maskedFrameFromServer
    /// §5.1: "The server MUST close the connection upon receiving a frame that
    /// is not masked."
    case unmaskedFrameFromClient

    public var description: String {
        switch self {
        case .reservedBitsSet(let bits):
            return "reserved bits 0x" + String(bits, radix: 16) + " set without a negotiated extension"
        case .reservedOpcode(let opcode):
            return "reserved opcode 0x" + String(opcode, radix: 16)
        case .fragmentedControlFrame:
            return "fragmented control frame"
        case .controlFrameTooLong(let length):
            return "control frame payload of \(length) bytes (limit 125)"
        case .nonMinimalLength(let length):
            return "payload length \(length) not minimally encoded"
        case .lengthHighBitSet:
            return "64-bit payload length with the most significant bit set"
        case .maskedFrameFromServer:
            return "masked frame from the server"
        case .unmaskedFrameFromClient:
            return "unmasked frame from the client"
        }
    }
}
