/// Tracks which frames in an output buffer the transport has written
/// completely, so that the frames still unwritten when a connection drops can
/// be turned back into messages and sent again on the next connection.
///
/// The output holds whole frames one after another (each send appends one
/// complete frame, RFC 6455 §5.2). The transport writes from
/// `unwrittenOffset` on; bytes of a frame are only consumed from the buffer
/// once the whole frame is written, so a frame cut by a drop is still there to
/// be recovered (and is sent again in full: at least once, never lost).
///
/// A compressed frame (RSV1, permessage-deflate) cannot be turned back into
/// its message, so its original payload is kept here, in frame order, until
/// the frame is written.
public struct OutgoingFrames: Sendable {
    /// Bytes at the front of the output already written (all within the first frame).
    public private(set) var unwrittenOffset = 0
    /// Length of the first frame in the output, 0 when not yet read.
    private var frontFrameLength = 0
    /// The original payloads of the compressed frames in the output, oldest
    /// first from `firstOriginal` on.
    private var originals: [[UInt8]] = []
    private var firstOriginal = 0
    /// Their total size.
    public private(set) var originalBytes = 0

    public init() {}

    /// The payload of the compressed frame just appended to the output.
    public mutating func keepOriginal(_ payload: UnsafeRawBufferPointer) {
        originals.append(Array(payload))
        originalBytes += payload.count
    }

    /// The transport wrote `count` more bytes: consume every frame now
    /// written completely.
    public mutating func didWrite(_ count: Int, in output: inout ByteBuffer) {
        unwrittenOffset += count
        while unwrittenOffset > 0 {
            if frontFrameLength == 0 {
                guard let length = output.withReadableBytes({ Self.frameLength(at: $0) }) else { return }
                frontFrameLength = length
            }
            guard unwrittenOffset >= frontFrameLength else { return }
            if output.withReadableBytes({ Self.isCompressedData($0) }) { dropOriginal() }
            output.consume(frontFrameLength)
            unwrittenOffset -= frontFrameLength
            frontFrameLength = 0
        }
    }

    /// Hands every data frame still in `output` (written partly or not at all)
    /// to `body` as its opcode and unmasked payload, in order, then empties the
    /// output. Control frames (pings, pongs, Close) are dropped: they belong
    /// to the connection that is gone.
    public mutating func drainMessages(from output: inout ByteBuffer,
                                       _ body: (Opcode, UnsafeRawBufferPointer) -> Void) {
        var payload: [UInt8] = []
        output.withReadableBytes { all in
            var offset = 0
            while offset < all.count,
                  let length = Self.frameLength(at: UnsafeRawBufferPointer(rebasing: all[offset...])) {
                let frame = UnsafeRawBufferPointer(rebasing: all[offset..<offset + length])
                let opcode = Opcode(rawValue: frame[0] & 0x0F)
                if Self.isCompressedData(frame) {
                    originals[firstOriginal].withUnsafeBytes { body(opcode, $0) }
                    dropOriginal()
                } else if !opcode.isControl {
                    Self.unmaskedPayload(of: frame, into: &payload)
                    payload.withUnsafeBytes { body(opcode, $0) }
                }
                offset += length
            }
        }
        output.removeAll()
        unwrittenOffset = 0
        frontFrameLength = 0
        originals.removeAll()
        firstOriginal = 0
        originalBytes = 0
    }

    /// A data frame with RSV1: compressed, its original kept here.
    private static func isCompressedData(_ frame: UnsafeRawBufferPointer) -> Bool {
        frame[0] & FrameHeader.rsv1 != 0 && frame[0] & 0x08 == 0
    }

    private mutating func dropOriginal() {
        originalBytes -= originals[firstOriginal].count
        originals[firstOriginal] = []
        firstOriginal += 1
        // Reclaim the slots of written frames now and then, not on every frame.
        if firstOriginal == originals.count {
            originals.removeAll(keepingCapacity: true)
            firstOriginal = 0
        } else if firstOriginal >= 64 && firstOriginal * 2 >= originals.count {
            originals.removeFirst(firstOriginal)
            firstOriginal = 0
        }
    }

    /// Total length of the frame starting at `bytes`, or nil if its header is
    /// not all there (never the case for frames this side encoded).
    static func frameLength(at bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let second = bytes[1]
        let maskLength = second & 0x80 != 0 ? 4 : 0
        switch second & 0x7F {
        case 126:
            guard bytes.count >= 4 else { return nil }
            return 4 + maskLength + (Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return nil }
            var length = 0
            for i in 2..<10 { length = length << 8 | Int(bytes[i]) }
            return 10 + maskLength + length
        case let short:
            return 2 + maskLength + Int(short)
        }
    }

    private static func unmaskedPayload(of frame: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let second = frame[1]
        var headerLength = 2
        if second & 0x7F == 126 { headerLength = 4 } else if second & 0x7F == 127 { headerLength = 10 }
        let masked = second & 0x80 != 0
        let payloadStart = headerLength + (masked ? 4 : 0)
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: frame[payloadStart...])
        guard masked else { return }
        let key = UInt32(frame[headerLength]) << 24 | UInt32(frame[headerLength + 1]) << 16
            | UInt32(frame[headerLength + 2]) << 8 | UInt32(frame[headerLength + 3])
        out.withUnsafeMutableBytes { Masking.apply(key: key, offset: 0, inPlace: $0) }
    }
}
