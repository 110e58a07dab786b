import WSCore
import WSTransport
import WSCodecs
import WSMessages

/// The client's outgoing path (wspipe(1): RECONNECT AND REPLAY): a message
/// goes straight into the open connection when nothing waits before it and
/// the socket keeps up, else into the queue, which the next connection
/// empties after its resume. stdin pauses while the queue and the messages
/// held for their --ack reach --queue-limit, or the socket is behind
/// (back-pressure), so nothing is dropped and memory stays bounded: every
/// line is sent, or counted as not sent at the end.
final class ClientSender {
    /// Above this much unwritten socket output, messages wait in the queue.
    static let socketHighWater = 256 << 10

    private let shell: SessionShell
    private let resume: ResumeCoordinator
    private let queueLimit: Int
    private var queue = OutboundQueue()
    /// The connection being written to, while there is one.
    var channel: WebSocketChannel? {
        didSet {
            if channel !== oldValue { carried = LineTally(); viewsOnConnection = 0 }
            heldChannel = channel?.unretainedForSender
        }
    }
    /// `channel`, for `deliver` without a retain and a release per message
    /// (UnretainedReferences.swift).
    private var heldChannel: Unretained<WebSocketChannel>?
    /// The counted messages sent on the current connection, confirmed or
    /// not: what a server that refuses the connection leaves in doubt.
    private(set) var carried = LineTally()
    /// Messages sent and received, for the reply linger (set by the session).
    var replies = ReplyTracker()
    /// A held message went out again (the interactive transcript shows it).
    var onResent: ((UnsafeRawBufferPointer) -> Void)?
    /// --record: every message sent, new or again, with what made it
    /// (`recording` is the one check a message pays without --record).
    var onSent: ((OutgoingMessage, MessageSource) -> Void)?
    private let recording: Bool
    /// What makes the messages `transmit` sends now (the replay sets --on-connect's).
    var source = MessageSource.input
    /// The tag of a message that belongs to its connection (an --answer, a
    /// --heartbeat): not sent again on the next one after a drop, nor
    /// counted (`MessageTag.uncounted`).
    static let connectionOnlyTag = MessageTag.uncounted

    init(shell: SessionShell, resume: ResumeCoordinator, queueLimit: Int) {
        self.shell = shell
        self.resume = resume
        self.queueLimit = queueLimit
        recording = shell.bridge.script.recordPath != nil
    }

    /// The queue and the held messages are at --queue-limit: an input that is
    /// not stdin (the --replay) waits too.
    var isFull: Bool { queue.byteCount + resume.heldBytes >= queueLimit }

    /// Nothing waits to go out: no queued line, no held message still to be re-sent.
    var queueEmpty: Bool { queue.isEmpty && !resume.isResending }
    /// The queue at the end: never written, and written to a connection that dropped.
    func queueTallies() -> (notSent: LineTally, unconfirmed: LineTally) { queue.tallies() }

    /// A message from stdin `line`: straight out when the way is clear, else
    /// queued. A socket that is behind does not make the way unclear: stdin
    /// pauses after the read in hand (`updateFlow`), and the messages of that
    /// read go into the connection's output, where they would be copied from
    /// the queue anyway (a 1 MiB line was copied twice).
    func deliver(_ message: OutgoingMessage, line: Int) {
        if let heldChannel, queueEmpty, heldChannel.use({ $0.isOpen }) {
            heldChannel.use { transmit(message, line: line, on: $0) }
        } else {
            queue.append(message, line: line)
        }
    }

    /// Sends a new message; a text message may be held for its --ack. `line`
    /// is its tag (`MessageTag`): the stdin line said if the server refuses
    /// it or it ends unconfirmed. A held message is not counted as
    /// unconfirmed: it is sent again until acknowledged.
    func transmit(_ message: OutgoingMessage, line: Int, on channel: WebSocketChannel) {
        var packets: SocketIOOutgoing.Packets?
        if let socketIO {
            guard let made = socketIO.prepare(message, tag: line, what: self.what(line)) else { return }
            packets = made
        }
        var tag = line
        var json: UnsafeRawBufferPointer?
        switch message {
        case .text(let bytes):
            if resume.sent(text: bytes) { tag = MessageTag.uncounted }
            shell.sent(bytes: bytes.count)
        case .binary(let bytes):
            json = codecView(of: bytes)
            if let json, resume.sent(text: json) { tag = MessageTag.uncounted }
            shell.sent(bytes: bytes.count)
        }
        if let packets { packets.send(message, tag: tag, on: channel) } else { channel.send(message, tag: tag) }
        carried.add(tag: tag)
        let record = channel.queuedRecords - 1
        if let view = packets?.replyView {
            view.withUnsafeBytes { replies.sent(.text($0), now: shell.loop.nowNanos, record: record) }
        } else {
            replies.sent(json.map { .text($0) } ?? message, now: shell.loop.nowNanos, record: record)
        }
        if recording { onSent?(message, source) }
    }

