/// Splits a byte stream into frames (RFC 6455 §5.2) with an explicit state
/// machine, without copying payload bytes:
///
///     idle -> firstByte -> extendedLength (2 or 8 bytes) -> maskKey (4) -> payload
///
/// Each state holds what it has read so far (as SwiftNIO's frame decoder
/// does), so the input may be cut anywhere and nothing beside the state says
/// where the decoder is. Every rule that the first two bytes or the length
/// decide is checked as soon as those bytes are in, before any payload
/// arrives. Payload comes out as pieces of the caller's buffer, unmasked in
/// place.
public struct FrameDecoder: Sendable {
    public enum State: Hashable, Sendable {
        /// Between frames: the next byte starts a header.
        case idle
        /// The header's first byte (FIN, RSV, opcode) is in.
        case firstByte(UInt8)
        /// The extended length, `size` bytes (2 or 8) of which `needed` are
        /// still to come; those in so far, big-endian, in `value`.
        case extendedLength(size: Int, needed: Int, value: UInt64)
        /// The masking key, `needed` bytes of it still to come.
        case maskKey(needed: Int, value: UInt32)
        /// The payload of `header`, `offset` bytes of it read.
        case payload(offset: Int)
    }

    /// What one `next(_:)` call produced.
    public enum Step {
        /// The input is used up and the current state needs more bytes.
        case needMoreData
        /// A complete header; its payload follows (possibly empty).
        case header(FrameHeader)
        /// A piece of the current frame's payload, unmasked, pointing into the
        /// input. `isWholeFrame`: this piece is the entire payload.
        /// `isFrameEnd`: this piece ends the payload (the next step starts a new frame).
        case payload(UnsafeRawBufferPointer, isWholeFrame: Bool, isFrameEnd: Bool)
        /// A protocol violation; the decoder must not be used afterwards.
        case failure(FrameError)
    }

    /// Clients receive unmasked frames, servers masked ones (§5.1).
    public let expectMasked: Bool
    /// RSV bits an extension has negotiated (e.g. `FrameHeader.rsv1` for
    /// permessage-deflate). 0 until then: any set bit is an error.
    public var allowedReservedBits: UInt8 = 0

    public private(set) var state: State = .idle
    /// The header of the frame being read (valid from the `.header` step
    /// until the frame ends).
    public private(set) var header = FrameHeader(fin: true, opcode: .continuation, payloadLength: 0)

    public init(role: Role) {
        expectMasked = role == .server
    }

    /// Advances over `input` (which is shrunk past what was used) until one
    /// step has something to report.
    public mutating func next(_ input: inout UnsafeMutableRawBufferPointer) -> Step {
        if case .idle = state, let step = wholeHeader(&input) { return step }
        while true {
            switch state {
            case .payload(let offset):
                return payloadStep(offset, &input)
            case .idle:
                guard let byte = FrameDecoder.take(&input) else { return .needMoreData }
                state = .firstByte(byte)
            case .firstByte(let first):
                guard let second = FrameDecoder.take(&input) else { return .needMoreData }
                if let step = readFirstTwoBytes(first, second) { return step }
            case .extendedLength(let size, let needed, let value):
                let (rest, sum) = FrameDecoder.accumulate(&input, needed, value)
                guard rest == 0 else {
                    state = .extendedLength(size: size, needed: rest, value: sum)
                    return .needMoreData
                }
                if let step = readExtendedLength(sum, size: size) { return step }
            case .maskKey(let needed, let value):
                let (rest, sum) = FrameDecoder.accumulate(&input, needed, UInt64(value))
                guard rest == 0 else {
                    state = .maskKey(needed: rest, value: UInt32(truncatingIfNeeded: sum))
                    return .needMoreData
                }
                header.maskKey = UInt32(truncatingIfNeeded: sum)
                return startPayload()
            }
        }
    }

    // MARK: - A whole header at once

