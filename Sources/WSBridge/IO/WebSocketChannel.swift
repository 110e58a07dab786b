import WSCore
import WSTransport
import WSJSON
import WSSocketIO

/// One open WebSocket over a byte stream, driven by the event loop: reads go
/// through the sans-I/O `Connection`, whose events are handed to the owner;
/// whatever the connection queues (frames, pongs, close echoes) is written out
/// after every step. Used by the client and by each client of the server.
/// Its read and write phases are `ChannelPhases`, a pure machine it feeds;
/// what its handler does to it while a read is being handled follows the
/// re-entrancy rule of Sources/README.md (`Receive`).
final class WebSocketChannel {
    enum Event {
        case message(ConnectionEvent)
        /// All events of one read have been delivered: a good time to flush stdout.
        case processed
        /// The transport is finished: EOF, error, or closed by us. Sent once.
        case ended(EndReason)
    }

    enum EndReason {
        /// The closing handshake completed (or we gave up waiting for it).
        case closed
        /// EOF or error before the closing handshake finished.
        case lost(String)
    }

    let stream: ByteStream
    private let loop: EventLoop
    private(set) var connection: Connection
    private let handler: (Event) -> Void
    private var phases = ChannelPhases()
    private var ended: Bool { phases.ended }
    private var readingStopped: Bool { phases.readingStopped }
    /// Whether the connection is being read (its events handed out).
    private enum Receive {
        /// `wasOpen`: as the last read found the connection.
        case idle(wasOpen: Bool)
        /// The connection is mutated and must not be read: `isOpen` answers
        /// as before the read, and a Close asked for waits for its end
        /// (`deferredClose`).
        case inProgress(wasOpen: Bool)

        var wasOpen: Bool {
            switch self {
            case .idle(let wasOpen), .inProgress(let wasOpen): return wasOpen
            }
        }
    }
    private var receiveState = Receive.idle(wasOpen: true)
    /// A Close asked for during a read: sent once the read is over.
    private var deferredClose: (code: CloseCode, reason: String)?
    private let isTLS: Bool
    /// A client keeps its frames until the peer's TCP acknowledges them, so
    /// the ones that never got there can be sent again after a drop. (A
    /// server has no next connection: it keeps only the account.)
    private let recoversUnsent: Bool
    /// Every data frame's account (both roles), and the client's kept bytes.
    private var outgoing: OutgoingFrames
    private var unacknowledgedAtEnd: Int?
    /// When the kernel was last asked what it holds, and `bytesRead` then:
    /// when the channel stops, it asks again if the peer sent something
    /// since (its segments carry its acknowledgements) or 10 ms went by.
    private var queriedAtNanos: Int64 = 0
    private var readAtQuery = 0
    static let queryInterval: Int64 = 10_000_000
    /// While the kernel holds bytes the peer's TCP has not acknowledged, the
    /// channel also looks on a timer (`lookTimerFired`): every `fastLook`
    /// while the answer moves, less often (up to `slowLook`) while it does
    /// not, since an old answer that has not moved is as good as a new one.
    private var lookTimer: EventLoop.TimerID?
    private var lookInterval = WebSocketChannel.fastLook
    static let fastLook: Int64 = 5_000_000
    static let slowLook: Int64 = 80_000_000
    /// Bytes read from the peer, and what the last look at the progress saw
    /// (`takeProgress`).
    private var bytesRead = 0
    private var lastLook = (read: 0, written: 0, unacknowledged: Int.max)
    private var preamble = ByteBuffer()
    /// --trace: shown every frame read and written.
    var tracer: FrameTracer?
    /// --socketio: text messages are Engine.IO packets, and only those that
    /// carry a Socket.IO packet are signs of life (pings are the transport's).
    var framesEngineIO = false
    /// Called when all queued output has been written (stdin may resume).
    var onDrained: (() -> Void)?
    /// A Close asked for during a read is about to go out: the last chance to
    /// send what that read called for (--answer).
    var beforeDeferredClose: (() -> Void)?
    /// Above this much unwritten output the socket is not read (both roles),
    /// below the low water it is again. The sessions stop adding at their
    /// own high water (4 MiB), so only a message or a batch of lines goes
    /// past it: this bound is above that and never stops a peer that reads.
    /// (At 4 MiB it would: an echo server blocked writing to us stops
    /// reading, and our output would never drain.)
    private let outputHighWater: Int
    static let outputLowWater = 1 << 20

