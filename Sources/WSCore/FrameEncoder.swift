/// Writes frames (RFC 6455 §5.2) straight into an output `ByteBuffer`: one
/// reservation for header plus payload, the header bytes, then the payload
/// copied (and masked, for clients) in a single pass.
public enum FrameEncoder {
    /// Appends one frame. `maskKey` (four key bytes in wire order, big-endian)
    /// masks the payload as §5.3 requires of clients; servers pass nil.
    public static func append(opcode: Opcode, fin: Bool, payload: UnsafeRawBufferPointer,
                              maskKey: UInt32?, into out: inout ByteBuffer) {
        append(opcode: opcode, fin: fin, reservedBits: 0, payload: payload, maskKey: maskKey, into: &out)
    }

    /// As above, with RSV bits for a negotiated extension (e.g. RSV1 for permessage-deflate).
    public static func append(opcode: Opcode, fin: Bool, reservedBits: UInt8, payload: UnsafeRawBufferPointer,
                              maskKey: UInt32?, into out: inout ByteBuffer) {
        let length = payload.count
        let headerSize = FrameHeader.encodedSize(payloadLength: length, masked: maskKey != nil)
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: headerSize + length) { target in
            let base = target.baseAddress!
            let first = (fin ? 0x80 : 0) | (reservedBits & 0x70) | (opcode.rawValue & 0x0F)
            writeHeader(into: base, first: first, length: length, maskKey: maskKey)
            writePayload(payload, to: base + headerSize, maskKey: maskKey)
            return headerSize + length
        }
    }

    /// A client's frame (FIN set, masked with `key`): `append` with the key
    /// known to be there, inlined where a connection frames a message.
    @inline(__always)
    static func appendMasked(opcode: Opcode, reservedBits: UInt8, payload: UnsafeRawBufferPointer, key: UInt32,
                             into out: inout ByteBuffer) {
        let length = payload.count
        let headerSize = (length < 126 ? 2 : length <= 0xFFFF ? 4 : 10) + 4
        out.writeWithUnsafeMutableBytes(minimumWritableBytes: headerSize + length) { target in
            let base = target.baseAddress!
            writeHeader(into: base, first: 0x80 | (reservedBits & 0x70) | (opcode.rawValue & 0x0F), length: length,
                        maskKey: key)
            if let source = payload.baseAddress, length > 0 {
                Masking.apply(key: key, offset: 0, source: source, destination: base + headerSize, count: length)
            }
            return headerSize + length
        }
    }

    /// First byte, then §5.2's length: 7 bits if < 126, else 126 + 16-bit, else
    /// 127 + 64-bit, all in network byte order; then the masking key.
    @inline(__always)
    private static func writeHeader(into base: UnsafeMutableRawPointer, first: UInt8, length: Int, maskKey: UInt32?) {
        let maskBit: UInt8 = maskKey != nil ? 0x80 : 0
        base.storeBytes(of: first, as: UInt8.self)
        var offset = 2
        if length < 126 {
            base.storeBytes(of: maskBit | UInt8(length), toByteOffset: 1, as: UInt8.self)
        } else if length <= 0xFFFF {
            base.storeBytes(of: maskBit | 126, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: UInt16(length).bigEndian, toByteOffset: 2, as: UInt16.self)
            offset = 4
        } else {
            base.storeBytes(of: maskBit | 127, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: UInt64(length).bigEndian, toByteOffset: 2, as: UInt64.self)
            offset = 10
        }
        if let maskKey {
            base.storeBytes(of: maskKey.bigEndian, toByteOffset: offset, as: UInt32.self)
        }
    }

    private static func writePayload(_ payload: UnsafeRawBufferPointer, to target: UnsafeMutableRawPointer,
                                     maskKey: UInt32?) {
        guard let source = payload.baseAddress, payload.count > 0 else { return }
        if let maskKey {
            Masking.apply(key: maskKey, offset: 0, source: source, destination: target, count: payload.count)
        } else {
            target.copyMemory(from: source, byteCount: payload.count)
        }
    }
}