    /// The usual case, a frame boundary with the whole header in the input:
    /// the same rules in the same order as the state-by-state path, in one
    /// step. Nil (nothing used) when the header is cut by the input's end.
    @inline(__always)
    private mutating func wholeHeader(_ input: inout UnsafeMutableRawBufferPointer) -> Step? {
        guard input.count >= 2, let base = input.baseAddress else { return nil }
        let first = base.load(as: UInt8.self)
        let second = base.load(fromByteOffset: 1, as: UInt8.self)
        let masked = second & 0x80 != 0
        let short = Int(second & 0x7F)
        let extra = short == 126 ? 2 : short == 127 ? 8 : 0
        let size = 2 + extra + (masked ? 4 : 0)
        guard input.count >= size else { return nil }
        header = FrameHeader(fin: first & 0x80 != 0, reservedBits: first & 0x70, opcode: Opcode(rawValue: first & 0x0F),
                             maskKey: nil, payloadLength: short)
        if let error = FrameDecoder.check(header, masked: masked, expectMasked: expectMasked,
                                          allowedReservedBits: allowedReservedBits) {
            input = UnsafeMutableRawBufferPointer(rebasing: input[2...])
            return .failure(error)
        }
        if extra > 0 {
            var value: UInt64 = 0
            for i in 2 ..< 2 + extra { value = value << 8 | UInt64(base.load(fromByteOffset: i, as: UInt8.self)) }
            input = UnsafeMutableRawBufferPointer(rebasing: input[(2 + extra)...])
            if extra == 8 && value >> 63 != 0 { return .failure(.lengthHighBitSet) }
            let length = Int(value)
            if length < (extra == 2 ? 126 : 0x1_0000) { return .failure(.nonMinimalLength(length)) }
            header.payloadLength = length
        } else {
            input = UnsafeMutableRawBufferPointer(rebasing: input[2...])
        }
        if masked {
            header.maskKey = UInt32(bigEndian: UnsafeRawPointer(input.baseAddress!).loadUnaligned(as: UInt32.self))
            input = UnsafeMutableRawBufferPointer(rebasing: input[4...])
        }
        return startPayload()
    }

    // MARK: - A whole data frame at once

