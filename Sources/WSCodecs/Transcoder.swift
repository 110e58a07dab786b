/// Converts binary messages of one format to JSON texts and JSON texts to
/// binary messages (wspipe(1): BINARY CODECS), reusing its buffers: what
/// a call returns points into them and is valid until the next call.
///
/// Bounded whatever the input: nesting at most `CodecLimits.depth`, every
/// announced length checked against the bytes that are left before it is
/// used, and the JSON of one message at most `maxJSONBytes`.
public final class Transcoder {
    public let format: BinaryFormat
    private var json: OutputBuffer
    private var binary: OutputBuffer
    private var stack = ContainerStack()
    private var marks = MapMarks()
    private var scratch: [UInt8] = []
    private var heads: [JSONToBinary<MessagePackEmitter>.Placeholder] = []
    private var cborHeads: [JSONToBinary<CBOREmitter>.Placeholder] = []
    /// Buffers larger than this are given back after the message.
    private static let keptCapacity = 1 << 20

    /// `maxJSONBytes`: the longest JSON text one message may become (a
    /// longer one is an error, so a small message that would expand a lot,
    /// deep CBOR tags for instance, costs bounded memory).
    public init(_ format: BinaryFormat, maxJSONBytes: Int) {
        self.format = format
        json = OutputBuffer(capacity: 4096, limit: maxJSONBytes)
        binary = OutputBuffer(capacity: 4096, limit: Int.max / 2)
    }

    deinit {
        json.deallocate()
        binary.deallocate()
        stack.deallocate()
        marks.deallocate()
    }

    /// The JSON text (compact, one line, no newline) of the binary message `message`.
    public func decode(_ message: UnsafeRawBufferPointer) throws(CodecError) -> UnsafeRawBufferPointer {
        json.count = 0
        json.shrink(to: Self.keptCapacity)
        switch format {
        case .msgpack:
            try MessagePackToJSON.convert(message, into: &json, stack: &stack, marks: &marks)
        case .cbor:
            try CBORToJSON.convert(message, into: &json, stack: &stack, marks: &marks, scratch: &scratch)
        }
        return json.bytes
    }

    /// The binary message of the JSON text `text` (RFC 8259, with the
    /// envelopes); the error's offset is in `text`.
    public func encode(_ text: UnsafeRawBufferPointer) throws(CodecError) -> UnsafeRawBufferPointer {
        binary.count = 0
        binary.shrink(to: Self.keptCapacity)
        switch format {
        case .msgpack:
            try JSONToBinary<MessagePackEmitter>.convert(text, into: &binary, stack: &stack, heads: &heads)
        case .cbor:
            try JSONToBinary<CBOREmitter>.convert(text, into: &binary, stack: &stack, heads: &cborHeads)
        }
        return binary.bytes
    }
}
