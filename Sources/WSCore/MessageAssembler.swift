/// Turns data frames into messages (RFC 6455 §5.4): checks the fragment order,
/// the size limit and, for text, UTF-8 (incrementally, so a bad byte fails the
/// connection in the fragment that carries it). Payload bytes that cannot be
/// delivered in place are copied exactly once, into `buffer`, which is reused
/// from message to message.
struct MessageAssembler: Sendable {
    enum Failure: Error, Equatable {
        case protocolError(String)
        case tooBig(limit: Int)
        case invalidUTF8

        var closeCode: CloseCode {
            switch self {
            case .protocolError: return .protocolError
            case .tooBig: return .messageTooBig
            case .invalidUTF8: return .invalidPayload
            }
        }

        var reason: String {
            switch self {
            case .protocolError(let reason): return reason
            case .tooBig(let limit): return "message larger than the \(limit)-byte limit"
            case .invalidUTF8: return "invalid UTF-8 in text message"
            }
        }
    }

    /// A buffer grown beyond this by one large message is released afterwards,
    /// so one burst does not pin memory for the connection's lifetime.
    private static let retainedCapacity = 8 << 20

    let maxMessageSize: Int
    /// .text or .binary while a message is in progress.
    private(set) var opcode: Opcode?
    /// The message so far (only for messages not delivered in place).
    private(set) var buffer = ByteBuffer()
    /// Sum of the payload lengths announced by this message's frame headers.
    private var announced = 0
    private var validator = UTF8Validator()

    init(maxMessageSize: Int) {
        self.maxMessageSize = maxMessageSize
    }

    /// Checks a data frame's header before its payload is read: §5.4 ordering
    /// ("a continuation frame ... only after a non-final frame", no new data
    /// frame inside a fragmented message) and the size limit, so a too-big
    /// message fails with 1009 as soon as a header announces it.
    mutating func begin(_ header: FrameHeader) -> Failure? {
        if header.opcode == .continuation {
            if opcode == nil { return .protocolError("continuation frame without a message to continue") }
        } else {
            if opcode != nil {
                return .protocolError("new \(header.opcode) frame while a fragmented message is in progress")
            }
            opcode = header.opcode
            announced = 0
            validator.reset()
        }
        if header.payloadLength > maxMessageSize - announced { return .tooBig(limit: maxMessageSize) }
        announced += header.payloadLength
        return nil
    }

    /// A one-frame message whose whole payload is in the input: validate it
    /// there, no copy. The caller delivers `payload` itself.
    mutating func completeInPlace(_ payload: UnsafeRawBufferPointer) -> Failure? {
        let isText = opcode == .text
        opcode = nil
        if isText && !UTF8Validator.isValid(payload) { return .invalidUTF8 }
        return nil
    }

    /// Appends a piece of the current message (validating text as it comes).
    /// The buffer grows with the bytes that arrived, never with the lengths
    /// the headers announce (a peer could announce 64 MiB and send one byte),
    /// and never beyond the limit: `begin` made sure the message fits in it.
    mutating func append(_ piece: UnsafeRawBufferPointer) -> Failure? {
        if opcode == .text && !validator.feed(piece) { return .invalidUTF8 }
        buffer.append(piece, capacityLimit: maxMessageSize)
        return nil
    }

    /// The final fragment is in: the text must not end inside a character.
    func finish() -> Failure? {
        if opcode == .text && !validator.isAtBoundary { return .invalidUTF8 }
        return nil
    }

    /// Ready for the next message (call after delivering `buffer`).
    mutating func reset() {
        opcode = nil
        buffer.removeAll(keepingCapacity: buffer.capacity <= MessageAssembler.retainedCapacity)
    }
}