    /// The common frame in one step: when the decoder is between frames and
    /// `input` holds the whole next frame, and that frame is an unfragmented
    /// text or binary frame (FIN set, no reserved bit) with a 7- or 16-bit
    /// length and the masking its direction needs (RFC 6455 §5.1), returns
    /// its opcode and payload (unmasked in place) and moves `input` past it.
    /// Otherwise returns nil with nothing consumed, and `next` decodes the
    /// frame (and reports what is wrong with it, e.g. a non-minimal length,
    /// §5.2). The decoder ends between frames, as `next` would leave it.
    @inline(__always)
    public mutating func nextWholeDataFrame(_ input: inout UnsafeMutableRawBufferPointer)
        -> (opcode: Opcode, payload: UnsafeRawBufferPointer)? {
        guard case .idle = state, input.count >= 2, let base = input.baseAddress else { return nil }
        let first = base.load(as: UInt8.self)
        // 0x81: FIN + text; 0x82: FIN + binary.
        guard first == 0x81 || first == 0x82 else { return nil }
        let second = base.load(fromByteOffset: 1, as: UInt8.self)
        guard (second & 0x80 != 0) == expectMasked else { return nil }
        var length = Int(second & 0x7F)
        var offset = 2
        if length == 126 {
            guard input.count >= 4 else { return nil }
            length = Int(UInt16(bigEndian: UnsafeRawPointer(base + 2).loadUnaligned(as: UInt16.self)))
            guard length >= 126 else { return nil }
            offset = 4
        } else if length == 127 {
            return nil
        }
        var maskKey: UInt32?
        if expectMasked {
            guard input.count >= offset &+ 4 else { return nil }
            maskKey = UInt32(bigEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self))
            offset &+= 4
        }
        guard input.count &- offset >= length else { return nil }
        let payload = UnsafeMutableRawBufferPointer(start: base + offset, count: length)
        if let maskKey { Masking.apply(key: maskKey, offset: 0, inPlace: payload) }
        header = FrameHeader(fin: true, opcode: Opcode(rawValue: first & 0x0F), maskKey: maskKey, payloadLength: length)
        input = UnsafeMutableRawBufferPointer(start: base + (offset &+ length), count: input.count &- offset &- length)
        return (header.opcode, UnsafeRawBufferPointer(payload))
    }

    // MARK: - Header states

    /// The next input byte, used up; nil when there is none.
    @inline(__always)
    private static func take(_ input: inout UnsafeMutableRawBufferPointer) -> UInt8? {
        guard let byte = input.first else { return nil }
        input = UnsafeMutableRawBufferPointer(rebasing: input[1...])
        return byte
    }

    /// Shifts up to `needed` input bytes into `value`: the bytes still
    /// needed after them, and the value so far.
    private static func accumulate(_ input: inout UnsafeMutableRawBufferPointer, _ needed: Int,
                                   _ value: UInt64) -> (needed: Int, value: UInt64) {
        let count = min(needed, input.count)
        var sum = value
        for i in 0 ..< count { sum = sum << 8 | UInt64(input[i]) }
        input = UnsafeMutableRawBufferPointer(rebasing: input[count...])
        return (needed - count, sum)
    }

    private mutating func readFirstTwoBytes(_ first: UInt8, _ second: UInt8) -> Step? {
        let opcode = Opcode(rawValue: first & 0x0F)
        let masked = second & 0x80 != 0
        let length = Int(second & 0x7F)
        header = FrameHeader(fin: first & 0x80 != 0, reservedBits: first & 0x70, opcode: opcode,
                             maskKey: nil, payloadLength: length)
        if let error = FrameDecoder.check(header, masked: masked, expectMasked: expectMasked,
                                          allowedReservedBits: allowedReservedBits) {
            return .failure(error)
        }
        if length >= 126 {
            let size = length == 126 ? 2 : 8
            state = .extendedLength(size: size, needed: size, value: 0)
            return nil
        }
        return afterLength(masked: masked)
    }

    /// The rules the first two bytes decide (§5.1, §5.2, §5.5).
    private static func check(_ header: FrameHeader, masked: Bool, expectMasked: Bool,
                              allowedReservedBits: UInt8) -> FrameError? {
        if header.reservedBits & ~allowedReservedBits != 0 { return .reservedBitsSet(header.reservedBits) }
        if header.opcode.isReserved { return .reservedOpcode(header.opcode.rawValue) }
        if header.opcode.isControl {
            if !header.fin { return .fragmentedControlFrame }
            // 126 and 127 announce an extended length, which is at least 126.
            if header.payloadLength > 125 { return .controlFrameTooLong(header.payloadLength) }
        }
        if masked != expectMasked { return expectMasked ? .unmaskedFrameFromClient : .maskedFrameFromServer }
        return nil
    }

    private mutating func readExtendedLength(_ value: UInt64, size: Int) -> Step? {
        if size == 8 && value >> 63 != 0 { return .failure(.lengthHighBitSet) }
        let length = Int(value)
        let minimum = size == 2 ? 126 : 0x1_0000
        if length < minimum { return .failure(.nonMinimalLength(length)) }
        header.payloadLength = length
        return afterLength(masked: expectMasked)
    }

    private mutating func afterLength(masked: Bool) -> Step? {
        if masked {
            state = .maskKey(needed: 4, value: 0)
            return nil
        }
        return startPayload()
    }

    private mutating func startPayload() -> Step {
        state = .payload(offset: 0)
        return .header(header)
    }

    // MARK: - Payload state

    /// No part of a frame has been read: the next byte starts one.
    public var isBetweenFrames: Bool {
        if case .idle = state { return true }
        return false
    }

    /// Payload bytes of the current frame still to come; 0 outside a payload.
    public var remainingPayload: Int {
        if case .payload(let offset) = state { return header.payloadLength - offset }
        return 0
    }

    /// `count` bytes of the current (unmasked) frame's payload arrived
    /// somewhere else than the input (`Connection.receiveInPlace`). True
    /// when they end the payload.
    mutating func skipPayload(_ count: Int) -> Bool {
        guard case .payload(let offset) = state, header.maskKey == nil, count <= header.payloadLength - offset else {
            preconditionFailure("FrameDecoder: skipping past the payload")
        }
        let end = offset + count
        guard end == header.payloadLength else {
            state = .payload(offset: end)
            return false
        }
        state = .idle
        return true
    }

    private mutating func payloadStep(_ offset: Int, _ input: inout UnsafeMutableRawBufferPointer) -> Step {
        let remaining = header.payloadLength - offset
        if remaining > 0 && input.isEmpty { return .needMoreData }
        let take = min(remaining, input.count)
        let piece = UnsafeMutableRawBufferPointer(rebasing: input[..<take])
        input = UnsafeMutableRawBufferPointer(rebasing: input[take...])
        if let key = header.maskKey {
            Masking.apply(key: key, offset: offset, inPlace: piece)
        }
        let isWhole = offset == 0 && take == header.payloadLength
        let end = offset + take
        let isEnd = end == header.payloadLength
        state = isEnd ? .idle : .payload(offset: end)
        return .payload(UnsafeRawBufferPointer(piece), isWholeFrame: isWhole, isFrameEnd: isEnd)
    }
}
