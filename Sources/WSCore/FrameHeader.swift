/// The fixed part of a WebSocket frame (RFC 6455 §5.2), everything before the payload:
///
///      0                   1                   2                   3
///     +-+-+-+-+-------+-+-------------+-------------------------------+
///     |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
///     |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
///     |N|V|V|V|       |S|             |   (if payload len==126/127)   |
///     | |1|2|3|       |K|             |                               |
///     +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
///     |     Extended payload length continued, if payload len == 127  |
///     + - - - - - - - - - - - - - - - +-------------------------------+
///     |                               | Masking-key, if MASK set to 1 |
///     +-------------------------------+-------------------------------+
public struct FrameHeader: Hashable, Sendable {
    public var fin: Bool
    /// RSV1-3 exactly as they sit in the first byte (0x40, 0x20, 0x10).
    public var reservedBits: UInt8
    public var opcode: Opcode
    /// The four key bytes in wire order as a big-endian number; nil if unmasked.
    public var maskKey: UInt32?
    public var payloadLength: Int

    public init(fin: Bool, reservedBits: UInt8 = 0, opcode: Opcode, maskKey: UInt32? = nil, payloadLength: Int) {
        self.fin = fin
        self.reservedBits = reservedBits
        self.opcode = opcode
        self.maskKey = maskKey
        self.payloadLength = payloadLength
    }

    /// RSV1, used by permessage-deflate (RFC 7692 §6) to flag a compressed message.
    public static let rsv1: UInt8 = 0x40
    public static let rsv2: UInt8 = 0x20
    public static let rsv3: UInt8 = 0x10

    /// Bytes the header takes on the wire: 2, plus 2 or 8 for the extended
    /// length (§5.2: 126 -> 16-bit, 127 -> 64-bit), plus 4 for a masking key.
    public static func encodedSize(payloadLength: Int, masked: Bool) -> Int {
        let lengthBytes = payloadLength < 126 ? 0 : (payloadLength <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }

    /// Bytes this header takes on the wire.
    public var encodedSize: Int {
        FrameHeader.encodedSize(payloadLength: payloadLength, masked: maskKey != nil)
    }
}
