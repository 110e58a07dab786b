/// The permessage-deflate codec of one connection (RFC 7692 §7.2), set up
/// from the negotiated parameters for one role: compresses the messages we
/// send and decompresses the ones we receive, each with or without context
/// takeover as negotiated. zlib's streams are created on first use, so a
/// connection that only ever sends (or receives) pays for one of them.
///
/// A class shared by the `Connection` and its `MessageAssembler`; a
/// connection with compression must not be copied and used twice.
/// `@unchecked Sendable`: like the Connection, it is used by one thread.
public final class PerMessageDeflate: @unchecked Sendable {
    public let parameters: DeflateParameters
    public let role: Role
    private var deflater: Deflater?
    private var inflater: Inflater?

    public init(parameters: DeflateParameters, role: Role) {
        self.parameters = parameters
        self.role = role
    }

    /// Compresses one whole message; `body` gets the payload of its frame.
    func compress<R>(_ message: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if deflater == nil {
            deflater = Deflater(windowBits: parameters.sendWindowBits(role),
                                resetsEachMessage: parameters.sendsWithoutContextTakeover(role))
        }
        return deflater!.compress(message, body)
    }

    /// Decompresses a piece of a compressed message's payload into `out`.
    func inflate(_ piece: UnsafeRawBufferPointer, into out: inout ByteBuffer, limit: Int) -> Inflater.Outcome {
        if inflater == nil { inflater = Inflater() }
        return inflater!.inflate(piece, into: &out, limit: limit)
    }

    /// The compressed message's last frame is in (§7.2.2).
    func finishMessage(into out: inout ByteBuffer, limit: Int) -> Inflater.Outcome {
        if inflater == nil { inflater = Inflater() }
        return inflater!.finishMessage(into: &out, limit: limit,
                                       reset: parameters.receivesWithoutContextTakeover(role))
    }
}
