/// The sans-I/O WebSocket connection (after the handshake), RFC 6455 §5.
///
/// Bytes go in through `receive`, events come out through the handler, and
/// bytes to send accumulate in `output`; the caller does all I/O and timing,
/// releases what it wrote with `consumeOutput`, and says `outputWritten`
/// when nothing is left to write. Protocol duties that need no
/// decision are done here: Pongs answer Pings (§5.5.2), a peer's Close is
/// echoed (§5.5.1), and a violation queues a Close with the right code and
/// stops input processing (§7.1.7 "Fail the WebSocket Connection").
///
/// Every Ping gets its Pong at once while the output waiting to be written
/// is short (Autobahn 2.10 and 2.11: ten Pings in one read, ten Pongs). A
/// peer that sends Pings and never reads must not grow `output` without
/// bound: above `pongHoldThreshold` bytes waiting, only the most recent Ping
/// is answered (§5.5.3 allows it), and its Pong waits outside `output`,
/// replaced by the next Ping's, until everything queued before it has been
/// written (`outputWritten`).
///
/// With permessage-deflate (RFC 7692) messages are compressed and inflated
/// here too; the zlib streams live in a `PerMessageDeflate` object that copies
/// of the connection share, so only one copy may be used.
///
/// The handler runs while `receive` holds exclusive access to the connection:
/// it must not touch this `Connection` (queue follow-up sends after `receive`
/// returns), and it must consume or copy payload bytes before it returns.
///
/// The public members are the protocol's (as python-websockets' protocol
/// object has them): receive bytes and EOF, send messages, pings and a
/// Close, fail, read and release the output, and the state. What an I/O
/// layer that drives it closely also uses (reading a large frame in place,
/// the text check, the written prefix, a held Pong) is in
/// `Connection+Transport.swift`, visible to the package only.
public struct Connection: Sendable {
    public let role: Role
    /// The closing handshake's progress and who started it (`ConnectionState`).
    public private(set) var state: ConnectionState = .open
    /// Bytes for the peer, in order (whole frames). Read by the I/O layer with
    /// `withOutput` and released with `consumeOutput` once written; nothing
    /// outside the core adds to it.
    package internal(set) var output = ByteBuffer(capacity: 16 * 1024)

    var decoder: FrameDecoder
    var assembler: MessageAssembler
    private var entropy: EntropyPool
    /// A control frame's payload when it arrives in more than one piece.
    private var controlPayload = ByteBuffer(capacity: 125)
    /// The payload of the latest Ping not answered yet, held while too much
    /// output waits (§5.5.3: "an endpoint MAY elect to send a Pong frame for
    /// only the most recently processed Ping frame"). Queued when the
    /// transport says its output is written (`outputWritten`), or before the
    /// next frame, so a peer that pings and never reads cannot grow the output.
    var pendingPong: [UInt8]?
    /// Bytes at the front of `output` the transport has written but keeps
    /// (a client keeps frames until the peer's TCP acknowledges them): they
    /// do not wait to be written. Set by the transport before `receive`.
    package var writtenPrefix = 0
    /// Above this many bytes of output waiting to be written, a Ping's Pong
    /// is held back (only the latest one).
    static let pongHoldThreshold = 256 << 10
    /// The negotiated permessage-deflate codec (RFC 7692), nil without it.
    public let compression: PerMessageDeflate?

    /// `compression`: the permessage-deflate parameters the handshake
    /// agreed on (RFC 7692 §7.1), nil for none.
    public init(role: Role, maxMessageSize: Int, compression: DeflateParameters? = nil,
                entropy: EntropyPool = EntropyPool()) {
        self.role = role
        self.decoder = FrameDecoder(role: role)
        let codec = compression.map { PerMessageDeflate(parameters: $0, role: role) }
        self.compression = codec
        self.assembler = MessageAssembler(maxMessageSize: maxMessageSize, compression: codec)
        self.entropy = entropy
        // RFC 7692 §6: the extension gives RSV1 its meaning ("Per-Message Compressed").
        if codec != nil { decoder.allowedReservedBits = FrameHeader.rsv1 }
    }

    // MARK: - Output