    /// --socketio: lines become packets as they are written (nil: off).
    var socketIO: SocketIOOutgoing?
    /// How a report names a message with this tag.
    private func what(_ tag: Int) -> String {
        let line = MessageTag.line(of: tag)
        if line > 0 { return "stdin:\(line): line" }
        return source == .input ? "a line" : "\(source.flagName) message"
    }

    /// A message of the connection's own (an --answer, a --heartbeat): as
    /// it is, or as its packets. False: no Socket.IO line (reported).
    func sendUncounted(_ message: OutgoingMessage, source: MessageSource, on channel: WebSocketChannel) -> Bool {
        guard let socketIO else {
            channel.send(message, tag: Self.connectionOnlyTag)
            return true
        }
        guard let packets = socketIO.prepare(message, tag: Self.connectionOnlyTag, what: "\(source.flagName) message") else {
            return false
        }
        packets.send(message, tag: Self.connectionOnlyTag, on: channel)
        return true
    }

    /// Sends a message held for its --ack again (it stays held). With
    /// --codec the ledger holds the JSON of a binary message: encoded again.
    func resend(_ text: UnsafeRawBufferPointer, on channel: WebSocketChannel) {
        if let resendEncoder, let message = try? resendEncoder.encode(text) {
            channel.send(.binary(message))
            shell.sent(bytes: message.count)
        } else {
            guard sendUncounted(.text(text), source: .input, on: channel) else { return }
            shell.sent(bytes: text.count)
        }
        if recording { onSent?(.text(text), .input) }
        replies.sent(.text(text), now: shell.loop.nowNanos, record: channel.queuedRecords - 1)
    }

    // MARK: --codec

    /// Re-encodes the messages held for an --ack (the ledger keeps their JSON).
    private lazy var resendEncoder = shell.codec.map { Transcoder($0.format, maxJSONBytes: Int.max / 2) }
    /// The messages of this connection whose JSON was read for the reply rule.
    private var viewsOnConnection = 0

    /// With --codec, the JSON of a binary message sent, for --ack and the
    /// reply rule (`ReplyTracker`, which looks at the first messages of a
    /// connection, or all of them with --reply): nil when neither looks.
    private func codecView(of bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        guard let codec = shell.codec else { return nil }
        guard resume.tracksAcks || replies.isExplicit || viewsOnConnection < ReplyTracker.trackedIDs else { return nil }
        viewsOnConnection += 1
        return codec.view(of: bytes)
    }

    /// The JSON an --ack reads of a message the connection gave back: the
    /// text, or with --codec the JSON of a binary message.
    private func ackView<R>(_ message: OutboundQueue.Message, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        message.bytes.withUnsafeBytes { bytes in
            guard message.isBinary else { return body(bytes) }
            guard resume.tracksAcks, let codec = shell.codec, let json = codec.view(of: bytes) else { return nil }
            return body(json)
        }
    }

    /// Moves held messages still to be re-sent, then queued ones, into the
    /// open connection while its output is short.
    ///
    /// Compressed, the output stays short while a turn of the loop deflates
    /// megabytes (~8 MB/s here), and nothing the server sends is read
    /// meanwhile: a sign of life read that late confirms only what was
    /// acknowledged before the turn began (`DeliveryAccount`), so a turn
    /// takes at most `compressedTurn` bytes of messages; the rest goes
    /// after a turn of the loop (`onDrained`).
    func pump() {
        guard let channel, channel.isOpen else { return }
        resume.resendHeld(while: { channel.outputBytes < Self.socketHighWater }) { text in
            resend(text, on: channel)
            onResent?(text)
        }
        var budget = channel.compresses ? Self.compressedTurn : Int.max
        // Each message framed from where the queue holds it (no copy of its own).
        while !resume.isResending, channel.outputBytes < Self.socketHighWater, budget > 0,
              let size = queue.popFirst({ message, line -> Int in
                  transmit(message, line: line, on: channel)
                  switch message { case .text(let b), .binary(let b): return b.count }
              }) {
            budget -= size
        }
        channel.flush()
    }

    static let compressedTurn = 64 << 10

    /// Back-pressure: stdin waits while the queue and the held messages are
    /// at the limit (wspipe(1): RECONNECT AND REPLAY) or the socket is not
    /// keeping up. While a connection is open, queued and re-sent messages go
    /// out before stdin is read again: a line read then would only be copied
    /// into the queue behind them (the queue would grow by a read's worth
    /// each time the socket drained).
    ///
    /// The originals of compressed messages the connection keeps until the
    /// peer's TCP acknowledges them count too: their frames are small, so the
    /// socket's high water let hundreds of megabytes of them pile up (207 MB
    /// with 10 MB lines). While they hold stdin up, the kernel is asked now
    /// and then what was acknowledged (nothing else asks once all is written).
    func updateFlow(of stdin: StdinPump?) {
        guard let stdin, !stdin.finished else { return }
        let socketBusy = (channel?.outputBytes ?? 0) >= Self.socketHighWater
        let draining = channel?.isOpen == true && !queueEmpty
        let originals = channel?.heldOriginalBytes ?? 0
        let full = queue.byteCount + resume.heldBytes + originals >= queueLimit
        if full || socketBusy || draining { stdin.pause() } else { stdin.resume() }
        if full && originals > 0 { awaitAcknowledgements(stdin) } else { ackPollNanos = Self.firstAckPollNanos }
    }

