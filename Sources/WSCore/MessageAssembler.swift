/// Turns data frames into messages (RFC 6455 §5.4): checks the fragment order,
/// the size limit and, for text, UTF-8 (incrementally, so a bad byte fails the
/// connection in the fragment that carries it). Payload bytes that cannot be
/// delivered in place are copied exactly once, into `buffer`, which is reused
/// from message to message.
///
/// With permessage-deflate negotiated, a message whose first frame has RSV1
/// set is compressed (RFC 7692 §6): its payload is inflated into `buffer` as
/// the frames arrive, the limit and UTF-8 apply to the inflated bytes.
struct MessageAssembler: Sendable {
    enum Failure: Error, Equatable {
        case protocolError(String)
        case tooBig(limit: Int)
        case tooManyFrames(limit: Int)
        case invalidUTF8
        case invalidCompressedData(String)

        var closeCode: CloseCode {
            switch self {
            case .protocolError: return .protocolError
            // A message "too big for it to process" (RFC 6455 §7.4.1), in
            // bytes or in frames.
            case .tooBig, .tooManyFrames: return .messageTooBig
            case .invalidUTF8: return .invalidPayload
            // Data "not consistent with the type of the message" (RFC 6455 §7.4.1).
            case .invalidCompressedData: return .invalidPayload
            }
        }

        var reason: String {
            switch self {
            case .protocolError(let reason): return reason
            case .tooBig(let limit): return "message larger than the \(limit)-byte limit"
            case .tooManyFrames(let limit): return "message in more than \(limit) frames"
            case .invalidUTF8: return "invalid UTF-8 in text message"
            case .invalidCompressedData(let reason): return reason
            }
        }
    }

    /// The message in progress, from its first frame to its last.
    struct Message: Sendable {
        /// .text or .binary.
        let opcode: Opcode
        /// RSV1 on its first frame (RFC 7692 §6).
        let isCompressed: Bool
        /// Sum of the payload lengths its frame headers announced.
        var announced = 0
        /// Its frames so far.
        var frames = 1
    }

    /// A buffer grown beyond this by one large message is released afterwards,
    /// so one burst does not pin memory for the connection's lifetime.
    private static let retainedCapacity = 8 << 20

    let maxMessageSize: Int
    /// Frames one message may arrive in (`frameLimit(maxMessageSize:)`).
    let maxFrames: Int
    /// Nil between messages.
    private(set) var message: Message?
    /// The message so far (only for messages not delivered in place).
    private(set) var buffer = ByteBuffer()
    private var validator = UTF8Validator()
    /// The caller's own check of text messages that arrive whole (see
    /// `Connection.textCheck`); assembled ones are validated piece by piece.
    var textCheck: TextCheck?
    /// The negotiated permessage-deflate codec, nil without compression.
    private let compression: PerMessageDeflate?

    init(maxMessageSize: Int, compression: PerMessageDeflate? = nil) {
        self.maxMessageSize = maxMessageSize
        self.maxFrames = MessageAssembler.frameLimit(maxMessageSize: maxMessageSize)
        self.compression = compression
    }

    /// How many frames a message may arrive in: one per 64 bytes of the
    /// size limit, and never fewer than 65,536 (1,048,576 at wspipe's
    /// default 64 MiB). A peer that fragments a message as finely as
    /// Autobahn's 64-byte fragments stays within it at any limit; one that
    /// sends empty fragments without end (no byte of them counts against the
    /// size, nor, compressed, their inflated nothing) is stopped with 1009.
    static func frameLimit(maxMessageSize: Int) -> Int {
        max(1 << 16, maxMessageSize / 64)
    }

    /// .text or .binary while a message is in progress.
    var opcode: Opcode? { message?.opcode }
    /// The message in progress is compressed (RSV1 on its first frame).
    var isCompressed: Bool { message?.isCompressed ?? false }

    /// Checks a data frame's header before its payload is read: §5.4 ordering
    /// ("a continuation frame ... only after a non-final frame", no new data
    /// frame inside a fragmented message), the frame count and the size
    /// limit, so a too-big message fails with 1009 as soon as a header
    /// announces it.
    mutating func begin(_ header: FrameHeader) -> Failure? {
        let rsv1 = header.reservedBits & FrameHeader.rsv1 != 0
        var current: Message
        if header.opcode == .continuation {
            guard let message else { return .protocolError("continuation frame without a message to continue") }
            // RFC 7692 §6.1: "An endpoint MUST NOT set the "Per-Message
            // Compressed" bit of ... non-first fragments of a data message."
            if rsv1 { return .protocolError("RSV1 set on a continuation frame") }
            if message.frames >= maxFrames { return .tooManyFrames(limit: maxFrames) }
            current = message
            current.frames += 1
        } else {
            if message != nil {
                return .protocolError("new \(header.opcode) frame while a fragmented message is in progress")
            }
            // The decoder lets RSV1 through only when compression was negotiated.
            if rsv1 && compression == nil { return .protocolError("RSV1 set without permessage-deflate") }
            current = Message(opcode: header.opcode, isCompressed: rsv1)
            validator.reset()
        }
        // A compressed message's limit applies to its inflated size (`inflate`);
        // its compressed bytes are never stored, so their length does not matter.
        if !current.isCompressed {
            if header.payloadLength > maxMessageSize - current.announced { return .tooBig(limit: maxMessageSize) }
            current.announced += header.payloadLength
        }
        message = current
        return nil
    }