    /// One read buffer for every channel: the loop is single-threaded and event
    /// payloads point into it only for the duration of a callback.
    nonisolated(unsafe) private static let readBuffer =
        UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)

    /// `compression`: the permessage-deflate parameters the handshake agreed on.
    init(stream: ByteStream, role: Role, maxMessageSize: Int, compression: DeflateParameters? = nil,
         loop: EventLoop, handler: @escaping (Event) -> Void) {
        self.stream = stream
        self.loop = loop
        self.handler = handler
        self.connection = Connection(role: role, maxMessageSize: maxMessageSize, compression: compression)
        self.isTLS = stream is TLSStream
        self.recoversUnsent = role == .client
        self.outgoing = OutgoingFrames(keepsBytes: role == .client)
        let (bound, overflow) = maxMessageSize.addingReportingOverflow(8 << 20)
        self.outputHighWater = overflow ? Int.max : bound
    }

    /// Incoming text is validated as JSON by what reads it (the default
    /// output): that check, made once before delivery, stands in for the
    /// core's UTF-8 pass, and its answer comes with the message (`verdict`).
    func readsTextAsJSON() {
        connection.textCheck = { JSONScanner.quickCheck($0, $1) }
    }

    /// A client keeps a copy of every frame the kernel holds until the
    /// peer's TCP acknowledges it (`OutgoingFrames`), so the kernel's send
    /// buffer is also memory of ours. It grows to 4 MiB by itself, which a
    /// long path needs (in flight: bandwidth x round trip) but a short one
    /// does not: on loopback at 1.6 GB/s the copy reached 2.5-4 MiB, and
    /// with a 256 KiB buffer it stays near 0.5 MiB at the same speed. So
    /// below a 5 ms round trip (the handshake's, which is never shorter
    /// than the path's; 0.1-0.3 ms on loopback, a few ms on a busy machine),
    /// the buffer is fixed at 512 KiB as the kernel counts it (Linux's
    /// SO_SNDBUF of 256 KiB: at least 100 MB/s at 5 ms); longer paths keep
    /// the kernel's sizing.
    func fitSendBuffer(roundTripNanos: Int64) {
        guard recoversUnsent, roundTripNanos < 5_000_000 else { return }
        SocketQueue.setSendBuffer(stream.fd, counting: Self.shortPathSendBuffer)
    }

    static let shortPathSendBuffer = 512 << 10

    /// Bytes to send before any frame (the server's 101 response); the
    /// connection's output holds nothing but the frames it encoded.
    func sendFirst(_ bytes: [UInt8]) {
        preamble.append(contentsOf: bytes)
    }

    /// Start reading; `leftover` is what arrived right after the handshake.
    func start(leftover: [UInt8]) {
        guard !ended else { return }   // the peer went while the first frames were written
        if phases.handle(.start).contains(.watch) {
            loop.watch(stream.fd, .read) { [unowned self] readiness in self.ready(readiness) }
        }
        if !leftover.isEmpty {
            var copy = leftover
            copy.withUnsafeMutableBytes { feed($0) }
        }
        // What is there already is read now, not at poll's word: TLS may hold
        // a record read with the handshake's last one (a session ticket) that
        // poll does not announce, and until it is read no look sees the input
        // empty (`markInputEmpty`), so no sign of life confirms anything.
        readAvailable()
    }

    /// (Inside an event callback the connection is being mutated and must not
    /// be read: the answer is then the state from before the input.)
    var isOpen: Bool {
        if ended { return false }
        if case .inProgress(let wasOpen) = receiveState { return wasOpen }
        return connection.state == .open
    }
    /// Messages are compressed (permessage-deflate was agreed on).
    var compresses: Bool { connection.compression != nil }

    /// Bytes queued for the socket and not yet written.
    var outputBytes: Int { preamble.readableBytes + connection.output.readableBytes - outgoing.unwrittenOffset }
    /// What this connection holds for its peer: output not yet written and
    /// a message still arriving.
    var bufferedBytes: Int { outputBytes + connection.bufferedInputBytes }

    func sendPing(_ payload: [UInt8]) {
        guard isOpen else { return }
        payload.withUnsafeBytes { bytes in
            let sent = UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, 125)])   // as the core truncates it
            connection.sendPing(sent)
            outgoing.pinged(sent)
        }
        flush()
    }

    /// After the channel ended: every data message still kept, in order,
    /// with whether the peer's TCP acknowledged it (what did not reach it is
    /// sent again on the next connection: at least once, never lost).
    /// Returns the messages acknowledged and released earlier that were never confirmed.
    func takeUnsentMessages(_ body: (OutgoingMessage, OutgoingFrames.Unsent) -> Void) -> LineTally {
        guard ended, recoversUnsent else { return LineTally() }
        return outgoing.drain(from: &connection, unacknowledged: unacknowledgedAtEnd) { opcode, payload, unsent in
            body(opcode == .binary ? .binary(payload) : .text(payload), unsent)
        }
    }

    /// After the channel ended (server): what became of the messages sent
    /// to this client. `confirmedAll`: it answered our Close.
    func deliveryFates(confirmedAll: Bool) -> OutgoingFrames.Fates {
        outgoing.fates(unacknowledged: unacknowledgedAtEnd, confirmedAll: confirmedAll)
    }

    /// Memory the account of unacknowledged frames holds.
    var accountBytes: Int { outgoing.recordBytes }

    /// After the channel ended, when the peer is known to have read every
    /// message (it answered our Close): the kept frames are let go.
    func discardUnsentMessages() {
        guard ended, recoversUnsent else { return }
        outgoing.discard(from: &connection)
    }

    /// What the originals of compressed messages kept for recovery hold
    /// (`OutgoingFrames`): counted against --queue-limit by the sender.
    var heldOriginalBytes: Int { outgoing.originalBytes }

    /// Asks the kernel what the peer's TCP acknowledged and lets those frames
    /// (and their originals) go, without waiting for the next write to ask.
    func releaseAcknowledged() {
        guard recoversUnsent, !ended else { return }
        queryAcknowledged(now: monotonicNanos())
    }

    /// After the channel ended: some frame it kept was never acknowledged by
    /// the peer's TCP (it would be sent again if a connection follows).
    var holdsUnacknowledgedFrames: Bool { ended && recoversUnsent && outgoing.holdsUnacknowledged(unacknowledgedAtEnd) }

    /// `tag` (a stdin line, `MessageTag`) is what the account counts it by,
    /// and comes back with the message if it has to be sent again.
    func send(_ message: OutgoingMessage, tag: Int = MessageTag.uncounted) {
        guard isOpen else { return }
        switch message {
        case .text(let bytes): connection.sendText(bytes)
        case .binary(let bytes): connection.sendBinary(bytes)
        }
        // A compressed frame cannot be turned back into its message (with
        // context takeover it depends on the ones before it): a client keeps
        // its original beside it, for the next connection to compress again.
        guard recoversUnsent && connection.compression != nil else {
            return outgoing.recorded(tag: tag, outputEnd: connection.output.readableBytes)
        }
        switch message {
        case .text(let bytes), .binary(let bytes):
            outgoing.recorded(tag: tag, outputEnd: connection.output.readableBytes, original: Array(bytes))
        }
    }

    /// Start the closing handshake. Safe to call from inside an event callback:
    /// the close is then applied once the current input has been processed.
    func close(code: CloseCode, reason: String = "") {
        if case .inProgress = receiveState { deferredClose = (code, reason); return }
        guard !ended else { return }
        sendClose(code: code, reason: reason)
        flush()
    }

    private func sendClose(code: CloseCode, reason: String) {
        connection.sendClose(code: code, reason: reason)
    }

    /// The peer answered our Close: it read every frame before it. (Who
    /// closed first is the core's fact, in its state.)
    var peerAnsweredClose: Bool { connection.state == .closed(by: .local) }
    /// The peer sent its Close first (it chose to stop reading).
    var peerClosedFirst: Bool { connection.state == .closed(by: .remote) }

    /// Back-pressure from the consumer: stop or resume reading the socket.
    func setReadPaused(_ paused: Bool) {
        guard paused != phases.pauses.contains(.consumer) else { return }
        _ = phases.handle(paused ? .pause(.consumer) : .resume(.consumer))
        updateInterest()
        if !paused { readAvailable() }
    }

    /// Drop the transport now (timeouts, shutdown). Reports `.ended(.closed)`.
    func terminate() {
        finish(.closed)
    }

    private func ready(_ readiness: EventLoop.Readiness) {
        // A peer going away (a reset, a hang-up): what it sent before is read
        // first, a message or a pong confirming what it had (a write would
        // fail and end the channel with them unread).
        let going = readiness.contains(.hangup) || readiness.contains(.error)
        if going { peerGone = true }
        if readiness.contains(.writable) && !going { flush() }
        if readiness.contains(.readable) || going {
            if !readingStopped || readiness.contains(.error) { readAvailable() }
        }
        if readiness.contains(.writable) && going { flush() }
    }

    /// Reads in one turn of the loop, at most (2 MiB): a peer sending faster
    /// than wspipe reads kept the loop here, and nothing else was served (a
    /// server under a ping flood answered no other client's upgrade).
    private static let readsPerTurn = 8
    /// TLS's next reads after a turn that used them all (poll cannot see
    /// what it holds decrypted).
    private var nextTurn: EventLoop.TimerID?

    private func readAvailable() {
        var reads = 0
        while !ended && !readingStopped {
            if reads == Self.readsPerTurn { return yieldTurn() }
            reads += 1
            var asked = Self.readBuffer.count
            let result: IOResult
            if let inPlace = readIntoMessage(&asked) {
                result = inPlace
            } else {
                result = stream.read(into: Self.readBuffer)
                if case .bytes(let n) = result {
                    tracer?.read(UnsafeRawBufferPointer(rebasing: Self.readBuffer[0..<n]))
                    feed(UnsafeMutableRawBufferPointer(rebasing: Self.readBuffer[0..<n]))
                }
            }
            switch result {
            case .bytes(let n):
                bytesRead &+= n
                if outputBytes > outputHighWater { return stopReadingForOutput() }
                // A short read drained the kernel buffer: poll will say when
                // more arrives, so skip the read that would only say EAGAIN.
                // (TLS may still hold decrypted bytes, so it reads on.)
                if n < asked && !isTLS { flush(); return }
            case .wouldBlock:
                updateInterest()
                flush()
                return
            case .eof:
                receiveEOF()
                return
            case .error(let error):
                finish(.lost("\(error)"))
                return
            }
        }
        flush()
    }

    /// Lets the loop serve the others: poll reports the socket again next
    /// turn; TLS is read again by a timer, once.
    private func yieldTurn() {
        flush()
        guard isTLS, nextTurn == nil, !ended else { return }
        nextTurn = loop.schedule(afterNanos: 0) { [weak self] in
            self?.nextTurn = nil
            self?.readAvailable()
        }
    }

    private func feed(_ bytes: UnsafeMutableRawBufferPointer) {
        receiving { connection, deliver in connection.receive(bytes, deliver) }
    }

    /// A client in the middle of a large message reads the rest of its frame
    /// straight into the message (`Connection.receiveInPlace`), saving a
    /// copy; nil when it is not in one (or frames are traced: the tracer
    /// shows what each read brought). `asked`: how many bytes were asked for.
    private func readIntoMessage(_ asked: inout Int) -> IOResult? {
        guard connection.role == .client, tracer == nil, connection.acceptsPayloadInPlace else { return nil }
        var result = IOResult.wouldBlock
        receiving { connection, deliver in
            _ = connection.receiveInPlace(limit: Self.readBuffer.count, { region in
                asked = region.count
                result = stream.read(into: region)
                if case .bytes(let n) = result { return n }
                return 0
            }, deliver)
        }
        return result
    }

    /// Runs `receive` on the connection with the handler every event goes
    /// through, then what follows a receive: a deferred close, `.processed`,
    /// a flush.
    private func receiving(_ receive: (inout Connection, (ConnectionEvent) -> Void) -> Void) {
        receiveState = .inProgress(wasOpen: connection.state == .open)
        // What a sign of life in this read confirms: fixed before the read,
        // whatever the handler's writes learn meanwhile.
        let confirmable = outgoing.confirmableRecords
        // What the client keeps after writing it is not waiting to be written
        // (a Ping is answered at once unless too much is).
        connection.writtenPrefix = outgoing.unwrittenOffset
        // Loaded once per read, not once per message (with a reference count each).
        let handler = self.handler
        receive(&connection) { event in
            // A message or a pong says the peer is there and reading; its
            // Close (a refusal above all) does not. A pong to our ping says
            // exactly what it read.
            switch event {
            case .text(let payload, _):
                if !framesEngineIO || EngineIOPacket.isMessage(payload) { outgoing.noteSignOfLife() }
            case .binary: outgoing.noteSignOfLife()
            case .pong(let payload): _ = outgoing.pongReceived(payload)
            default: break
            }
            handler(.message(event))
        }
        if outgoing.spoke { confirmSignOfLife(upTo: confirmable) }
        receiveState = .idle(wasOpen: receiveState.wasOpen)
        applyDeferredClose()
        if !ended { handler(.processed) }
        flush()
    }

    /// The read brought a sign of life: it confirms what the peer's TCP had
    /// acknowledged when the channel last saw every input read before this
    /// read (`OutgoingFrames`: asking the kernel now would count what it
    /// acknowledged while the sign of life waited to be read).
    private func confirmSignOfLife(upTo confirmable: Int) {
        // Read after the peer went (a reset, a hang-up): it was sent before,
        // but its TCP went on acknowledging until the end, and what it had
        // not read is lost with it. It confirms nothing new.
        guard !peerGone else { return outgoing.ignoreSignOfLife() }
        outgoing.confirmSignOfLife(upTo: confirmable)
    }

    /// `release`: the frames acknowledged are let go (`OutgoingFrames.acknowledged`).
    private func queryAcknowledged(now: Int64, release: Bool = true) {
        guard let unacknowledged = SocketQueue.unacknowledgedBytes(stream.fd) else { return }
        queriedAtNanos = now
        readAtQuery = bytesRead
        outgoing.acknowledged(unacknowledged: unacknowledged, in: &connection, release: release)
    }

    /// The channel stops writing and reading (or wrote another `checkStep`):
    /// it asks the kernel what the peer's TCP acknowledged if that may have
    /// moved (unless `queried` just now), then, if every input has been read
    /// (none in the kernel, in TLS, or as part of a frame), lets a later sign
    /// of life confirm that much (`OutgoingFrames.sawInputEmpty`). At most
    /// two system calls, and none while nothing is in flight: a
    /// request/response exchange confirms its request at its answer or the
    /// next one.
    private func lookAtInput(queried: Bool) {
        if !queried && outgoing.hasUnacknowledged {
            let now = monotonicNanos()
            if bytesRead != readAtQuery || now - queriedAtNanos >= Self.queryInterval {
                queryAcknowledged(now: now, release: false)
            }
        }
        markInputEmpty()
    }

    private func markInputEmpty() {
        // Mid-read, the buffer being handled may hold the start of a frame
        // that arrived before the look; before `start`, what came with the
        // handshake's response (a greeting) waits to be read.
        guard outgoing.hasNewConfirmable, phases.read != .notStarted, case .idle = receiveState,
              connection.isBetweenMessages else { return }
        guard !stream.holdsUnreadInput else { return readSoon() }
        outgoing.sawInputEmpty()
    }

    /// Input waits while the channel has what to confirm: it is read at the
    /// next turn of the loop rather than at poll's next word, which does not
    /// come for what TLS already holds (a session ticket read with the
    /// handshake's last record), and may come only after a long write.
    private func readSoon() {
        guard !readScheduled, !readingStopped else { return }
        readScheduled = true
        loop.schedule(afterNanos: 0) { [weak self] in
            guard let self else { return }
            self.readScheduled = false
            self.readAvailable()
        }
    }

    private var readScheduled = false

    /// A sign of life confirms only what was acknowledged at the last look
    /// before it arrived: without a look while the channel sleeps in poll
    /// (everything written, the peer reading at its pace), a message would
    /// confirm nothing acknowledged since the last time it woke.
    private func armLookTimer() {
        guard lookTimer == nil, !ended, outgoing.hasUnacknowledged else { return }
        lookTimer = loop.schedule(afterNanos: lookInterval) { [weak self] in self?.lookTimerFired() }
    }

    private func lookTimerFired() {
        lookTimer = nil
        guard !ended else { return }
        let before = outgoing.acknowledgedAtQuery
        queryAcknowledged(now: monotonicNanos(), release: false)
        markInputEmpty()
        let moved = outgoing.acknowledgedAtQuery > before
        lookInterval = moved ? Self.fastLook : min(lookInterval * 2, Self.slowLook)
        armLookTimer()
    }

    /// Did the peer take anything (read it: bytes acknowledged or written to
    /// it) or send anything since the last look? The closing phase's timeout
    /// runs from the last progress, so a slow peer that drains is never cut off.
    func takeProgress() -> Bool {
        let unacknowledged = ended ? lastLook.unacknowledged : (SocketQueue.unacknowledgedBytes(stream.fd) ?? 0)
        let moved = bytesRead != lastLook.read || outgoing.written != lastLook.written
            || unacknowledged < lastLook.unacknowledged
        lastLook = (bytesRead, outgoing.written, unacknowledged)
        return moved
    }

    private func receiveEOF() {
        receiveState = .inProgress(wasOpen: receiveState.wasOpen)
        connection.receiveEOF { event in handler(.message(event)) }
        receiveState = .idle(wasOpen: receiveState.wasOpen)
        if connection.isClosingHandshakeComplete { finish(.closed) } else { finish(.lost("connection closed by peer")) }
    }

    private func applyDeferredClose() {
        guard let (code, reason) = deferredClose else { return }
        deferredClose = nil
        beforeDeferredClose?()
        sendClose(code: code, reason: reason)
    }

    /// RFC 6455 §7.1.1: the server closes TCP first; a client only closes
    /// after the handshake if the server does not. Our output is flushed first.
    private func closeAfterHandshake() {
        guard !ended, outputBytes == 0 else { return }
        finish(.closed)
    }

    func flush() {
        guard phases.write != .failed else { return }
        // Only a flush that empties a non-empty output reports `onDrained`,
        // so a drain handler that flushes again cannot recurse.
        let hadOutput = outputBytes > 0
        defer {
            if !ended {
                lookAtInput(queried: false)
                armLookTimer()
            }
        }
        while !ended {
            if outputBytes == 0 {
                // Everything is written: a Pong held back for the latest Ping
                // (RFC 6455 §5.5.3) may go now.
                guard connection.hasPendingPong else { break }
                connection.outputWritten()
            }
            let result = preamble.isEmpty ? writeFrames() : writePreamble()
            switch result {
            case .bytes:
                continue
            case .wouldBlock:
                updateInterest()
                return
            case .eof, .error:
                var text = "connection closed by peer"
                if case .error(let error) = result { text = "\(error)" }
                readWhatIsLeft()
                finish(.lost(text))
                return
            }
        }
        updateInterest()
        if !ended && connection.isClosingHandshakeComplete { closeAfterHandshake() }
        if hadOutput && !ended && outputBytes == 0 { onDrained?() }
        if phases.pauses.contains(.output) && outputBytes <= Self.outputLowWater { resumeReadingAfterOutput() }
    }

    /// Reading stops while the peer does not take what is queued for it:
    /// whatever fills the output (answers to its Pings, its own messages
    /// echoed by a program, a relay), it cannot grow without bound because
    /// of what the peer keeps sending. Writing goes on; reading resumes as
    /// soon as the output is below the low water.
    private func stopReadingForOutput() {
        _ = phases.handle(.pause(.output))
        updateInterest()
    }

    private func resumeReadingAfterOutput() {
        _ = phases.handle(.resume(.output))
        updateInterest()
        // TLS may hold decrypted bytes that poll will not announce.
        loop.schedule(afterNanos: 0) { [weak self] in self?.readAvailable() }
    }

    private func writePreamble() -> IOResult {
        let result = preamble.withReadableBytes { stream.write($0) }
        if case .bytes(let n) = result { preamble.consume(n) }
        return result
    }

    private func writeFrames() -> IOResult {
        let skip = outgoing.unwrittenOffset
        let result = connection.withOutput { all -> IOResult in
            let pending = UnsafeRawBufferPointer(rebasing: all[skip...])
            let result = stream.write(pending)
            if let tracer, case .bytes(let n) = result { tracer.wrote(UnsafeRawBufferPointer(rebasing: pending[..<n])) }
            return result
        }
        if case .bytes(let n) = result {
            if !recoversUnsent { connection.consumeOutput(n) }
            if outgoing.didWrite(n) {
                queryAcknowledged(now: monotonicNanos())
                lookAtInput(queried: true)
            }
        }
        return result
    }

    /// The peer is gone (a failed write, a hang-up or error from poll): what
    /// is read now confirms nothing new (`confirmSignOfLife`).
    private var peerGone = false

    /// A write failed (the peer is gone): the kernel still holds what the
    /// peer sent before it went, which is read and handled (its messages are
    /// output, a sign of life or a pong confirms what it had) before the
    /// channel ends. A TLS session refuses to read after a failed write:
    /// there `ready` reads first when the peer goes away, which covers a
    /// reset that arrives while wspipe waits in poll.
    /// (Its own buffer: the shared one may hold a message another channel is
    /// handing out while this write failed, a --relay copy.)
    private func readWhatIsLeft() {
        _ = phases.handle(.writeFailed)
        peerGone = true
        if case .inProgress = receiveState { return }
        guard !isTLS else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { buffer.deallocate() }
        while !ended {
            guard case .bytes(let n) = stream.read(into: buffer), n > 0 else { return }
            bytesRead &+= n
            tracer?.read(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            feed(UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n]))
        }
    }

    private var interest: EventLoop.Interest = .read

    private func updateInterest() {
        guard phases.watched else { return }
        var wanted: EventLoop.Interest = []
        if !readingStopped { wanted.insert(.read) }
        if outputBytes > 0 { wanted.insert(.write) }
        // TLS may need the other direction to finish a pending write; plain
        // TCP's `wants` only echoes the last call and would make poll spin.
        if isTLS && outputBytes > 0 { wanted.formUnion(stream.wants) }
        guard wanted != interest else { return }
        interest = wanted
        loop.setInterest(stream.fd, wanted)
    }

    private func finish(_ reason: EndReason) {
        guard !ended else { return }
        if phases.handle(.end).contains(.unwatch) { loop.unwatch(stream.fd) }
        if let lookTimer { loop.cancel(lookTimer) }
        lookTimer = nil
        if let nextTurn { loop.cancel(nextTurn) }
        nextTurn = nil
        // Asked before the close: the kernel still knows what the peer never acknowledged.
        unacknowledgedAtEnd = SocketQueue.unacknowledgedBytes(stream.fd)
        stream.close()
        handler(.ended(reason))
    }
}
