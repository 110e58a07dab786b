import WSCore
import WSTransport
import WSJSON
import WSSocketIO
import WSMessages

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
    /// Every data frame's account (both roles: Delivery/), and the client's
    /// copies of the frames the kernel holds.
    private let delivery: DeliveryMonitor
    private var kept = KeptFrames()
    /// What the last look at the progress saw (`takeProgress`).
    private var lastLook = ProgressMark(read: 0, written: 0, unacknowledged: Int.max)
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
    /// `leftover`: what arrived right after the handshake, read at `start`.
    /// `tunneled`: through a proxy, whose TCP acknowledges for the server:
    /// the kernel's stamps would say nothing of it (the bound is used).
    init(stream: ByteStream, role: Role, maxMessageSize: Int, compression: DeflateParameters? = nil,
         leftover: [UInt8] = [], tunneled: Bool = false, loop: EventLoop, handler: @escaping (Event) -> Void) {
        self.stream = stream
        self.leftover = leftover
        self.loop = loop
        self.handler = handler
        self.connection = Connection(role: role, maxMessageSize: maxMessageSize, compression: compression)
        self.isTLS = stream is TLSStream
        self.recoversUnsent = role == .client
        self.delivery = DeliveryMonitor(kernel: stream, scheduler: loop)
        let (bound, overflow) = maxMessageSize.addingReportingOverflow(8 << 20)
        self.outputHighWater = overflow ? Int.max : bound
        delivery.start(stamps: !tunneled)
        delivery.canLookAtInput = { [unowned self] in self.inputMayBeLookedAt }
        delivery.readSoon = { [unowned self] in self.readSoon() }
        if recoversUnsent { delivery.release = { [unowned self] in self.kept.apply($0, in: &self.connection) } }
    }

    /// Incoming text is validated as JSON by what reads it (the default
    /// output): that check, made once before delivery, stands in for the
    /// core's UTF-8 pass, and its answer comes with the message (`verdict`).
    func readsTextAsJSON() {
        connection.textCheck = { JSONScanner.quickCheck($0, $1) }
    }

    /// A client keeps a copy of every frame the kernel holds until the
    /// peer's TCP acknowledges it (`KeptFrames`), so the kernel's send
    /// buffer is also memory of ours. It grows to 4 MiB by itself, which a
    /// long path needs (in flight: bandwidth x round trip) but a short one
    /// does not: on loopback at 1.6 GB/s the copy reached 2.5-4 MiB, and
    /// with a 256 KiB buffer it stays near 0.5 MiB at the same speed. So
    /// below a 5 ms round trip, the buffer is fixed at 512 KiB as the kernel
    /// counts it (Linux's SO_SNDBUF of 256 KiB: at least 100 MB/s at 5 ms);
    /// longer paths keep the kernel's sizing. The round trip is the shorter
    /// of the handshake's (never shorter than the path's, but a busy server
    /// lengthens it: several ms on a loaded machine, even on loopback) and
    /// the kernel's own measure (TCP_INFO, 0.01-0.1 ms on loopback).
    func fitSendBuffer(roundTripNanos: Int64) {
        let path = min(roundTripNanos, stream.roundTripNanos() ?? .max)
        guard recoversUnsent, path < 5_000_000 else { return }
        SocketQueue.setSendBuffer(stream.fd, counting: Self.shortPathSendBuffer)
    }

    static let shortPathSendBuffer = 512 << 10

    /// Bytes to send before any frame (the server's 101 response); the
    /// connection's output holds nothing but the frames it encoded.
    func sendFirst(_ bytes: [UInt8]) {
        preamble.append(contentsOf: bytes)
    }

    /// What arrived right after the handshake, until `start` reads it.
    private var leftover: [UInt8]

    /// Start reading; `leftover` is what arrived right after the handshake
    /// (when not given at `init`).
    func start(leftover more: [UInt8] = []) {
        guard !ended else { return }   // the peer went while the first frames were written
        if phases.handle(.start).contains(.watch) {
            loop.watch(stream.fd, .read) { [unowned self] readiness in self.ready(readiness) }
        }
        leftover += more
        if !leftover.isEmpty {
            // Traced as any read (the frames of a server that pings at once
            // come with its 101), so the tracer starts at a frame's start.
            // It came before any look or stamp: it confirms nothing.
            var copy = leftover
            leftover = []
            delivery.arrivedUnstamped()
            copy.withUnsafeMutableBytes {
                tracer?.read(UnsafeRawBufferPointer($0))
                feed($0)
            }
        }
        // What is there already is read now, not at poll's word: TLS may hold
        // a record read with the handshake's last one (a session ticket) that
        // poll does not announce, and until it is read no look sees the input
        // empty (`DeliveryMonitor`), so no sign of life confirms anything.
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

    /// Bytes at the front of the output already written (the client keeps them).
    private var unwrittenOffset: Int { recoversUnsent ? delivery.account.written - kept.released : 0 }
    /// Frame-stream offset of the output's first byte.
    private var outputStart: Int { recoversUnsent ? kept.released : delivery.account.written }

    /// Bytes queued for the socket and not yet written.
    var outputBytes: Int { preamble.readableBytes + connection.output.readableBytes - unwrittenOffset }
    /// What this connection holds for its peer: output not yet written and
    /// a message still arriving.
    var bufferedBytes: Int { outputBytes + connection.bufferedInputBytes }

    /// A ping goes ahead of the frames not written yet (issue 33: its pong
    /// must not wait behind megabytes, or a slow but healthy peer is
    /// declared dead): at the first frame boundary after what was written.
    /// Its pong then confirms the frames before that boundary only.
    func sendPing(_ payload: [UInt8]) {
        guard isOpen else { return }
        payload.withUnsafeBytes { bytes in
            let sent = UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, 125)])   // as the core truncates it
            let end = outputStart + connection.output.readableBytes
            guard let at = pingBoundary, at < end else {
                connection.sendPing(sent)
                return delivery.update { $0.pinged(sent) }
            }
            let length = connection.insertPing(sent, at: at - outputStart)
            delivery.update {
                $0.inserted(length, at: at)
                $0.pinged(sent, before: $0.records(upTo: at))
            }
        }
        flush()
    }

    /// Where a frame can go ahead of those not written yet: the client keeps
    /// whole frames from the first not acknowledged, the server follows the
    /// end of the frame being written (`tracksFrames`); nil: not known.
    private var pingBoundary: Int? {
        // TLS holds a record of the last write that would block: those bytes go first.
        let after = delivery.account.written + stream.heldBytes
        if recoversUnsent { return kept.boundary(from: kept.released, after: after, in: connection) }
        return frameEnd.map { kept.boundary(from: $0, after: after, in: connection, outputStart: outputStart) }
    }

    /// The server: the end of the frame being written, followed from the
    /// first byte written (`pingsAhead`), for `sendPing`.
    private var frameEnd: Int?

    /// The server's pings go ahead of queued frames (its keepalive is on):
    /// the frame boundaries are followed from now on, when nothing is written yet.
    func pingsAhead() {
        if !recoversUnsent && delivery.account.written == 0 { frameEnd = 0 }
    }

    /// After the channel ended: every data message still kept, in order,
    /// with its fate (what did not reach the peer's TCP is sent again on the
    /// next connection: at least once, never lost). Returns the messages
    /// acknowledged and released earlier that were never confirmed.
    func takeUnsentMessages(_ body: (OutgoingMessage, DeliveryAccount.Fate) -> Void)
        -> (unread: LineTally, unconfirmed: LineTally) {
        guard ended, recoversUnsent else { return (LineTally(), LineTally()) }
        if let settled = delivery.update({ $0.releaseSettled() }) { kept.apply(settled, in: &connection) }
        let earlier = delivery.account.releasedFates()
        kept.drain(from: &connection, account: delivery.account) { opcode, payload, fate in
            body(opcode == .binary ? .binary(payload) : .text(payload), fate)
        }
        delivery.update { $0.discard() }
        return earlier
    }

    /// After the channel ended (server): what became of the messages sent
    /// to this client. `confirmedAll`: it answered our Close.
    func deliveryFates(confirmedAll: Bool) -> DeliveryAccount.Fates {
        delivery.account.fates(confirmedAll: confirmedAll)
    }

    /// The peer sent back record `number` as it was (`ReplyTracker`).
    func confirmEchoed(record number: Int) {
        delivery.update { $0.echoed(record: number) }
    }

    /// Data frames queued so far (the next one's record number).
    var queuedRecords: Int { delivery.account.queuedRecords }
    /// What the messages of the read just handled can answer (`ReplyTracker`).
    var readCredit: DeliveryAccount.ReadCredit? { delivery.account.readCredit }

    /// Memory the account of unacknowledged frames holds.
    var accountBytes: Int { delivery.account.recordBytes }

    /// After the channel ended, when the peer is known to have read every
    /// message (it answered our Close): the kept frames are let go.
    func discardUnsentMessages() {
        guard ended, recoversUnsent else { return }
        kept.discard(from: &connection)
        delivery.update { $0.discard() }
    }

    /// What the originals of compressed messages kept for recovery hold
    /// (`KeptFrames`): counted against --queue-limit by the sender.
    var heldOriginalBytes: Int { kept.originalBytes }

    /// Asks the kernel what the peer's TCP acknowledged and lets those frames
    /// (and their originals) go, without waiting for the next write to ask.
    func releaseAcknowledged() {
        guard recoversUnsent, !ended else { return }
        delivery.releaseAcknowledged()
    }


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
        if recoversUnsent && connection.compression != nil {
            switch message {
            case .text(let bytes), .binary(let bytes): kept.keep(original: Array(bytes), record: delivery.account.queuedRecords)
            }
        }
        let end = outputStart + connection.output.readableBytes
        delivery.update { $0.recorded(tag: tag, end: end) }
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
        // With the kernel's stamps, POLLERR mostly means acknowledgements wait
        // in the error queue; only an error with none is the socket's own.
        let failed = readiness.contains(.error) && !delivery.errorQueueReady()
        let going = readiness.contains(.hangup) || failed
        if going { peerGone = true }
        if readiness.contains(.writable) && !going { flush() }
        if readiness.contains(.readable) || going {
            if !readingStopped || failed { readAvailable() }
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
        readScheduled = false
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
                    arrived(n)
                    tracer?.read(UnsafeRawBufferPointer(rebasing: Self.readBuffer[0..<n]))
                    feed(UnsafeMutableRawBufferPointer(rebasing: Self.readBuffer[0..<n]))
                }
            }
            switch result {
            case .bytes(let n):
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

    /// A read brought `count` bytes: counted, and when they arrived noted.
    @inline(__always)
    private func arrived(_ count: Int) {
        delivery.bytesRead &+= count
        delivery.arrived()
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
        receiving { connection, deliver in
            // After the peer broke the protocol its bytes are not decoded,
            // but they are still its application's (its answer to our
            // Close, say): a sign of life, as the bytes that broke it.
            if connection.state == .failed && bytes.count > 0 { delivery.update { $0.brokeProtocol() } }
            connection.receive(bytes, deliver)
        }
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
                if case .bytes(let n) = result { arrived(n); return n }
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
        delivery.readBegins()
        // What the client keeps after writing it is not waiting to be written
        // (a Ping is answered at once unless too much is).
        connection.writtenPrefix = unwrittenOffset
        // Loaded once per read, not once per message (with a reference count each).
        let handler = self.handler
        let delivery = self.delivery
        receive(&connection) { event in
            // A message or a pong says the peer is there and reading; a pong
            // to our ping says exactly what it read (DeliveryAccount).
            switch event {
            case .text(let payload, _):
                // --socketio: Engine.IO's own packets (pings) are the transport's.
                if !framesEngineIO || EngineIOPacket.isMessage(payload) {
                    delivery.update { $0.signOfLife() }
                } else {
                    delivery.update { $0.otherEvent() }
                }
            case .binary: delivery.update { $0.signOfLife() }
            case .pong(let payload): _ = delivery.update { $0.pongReceived(payload) }
            case .closeReceived(let code, _):
                delivery.update { $0.closeReceived(normal: code.map { [.normal, .goingAway].contains($0) } ?? true) }
            case .failed(let code, _) where code != .abnormal:
                // Bytes that break the protocol were still written by the
                // peer's application (Autobahn 3.4, 4.1.5, 4.2.5): as much a
                // sign of life as a message; an EOF (1006) is none.
                delivery.update { $0.brokeProtocol() }
            default: delivery.update { $0.otherEvent() }
            }
            handler(.message(event))
        }
        delivery.readEnded(endsBetweenMessages: connection.isBetweenMessages, peerGone: peerGone)
        receiveState = .idle(wasOpen: receiveState.wasOpen)
        applyDeferredClose()
        if !ended { handler(.processed) }
        flush()
    }

    /// The input may be looked at (`DeliveryMonitor`): mid-read, the buffer
    /// being handled may hold the start of a frame that arrived before the
    /// look; before `start`, what came with the handshake's response (a
    /// greeting) may wait to be read, in `leftover`: without any, a look
    /// then counts (a server that answers at once is read at `start`).
    private var inputMayBeLookedAt: Bool {
        guard phases.read != .notStarted || leftover.isEmpty, case .idle = receiveState else { return false }
        return connection.isBetweenMessages
    }

    /// Input waits while the channel has what to confirm: it is read at the
    /// next turn of the loop rather than at poll's next word, which does not
    /// come for what TLS already holds (a session ticket read with the
    /// handshake's last record), and may come only after a long write.
    /// A read made meanwhile (poll said the input was there) answers it:
    /// the timer then reads nothing, so that the timers due with it (a
    /// Socket.IO namespace's script opened after the read that connected
    /// it) run before input that came later is read.
    private func readSoon() {
        guard !readScheduled, !readingStopped else { return }
        readScheduled = true
        loop.schedule(afterNanos: 0) { [weak self] in
            guard let self, self.readScheduled else { return }
            self.readScheduled = false
            self.readAvailable()
        }
    }

    private var readScheduled = false

    /// How far the peer has come: bytes read from it, written to it, and
    /// what its TCP has not acknowledged.
    struct ProgressMark: Equatable {
        var read: Int
        var written: Int
        var unacknowledged: Int

        /// The peer took (acknowledged) or sent something since `earlier`.
        func moved(since earlier: ProgressMark) -> Bool {
            read != earlier.read || took(since: earlier)
        }

        /// The peer's TCP took something since `earlier`: it acknowledged
        /// bytes, so more could be written.
        func took(since earlier: ProgressMark) -> Bool {
            written != earlier.written || unacknowledged < earlier.unacknowledged
        }
    }

    /// Where the peer is now (the kernel is asked; after the end, the last look).
    func progressMark() -> ProgressMark {
        let unacknowledged = ended ? lastLook.unacknowledged : (stream.unacknowledgedBytes() ?? 0)
        return ProgressMark(read: delivery.bytesRead, written: delivery.account.written, unacknowledged: unacknowledged)
    }

    /// Did the peer take anything (read it: bytes acknowledged or written to
    /// it) or send anything since the last look? The closing phase's timeout
    /// runs from the last progress, so a slow peer that drains is never cut off.
    func takeProgress() -> Bool {
        let mark = progressMark()
        defer { lastLook = mark }
        return mark.moved(since: lastLook)
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
        defer { if !ended { delivery.stopped() } }
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
        if case .bytes(let n) = result {
            preamble.consume(n)
            delivery.wrotePreamble()
        }
        return result
    }

    private func writeFrames() -> IOResult {
        let skip = unwrittenOffset
        let result = connection.withOutput { all -> IOResult in
            let pending = UnsafeRawBufferPointer(rebasing: all[skip...])
            let result = stream.write(pending)
            if let tracer, case .bytes(let n) = result { tracer.wrote(UnsafeRawBufferPointer(rebasing: pending[..<n])) }
            return result
        }
        if case .bytes(let n) = result {
            if let end = frameEnd { frameEnd = frameEnd(from: end, written: delivery.account.written + n) }
            if !recoversUnsent { connection.consumeOutput(n) }
            delivery.wrote(n)
        }
        return result
    }

    /// The server's output before `consumeOutput`: the frames that start
    /// before `written` (the frame-stream offset written after this write),
    /// from `end`, a frame boundary.
    private func frameEnd(from end: Int, written: Int) -> Int {
        let start = delivery.account.written   // the output's first byte
        return connection.withOutput { all in
            var end = end
            while end < written, end - start < all.count,
                  let length = KeptFrames.frameLength(at: UnsafeRawBufferPointer(rebasing: all[(end - start)...])) {
                end += length
            }
            return end
        }
    }

    /// The peer is gone (a failed write, a hang-up or error from poll): what
    /// is read now confirms nothing new (`DeliveryAccount.readEnded`).
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
            arrived(n)
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
        if let nextTurn { loop.cancel(nextTurn) }
        nextTurn = nil
        // Asked before the close: the kernel still knows what the peer never acknowledged.
        delivery.end()
        stream.close()
        handler(.ended(reason))
    }
}
