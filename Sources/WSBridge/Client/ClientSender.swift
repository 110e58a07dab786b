import WSCore
import WSTransport

/// The client's outgoing path (wspipe(1): RECONNECT AND REPLAY): a message
/// goes straight into the open connection when nothing waits before it and
/// the socket keeps up, else into the queue, which the next connection
/// empties after its replay. stdin pauses while the queue is at its limit or
/// the socket is behind (back-pressure), so nothing is dropped: every line is
/// sent, or counted as not sent at the end.
final class ClientSender {
    /// Above this much unwritten socket output, messages wait in the queue.
    static let socketHighWater = 4 << 20

    private let shell: SessionShell
    private let replay: ReplayCoordinator
    private let queueLimit: Int
    private var queue = OutboundQueue()
    /// The connection being written to, while there is one.
    var channel: WebSocketChannel?
    /// Messages sent and received on the connection, for the reply linger.
    var replies = ReplyTracker()

    init(shell: SessionShell, replay: ReplayCoordinator, queueLimit: Int) {
        self.shell = shell
        self.replay = replay
        self.queueLimit = queueLimit
    }

    var queueEmpty: Bool { queue.isEmpty }
    var queuedCount: Int { queue.count }

    /// A message from stdin: straight out when the way is clear, else queued.
    func deliver(_ message: OutgoingMessage) {
        if let channel, channel.isOpen, queue.isEmpty, channel.outputBytes < Self.socketHighWater {
            transmit(message, on: channel)
        } else {
            queue.append(message)
        }
    }

    /// Sends a new message; a text message may then be held for its --ack.
    func transmit(_ message: OutgoingMessage, on channel: WebSocketChannel) {
        channel.send(message)
        replies.sent(now: monotonicNanos())
        switch message {
        case .text(let bytes):
            shell.sent(bytes: bytes.count)
            replay.sent(text: bytes)
        case .binary(let bytes):
            shell.sent(bytes: bytes.count)
        }
    }

    /// Sends a message held for its --ack again (it stays held).
    func resend(_ text: UnsafeRawBufferPointer, on channel: WebSocketChannel) {
        channel.send(.text(text))
        replies.sent(now: monotonicNanos())
        shell.sent(bytes: text.count)
    }

    /// Moves queued messages into the open connection while its output is short.
    func pump() {
        guard let channel, channel.isOpen else { return }
        while channel.outputBytes < Self.socketHighWater, let message = queue.popFirst() {
            message.withOutgoing { transmit($0, on: channel) }
        }
        channel.flush()
    }

    /// Back-pressure: stdin waits while the queue is at its limit or the
    /// socket is not keeping up.
    func updateFlow(of stdin: StdinPump?) {
        guard let stdin, !stdin.finished else { return }
        let socketBusy = (channel?.outputBytes ?? 0) >= Self.socketHighWater
        if queue.byteCount >= queueLimit || socketBusy { stdin.pause() } else { stdin.resume() }
    }

    /// After a drop: the messages that never completely left go back to the
    /// front of the queue, except those held for an ack, which the replay
    /// sends again instead. They count as sent only once they are.
    func recoverUnsent(from channel: WebSocketChannel) {
        var recovered: [OutboundQueue.Message] = []
        channel.takeUnsentMessages { message in
            if case .text(let bytes) = message, replay.isHeld(bytes) { return }
            recovered.append(OutboundQueue.copy(message))
        }
        guard !recovered.isEmpty else { return }
        shell.log.debug("\(recovered.count) message(s) not written before the drop; queued again")
        shell.stats.messagesOut -= recovered.count
        shell.stats.bytesOut -= recovered.reduce(0) { $0 + $1.bytes.count }
        queue.prepend(recovered)
    }
}