    /// No message is being assembled (a new data frame may begin one).
    var isIdle: Bool { message == nil }

    /// The checks `begin` and `completeInPlace` make on an unfragmented,
    /// uncompressed message, without touching the state (the assembler stays
    /// idle): RFC 6455 §7.4.1 1009 for the size, §8.1 for the UTF-8 of text.
    /// `verdict` gets the text check's answer (see `checkText`).
    func checkWhole(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer, verdict: inout Int) -> Failure? {
        if payload.count > maxMessageSize { return .tooBig(limit: maxMessageSize) }
        if opcode == .text { return checkText(payload, verdict: &verdict) }
        return nil
    }

    /// A one-frame message whose whole payload is in the input: validate it
    /// there, no copy. The caller delivers `payload` itself, with `verdict`.
    mutating func completeInPlace(_ payload: UnsafeRawBufferPointer, verdict: inout Int) -> Failure? {
        let isText = opcode == .text
        message = nil
        return isText ? checkText(payload, verdict: &verdict) : nil
    }

    /// A whole text message: the caller's check when it vouches for the
    /// bytes (its answer, 0 or more, goes into `verdict` and travels with
    /// the message), the UTF-8 pass otherwise (`verdict` stays -1).
    @inline(__always)
    private func checkText(_ payload: UnsafeRawBufferPointer, verdict: inout Int) -> Failure? {
        if let textCheck {
            let answer = textCheck(payload.baseAddress, payload.count)
            if answer >= 0 { verdict = answer; return nil }
        }
        return UTF8Validator.isValid(payload) ? nil : .invalidUTF8
    }

    /// Appends a piece of the current message (validating text as it comes).
    /// The buffer grows with the bytes that arrived, never with the lengths
    /// the headers announce (a peer could announce 64 MiB and send one byte),
    /// and never beyond the limit: `begin` made sure the message fits in it.
    mutating func append(_ piece: UnsafeRawBufferPointer) -> Failure? {
        if isCompressed, let compression {
            let start = buffer.readableBytes
            let outcome = compression.inflate(piece, into: &buffer, limit: maxMessageSize)
            return failure(outcome) ?? validateText(from: start)
        }
        if opcode == .text && !validator.feed(piece) { return .invalidUTF8 }
        buffer.append(piece, capacityLimit: maxMessageSize)
        return nil
    }

    /// Reads up to `count` bytes of the current message straight into its
    /// buffer with `fill` (which returns how many it wrote), validating text
    /// as `append` does. The buffer grows by at most `count` (and never past
    /// the limit: `begin` made sure the message fits in it).
    mutating func appendInPlace(upTo count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Int) -> (Int, Failure?) {
        let start = buffer.readableBytes
        let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count, capacityLimit: maxMessageSize) {
            fill(UnsafeMutableRawBufferPointer(rebasing: $0[..<count]))
        }
        guard opcode == .text, written > 0 else { return (written, nil) }
        let valid = buffer.withReadableBytes { validator.feed(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        return (written, valid ? nil : .invalidUTF8)
    }

    /// The final fragment is in: a compressed message gets its tail (RFC 7692
    /// §7.2.2), and the text must not end inside a character.
    mutating func finish() -> Failure? {
        if isCompressed, let compression {
            let start = buffer.readableBytes
            let outcome = compression.finishMessage(into: &buffer, limit: maxMessageSize)
            if let failure = failure(outcome) ?? validateText(from: start) { return failure }
        }
        if opcode == .text && !validator.isAtBoundary { return .invalidUTF8 }
        return nil
    }

    /// Validates the inflated bytes of a text message from `start` on.
    private mutating func validateText(from start: Int) -> Failure? {
        guard opcode == .text else { return nil }
        var validator = self.validator
        let valid = buffer.withReadableBytes { validator.feed(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        self.validator = validator
        return valid ? nil : .invalidUTF8
    }

    private func failure(_ outcome: Inflater.Outcome) -> Failure? {
        switch outcome {
        case .ok: return nil
        case .tooBig: return .tooBig(limit: maxMessageSize)
        case .corrupt(let reason): return .invalidCompressedData(reason)
        }
    }

    /// Ready for the next message (call after delivering `buffer`).
    mutating func reset() {
        message = nil
        buffer.removeAll(keepingCapacity: buffer.capacity <= MessageAssembler.retainedCapacity)
    }
}

/// See `Connection.textCheck`: the bytes and their count in, the check's
/// answer out (0 or more: it vouches, and the message carries the answer as
/// its `verdict`; negative: it does not). A C function pointer, not a
/// closure: it is called once per message, and a closure would be retained
/// and released each time.
public typealias TextCheck = @convention(c) (UnsafeRawPointer?, Int) -> Int
