/// What the I/O layer that drives a `Connection` closely uses beyond the
/// protocol (Sources/README.md, "One message each way"): reading the rest of
/// a large frame straight into the message, a text check that stands in for
/// the UTF-8 pass, the output it has written but keeps, a held Pong, the
/// bytes of a message still arriving. Package access: the bridge's channel
/// uses them; they are no part of the protocol's surface.
extension Connection {
    /// A check the caller makes of every text message anyway, and which
    /// implies valid UTF-8 when it passes (valid JSON is valid UTF-8). For a
    /// message whose one frame is entirely in the bytes received (the zero-copy
    /// path) it is called right before the message is delivered: when it
    /// vouches (answers 0 or more) the core's own UTF-8 pass is skipped and
    /// the answer is delivered with the message (`ConnectionEvent.text`'s
    /// `verdict`), so the caller need not ask again; when it does not, that
    /// pass decides (and fails the connection with 1007 on bad UTF-8, RFC
    /// 6455 §8.1). A message assembled from pieces is still validated piece
    /// by piece, so a bad byte fails the connection before the rest arrives.
    package var textCheck: TextCheck? {
        get { assembler.textCheck }
        set { assembler.textCheck = newValue }
    }

    /// Bytes of the incoming message being assembled (a message that arrives
    /// in pieces waits here until it is complete), for a server's memory budget.
    package var bufferedInputBytes: Int { assembler.buffer.readableBytes }

    /// No part of a frame or of a fragmented message has been received.
    package var isBetweenMessages: Bool { decoder.isBetweenFrames && assembler.isIdle }

    /// A Pong waits for `outputWritten` (or for the next frame).
    package var hasPendingPong: Bool { pendingPong != nil }

    /// The connection is gone: what it had queued goes with it.
    package mutating func discardOutput() {
        output.removeAll()
        pendingPong = nil
    }

    // MARK: - A large frame read in place

    /// While a large data frame's payload is arriving (uncompressed and
    /// unmasked, as a client receives it), the transport may read the next
    /// bytes of it straight into the message being assembled instead of into
    /// its own buffer, which saves copying them (a 1 MiB message is one
    /// pass shorter). `fill` gets room for at most `limit` bytes and never
    /// more than the frame still has, so the next frame's bytes go through
    /// `receive` as usual; it returns how many bytes it wrote, which are then
    /// handled as `receive` would handle them. Nil when this is not such a
    /// moment (`fill` is not called): the caller reads into its own buffer.
    package mutating func receiveInPlace(limit: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Int,
                                         _ handler: (ConnectionEvent) -> Void) -> Int? {
        guard acceptsPayloadInPlace, limit > 0 else { return nil }
        let header = decoder.header
        let (written, failure) = assembler.appendInPlace(upTo: min(limit, decoder.remainingPayload), fill)
        if let failure {
            failConnection(failure.closeCode, failure.reason, handler)
            return written
        }
        if written > 0 && decoder.skipPayload(written) && header.fin { deliverAssembled(handler) }
        return written
    }

    /// `receiveInPlace` would take the next bytes.
    package var acceptsPayloadInPlace: Bool {
        let header = decoder.header
        return decoder.remainingPayload >= Connection.inPlaceMinimum && !isDiscardingInput
            && !header.opcode.isControl && header.maskKey == nil && !assembler.isCompressed
    }

    /// Below this, the payload's rest comes through `receive` (in the
    /// transport's buffer with whatever follows it).
    package static let inPlaceMinimum = 64 << 10
}