    /// Calls `body` with the queued output bytes.
    public func withOutput<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try output.withReadableBytes(body)
    }

    /// Releases the first `count` bytes of the output (written, and no longer
    /// needed by the I/O layer).
    public mutating func consumeOutput(_ count: Int) {
        output.consume(count)
    }

    /// The transport has written everything queued: a Pong held back for the
    /// latest Ping goes out now.
    public mutating func outputWritten() {
        queuePendingPong()
    }

    /// True once both Close frames have been exchanged (the transport may then
    /// close TCP; a client waits for the server to close first, briefly).
    /// `state` says who sent the first.
    public var isClosingHandshakeComplete: Bool {
        if case .closed = state { return true }
        return false
    }

    public var maxMessageSize: Int { assembler.maxMessageSize }

    /// Frames one incoming message may arrive in: one per 64 bytes of
    /// `maxMessageSize`, at least 65,536. Past it the connection fails with
    /// 1009, as for a message too large: an endless run of empty fragments
    /// would otherwise keep a message in progress for ever.
    var maxFramesPerMessage: Int { assembler.maxFrames }

    /// Input is dropped after a failure (§7.1.7) and after the peer's Close:
    /// §5.5.1 says the peer sends no data after its Close.
    var isDiscardingInput: Bool {
        switch state {
        case .open, .localClosing: return false
        case .closed, .failed: return true
        }
    }

    // MARK: - Receiving

    /// Feed received bytes. `handler` gets every event they complete. Bytes of an
    /// incomplete frame are kept internally (header bytes buffered; payload bytes
    /// appended to the message being assembled, each byte copied at most once).
    /// The buffer is mutable because the server role unmasks in place.
    public mutating func receive(_ bytes: UnsafeMutableRawBufferPointer, _ handler: (ConnectionEvent) -> Void) {
        var input = bytes
        while !isDiscardingInput {
            // Between messages, a whole unfragmented data frame skips the
            // frame-by-frame steps (same checks, same events).
            if assembler.isIdle, let (opcode, payload) = decoder.nextWholeDataFrame(&input) {
                receiveWholeMessage(opcode, payload, handler)
                continue
            }
            switch decoder.next(&input) {
            case .needMoreData:
                return
            case .header(let header):
                beginFrame(header, handler)
            case .payload(let piece, let isWholeFrame, let isFrameEnd):
                receivePayload(piece, isWholeFrame: isWholeFrame, isFrameEnd: isFrameEnd, handler)
            case .failure(let error):
                failConnection(.protocolError, error.description, handler)
            }
        }
    }

    /// TCP EOF from the peer. Reported as `.failed(code: .abnormal, ...)` if no
    /// Close was received before (§7.1.5: the close code is then 1006, which
    /// is never sent, so nothing is queued); nothing if the closing handshake
    /// was done or the connection had already failed.
    public mutating func receiveEOF(_ handler: (ConnectionEvent) -> Void) {
        guard !isDiscardingInput else { return }
        state = .failed
        handler(.failed(code: .abnormal, reason: "connection closed without a Close frame"))
    }

    private mutating func beginFrame(_ header: FrameHeader, _ handler: (ConnectionEvent) -> Void) {
        if header.opcode.isControl {
            // RFC 7692 §6.1: "An endpoint MUST NOT set the "Per-Message
            // Compressed" bit of control frames ... An endpoint receiving such
            // a frame MUST _Fail the WebSocket Connection_."
            if header.reservedBits & FrameHeader.rsv1 != 0 {
                return failConnection(.protocolError, "RSV1 set on a \(header.opcode) frame", handler)
            }
            controlPayload.removeAll()
        } else if let failure = assembler.begin(header) {
            failConnection(failure.closeCode, failure.reason, handler)
        }
    }

    private mutating func receivePayload(_ piece: UnsafeRawBufferPointer, isWholeFrame: Bool, isFrameEnd: Bool,
                                         _ handler: (ConnectionEvent) -> Void) {
        let header = decoder.header
        if !header.opcode.isControl {
            receiveData(header, piece, isWholeFrame: isWholeFrame, isFrameEnd: isFrameEnd, handler)
        } else if isWholeFrame {
            receiveControl(header.opcode, piece, handler)
        } else {
            controlPayload.append(piece)
            guard isFrameEnd else { return }
            // Move the bytes out so handling the frame may mutate self.
            let payload = controlPayload
            controlPayload = ByteBuffer()
            payload.withReadableBytes { receiveControl(header.opcode, $0, handler) }
            controlPayload = payload
        }
    }

    /// An unfragmented, uncompressed message whose frame was entirely in the
    /// input: the checks of `beginFrame` and `receiveData` (size limit, then
    /// UTF-8 for text), delivered without a copy.
    private mutating func receiveWholeMessage(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer,
                                              _ handler: (ConnectionEvent) -> Void) {
        var verdict = -1
        if let failure = assembler.checkWhole(opcode, payload, verdict: &verdict) {
            return failConnection(failure.closeCode, failure.reason, handler)
        }
        handler(opcode == .text ? .text(payload, verdict: verdict) : .binary(payload))
    }

    private mutating func receiveData(_ header: FrameHeader, _ piece: UnsafeRawBufferPointer,
                                      isWholeFrame: Bool, isFrameEnd: Bool, _ handler: (ConnectionEvent) -> Void) {
        if isWholeFrame && header.fin && header.opcode != .continuation && !assembler.isCompressed {
            // The zero-copy path: an unfragmented message entirely in the input.
            var verdict = -1
            if let failure = assembler.completeInPlace(piece, verdict: &verdict) {
                return failConnection(failure.closeCode, failure.reason, handler)
            }
            return handler(header.opcode == .text ? .text(piece, verdict: verdict) : .binary(piece))
        }
        if let failure = assembler.append(piece) {
            return failConnection(failure.closeCode, failure.reason, handler)
        }
        guard isFrameEnd && header.fin else { return }
        deliverAssembled(handler)
    }

    /// The last fragment of an assembled message is in: the final checks,
    /// then the message.
    mutating func deliverAssembled(_ handler: (ConnectionEvent) -> Void) {
        if let failure = assembler.finish() {
            return failConnection(failure.closeCode, failure.reason, handler)
        }
        let isText = assembler.opcode == .text
        assembler.buffer.withReadableBytes { handler(isText ? .text($0, verdict: -1) : .binary($0)) }
        assembler.reset()
    }

    private mutating func receiveControl(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer,
                                         _ handler: (ConnectionEvent) -> Void) {
        switch opcode {
        case .ping:
            // §5.5.2: "Upon receipt of a Ping frame, an endpoint MUST send a Pong
            // frame in response ... the same Application data". §5.5.3: "If an
            // endpoint receives a Ping frame and has not yet sent Pong frame(s)
            // in response to previous Ping frame(s), the endpoint MAY elect to
            // send a Pong frame for only the most recently processed Ping frame."
            // After our Close nothing more is sent. Answered at once while the
            // output is short; a held Pong for an older Ping gives way.
            if state == .open {
                if output.readableBytes - writtenPrefix > Connection.pongHoldThreshold {
                    pendingPong = Array(payload)
                } else {
                    pendingPong = nil
                    appendFrame(.pong, payload)
                }
            }
            handler(.ping(payload))
        case .pong:
            handler(.pong(payload))
        default:
            receiveClose(payload, handler)
        }
    }

    private mutating func receiveClose(_ payload: UnsafeRawBufferPointer, _ handler: (ConnectionEvent) -> Void) {
        switch ClosePayload.parse(payload) {
        case .invalid(let code, let reason):
            failConnection(code, reason, handler)
        case .valid(let code, let reason):
            // §5.5.1: "If an endpoint receives a Close frame and did not
            // previously send a Close frame, the endpoint MUST send a Close frame
            // in response. ... it typically echos the status code it received."
            if state == .open {
                queueClose(code: code.map(CloseCode.init(rawValue:)), reason: "")
                state = .closed(by: .remote)
            } else {
                state = .closed(by: .local)
            }
            handler(.closeReceived(code: code.map(CloseCode.init(rawValue:)), reason: reason))
        }
    }

    // MARK: - Sending

    /// Queues a text message (one frame). The caller guarantees `payload` is
    /// UTF-8. Ignored unless the state is `.open` (§5.5.1: no data after our Close).
    public mutating func sendText(_ payload: UnsafeRawBufferPointer) {
        if state == .open { queueMessage(.text, payload) }
    }

    /// Queues a binary message (one frame). Ignored unless the state is `.open`.
    public mutating func sendBinary(_ payload: UnsafeRawBufferPointer) {
        if state == .open { queueMessage(.binary, payload) }
    }

    /// Queues a Ping. A payload over 125 bytes (§5.5: the control frame limit)
    /// is truncated to its first 125 bytes. Ignored unless the state is `.open`.
    public mutating func sendPing(_ payload: UnsafeRawBufferPointer) {
        guard state == .open else { return }
        queueFrame(.ping, UnsafeRawBufferPointer(rebasing: payload[..<min(payload.count, 125)]))
    }

    /// Puts a Ping at `offset` of the output (a frame boundary, at or after
    /// what the transport has written), ahead of the frames queued after it:
    /// a keepalive must not wait behind megabytes. Returns the frame's length
    /// (0 when not open: nothing is put). The payload is cut to 125 bytes.
    package mutating func insertPing(_ payload: UnsafeRawBufferPointer, at offset: Int) -> Int {
        guard state == .open else { return 0 }
        var frame = ByteBuffer(capacity: 14 + 125)
        let key: UInt32? = role == .client ? entropy.next32() : nil
        FrameEncoder.append(opcode: .ping, fin: true, reservedBits: 0,
                            payload: UnsafeRawBufferPointer(rebasing: payload[..<min(payload.count, 125)]),
                            maskKey: key, into: &frame)
        frame.withReadableBytes { output.insert($0, at: offset) }
        return frame.readableBytes
    }

    /// Starts the closing handshake (state -> .localClosing). Reason cut to 123 bytes
    /// on a UTF-8 boundary. A code that may not be sent (1005, 1006, 1015, ...)
    /// gives a Close without status code. Does nothing unless the state is `.open`.
    public mutating func sendClose(code: CloseCode, reason: String) {
        guard state == .open else { return }
        queueClose(code: code.isValidOnWire ? code : nil, reason: reason)
        state = .localClosing
    }

    /// Fail the connection ourselves (e.g. our policy): queue Close(code) and stop.
    /// Nothing is queued if we already sent a Close or `code` may not be sent
    /// (1006). Nothing changes once the closing handshake is over.
    public mutating func fail(code: CloseCode, reason: String) {
        guard !isDiscardingInput else { return }
        if state == .open && code.isValidOnWire { queueClose(code: code, reason: reason) }
        state = .failed
    }

    mutating func failConnection(_ code: CloseCode, _ reason: String, _ handler: (ConnectionEvent) -> Void) {
        fail(code: code, reason: reason)
        handler(.failed(code: code, reason: reason))
    }

    private mutating func queueClose(code: CloseCode?, reason: String) {
        let body = ClosePayload.encode(code: code, reason: reason)
        body.withUnsafeBytes { queueFrame(.close, $0) }
    }

    /// A data message in one frame: as it is, or with permessage-deflate
    /// compressed whole with RSV1 set (RFC 7692 §6: the bit marks the first
    /// frame, here the only one). A compressed frame cannot be turned back
    /// into its message (with context takeover it depends on the messages
    /// before it): an I/O layer that recovers unsent messages keeps the
    /// original itself.
    /// (Inlined into `sendText`, as the tests before the frame: a message's
    /// calls and their checks cost 60 instructions of a 100-byte upload.)
    @inline(__always)
    private mutating func queueMessage(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer) {
        if compression == nil { return queueFrame(opcode, payload) }
        queueCompressed(opcode, payload)
    }

    private mutating func queueCompressed(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer) {
        guard let compression else { return }
        queuePendingPong()
        compression.compress(payload) { appendFrame(opcode, $0, reservedBits: FrameHeader.rsv1) }
    }

    /// One complete frame (FIN=1), after the Pong a Ping before it asked for.
    @inline(__always)
    private mutating func queueFrame(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer) {
        if pendingPong != nil { queuePendingPong() }
        appendFrame(opcode, payload)
    }

    /// The Pong held back for the latest Ping, if any and if we may still
    /// send (no Close of ours is queued).
    private mutating func queuePendingPong() {
        guard let payload = pendingPong else { return }
        pendingPong = nil
        if state == .open { payload.withUnsafeBytes { appendFrame(.pong, $0) } }
    }

    /// Clients mask with a fresh key (§5.3).
    private mutating func appendFrame(_ opcode: Opcode, _ payload: UnsafeRawBufferPointer, reservedBits: UInt8 = 0) {
        guard role == .client else {
            return FrameEncoder.append(opcode: opcode, fin: true, reservedBits: reservedBits, payload: payload,
                                       maskKey: nil, into: &output)
        }
        FrameEncoder.appendMasked(opcode: opcode, reservedBits: reservedBits, payload: payload, key: entropy.next32(),
                                  into: &output)
    }
}