    /// How soon to ask the kernel again, growing while nothing is released.
    private var ackPollNanos = firstAckPollNanos
    private var ackPoll: EventLoop.TimerID?
    private static let firstAckPollNanos: Int64 = 2_000_000
    private static let lastAckPollNanos: Int64 = 100_000_000

    private func awaitAcknowledgements(_ stdin: StdinPump) {
        guard ackPoll == nil else { return }
        ackPoll = shell.loop.schedule(afterNanos: ackPollNanos) { [weak self, weak stdin] in
            guard let self else { return }
            self.ackPoll = nil
            self.ackPollNanos = min(self.ackPollNanos * 2, Self.lastAckPollNanos)
            self.channel?.releaseAcknowledged()
            self.updateFlow(of: stdin)
        }
    }

    /// What became of the messages a connection still held when it ended.
    struct Recovery {
        /// Queued again: the peer's TCP never acknowledged them (or the server
        /// refused a message before them).
        var requeued = 0
        /// Taken by the server's TCP before it last spoke; its application
        /// may not have read them. Not sent again.
        var unread = LineTally()
        /// Written, not sent again, and not confirmed: acknowledged by the
        /// peer's TCP after its last sign of life, or (on the last
        /// connection) written and never acknowledged. They may be lost.
        var unconfirmed = LineTally()
        /// Of those, the ones the peer's TCP never acknowledged (exit status 6).
        var unacknowledged = LineTally()
        /// The message a 1009/1003 refused; not sent again.
        var refused: OutboundQueue.Message?
        /// The counted ones of the `requeued`, which are the last the
        /// connection carried (its peer acknowledges in order).
        var requeuedLines = LineTally()
    }

    /// After a connection ended: `Redelivery` decides, from what its channel
    /// still holds and how it ended, what goes back to the front of the
    /// queue (in order; those held for an ack are sent again by the resume
    /// instead), which message a refusal (`refusedWith` 1009 or 1003) set
    /// aside, and what is in doubt. Messages count as sent only once they
    /// are. `isLast` says whether a connection follows, asked with whether
    /// frames are left to send.
    func recoverUnsent(from channel: WebSocketChannel, refusedWith code: CloseCode?, confirmed: Bool,
                       reachedPeer: Bool = false, isLast: (_ leavesFrames: Bool) -> Bool) -> Recovery {
        // The server answered wspipe's Close, so it read every frame before:
        // nothing goes again, nothing was refused or is in doubt. (At the
        // end of an upload the kernel may still hold thousands of frames;
        // reading each back only to drop it cost as much as sending it.)
        if confirmed && code == nil {
            channel.discardUnsentMessages()
            return Recovery()
        }
        var messages: [OutboundQueue.Message] = []
        var frames: [Redelivery.Frame] = []
        let released = channel.takeUnsentMessages { message, fate in
            let copy = OutboundQueue.copy(message, line: fate.tag)
            let held = ackView(copy) { resume.isHeld($0) } ?? false
            messages.append(copy)
            frames.append(Redelivery.Frame(fate: fate, size: copy.bytes.count, isBinary: copy.isBinary, held: held))
        }
        let ending = Redelivery.Ending(refusal: code, confirmedAll: confirmed, reachedPeer: reachedPeer,
                                       lastIfNothingLeft: isLast(false), lastIfFramesLeft: isLast(true))
        let decision = Redelivery.decide(frames, released: released, ending)
        var recovery = Recovery(unread: decision.unread, unconfirmed: decision.unconfirmed,
                                unacknowledged: decision.unacknowledged)
        if let refused = decision.refused {
            recovery.refused = messages[refused]
            if frames[refused].held { _ = ackView(messages[refused]) { resume.release($0) } }
        }
        let again = decision.again.map { index -> OutboundQueue.Message in
            var message = messages[index]
            if frames[index].fate.written { message.line |= MessageTag.writtenBefore }
            return message
        }
        recovery.requeued = again.count
        for message in again { recovery.requeuedLines.add(tag: message.line) }
        if !again.isEmpty { shell.log.debug("\(again.count) message(s) did not reach the server; queued again") }
        // Counted as sent when they go out again; the written ones went out once.
        shell.stats.messagesOut -= again.count + (recovery.refused == nil ? 0 : 1)
        shell.stats.bytesOut -= again.reduce(0) { $0 + $1.bytes.count } + (recovery.refused?.bytes.count ?? 0)
        queue.prepend(again)
        return recovery
    }
}
