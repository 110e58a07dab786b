import WSCore
import WSTransport

/// The client's outgoing path (wspipe(1): RECONNECT AND REPLAY): a message
/// goes straight into the open connection when nothing waits before it and
/// the socket keeps up, else into the queue, which the next connection
/// empties after its replay. stdin pauses while the queue and the messages
/// held for their --ack reach --queue-limit, or the socket is behind
/// (back-pressure), so nothing is dropped and memory stays bounded: every
/// line is sent, or counted as not sent at the end.
final class ClientSender {
    /// Above this much unwritten socket output, messages wait in the queue.
    static let socketHighWater = 256 << 10

    private let shell: SessionShell
    private let replay: ReplayCoordinator
    private let queueLimit: Int
    private var queue = OutboundQueue()
    /// The connection being written to, while there is one.
    var channel: WebSocketChannel?
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
    /// --heartbeat): not sent again on the next one after a drop.
    static let connectionOnlyTag = -1

    init(shell: SessionShell, replay: ReplayCoordinator, queueLimit: Int) {
        self.shell = shell
        self.replay = replay
        self.queueLimit = queueLimit
        recording = shell.bridge.script.recordPath != nil
    }

    /// The queue and the held messages are at --queue-limit: an input that is
    /// not stdin (the --replay) waits too.
    var isFull: Bool { queue.byteCount + replay.heldBytes >= queueLimit }

    /// Nothing waits to go out: no queued line, no held message still to be re-sent.
    var queueEmpty: Bool { queue.isEmpty && !replay.isResending }
    var queuedCount: Int { queue.count }

    /// A message from stdin `line`: straight out when the way is clear, else
    /// queued. A socket that is behind does not make the way unclear: stdin
    /// pauses after the read in hand (`updateFlow`), and the messages of that
    /// read go into the connection's output, where they would be copied from
    /// the queue anyway (a 1 MiB line was copied twice).
    func deliver(_ message: OutgoingMessage, line: Int) {
        if let channel, channel.isOpen, queueEmpty {
            transmit(message, line: line, on: channel)
        } else {
            queue.append(message, line: line)
        }
    }

    /// Sends a new message; a text message may then be held for its --ack.
    /// `line` is its stdin line (0 for others), said if the server refuses it.
    func transmit(_ message: OutgoingMessage, line: Int = 0, on channel: WebSocketChannel) {
        channel.send(message, tag: line)
        replies.sent(message, now: monotonicNanos())
        switch message {
        case .text(let bytes):
            shell.sent(bytes: bytes.count)
            replay.sent(text: bytes)
        case .binary(let bytes):
            shell.sent(bytes: bytes.count)
        }
        if recording { onSent?(message, source) }
    }

    /// Sends a message held for its --ack again (it stays held).
    func resend(_ text: UnsafeRawBufferPointer, on channel: WebSocketChannel) {
        channel.send(.text(text))
        if recording { onSent?(.text(text), .input) }
        replies.sent(.text(text), now: monotonicNanos())
        shell.sent(bytes: text.count)
    }

    /// Moves held messages still to be re-sent, then queued ones, into the
    /// open connection while its output is short.
    func pump() {
        guard let channel, channel.isOpen else { return }
        replay.resendHeld(while: { channel.outputBytes < Self.socketHighWater }) { text in
            resend(text, on: channel)
            onResent?(text)
        }
        while !replay.isResending, channel.outputBytes < Self.socketHighWater, let message = queue.popFirst() {
            message.withOutgoing { transmit($0, line: message.line, on: channel) }
        }
        channel.flush()
    }

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
        let full = queue.byteCount + replay.heldBytes + originals >= queueLimit
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
        /// Acknowledged by the peer's TCP after the peer's last sign of life:
        /// they may be lost with the peer.
        var unconfirmed = 0
        /// The message a 1009/1003 refused; not sent again.
        var refused: OutboundQueue.Message?
    }

    /// After a drop: every message the peer's TCP never acknowledged goes
    /// back to the front of the queue (those held for an ack are sent again
    /// by the replay instead); after a refusal (`refusedWith` 1009 or 1003),
    /// the refused message is set aside and everything after it is sent
    /// again. Messages count as sent only once they are. `confirmed`: the
    /// server answered wspipe's Close, after reading every frame before it.
    func recoverUnsent(from channel: WebSocketChannel, refusedWith code: CloseCode?, confirmed: Bool) -> Recovery {
        // The server answered wspipe's Close, so it read every frame before:
        // nothing goes again, nothing was refused or is unconfirmed. (At the
        // end of an upload the kernel may still hold thousands of frames;
        // reading each back only to drop it cost as much as sending it.)
        if confirmed && code == nil {
            channel.discardUnsentMessages()
            return Recovery()
        }
        var kept: [(message: OutboundQueue.Message, unsent: OutgoingFrames.Unsent, held: Bool)] = []
        channel.takeUnsentMessages { message, unsent in
            if unsent.tag == Self.connectionOnlyTag { return }
            var held = false
            if case .text(let bytes) = message { held = replay.isHeld(bytes) }
            kept.append((OutboundQueue.copy(message, line: unsent.tag), unsent, held))
        }
        var recovery = Recovery()
        let candidates = kept.map { RefusedMessage.Candidate(size: $0.message.bytes.count, isBinary: $0.message.isBinary,
                                                             afterSignOfLife: $0.unsent.afterSignOfLife) }
        let culprit = code.flatMap { RefusedMessage.pick(candidates, code: $0) }
        if culprit == nil && !confirmed { recovery.unconfirmed = channel.releasedUnconfirmed }
        var again: [OutboundQueue.Message] = []
        for (index, entry) in kept.enumerated() {
            if index == culprit {
                recovery.refused = entry.message
                if entry.held { entry.message.bytes.withUnsafeBytes { replay.release($0) } }
                continue
            }
            if let culprit {
                // The server stopped reading at the refused message: what came
                // after it goes again, and so does what came before it that
                // the server never showed it had read.
                let read = index < culprit && entry.unsent.acknowledged && !entry.unsent.afterSignOfLife
                if !read && !entry.held { again.append(entry.message) }
                continue
            }
            if entry.unsent.acknowledged || confirmed {
                if entry.unsent.afterSignOfLife && !confirmed { recovery.unconfirmed += 1 }
                continue
            }
            if !entry.held { again.append(entry.message) }
        }
        recovery.requeued = again.count
        if !again.isEmpty { shell.log.debug("\(again.count) message(s) did not reach the server; queued again") }
        shell.stats.messagesOut -= again.count + (recovery.refused == nil ? 0 : 1)
        shell.stats.bytesOut -= again.reduce(0) { $0 + $1.bytes.count } + (recovery.refused?.bytes.count ?? 0)
        queue.prepend(again)
        return recovery
    }
}
