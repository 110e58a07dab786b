import WSCore
import WSJSON
import WSSocketIO
import WSMessages

/// Lines to Socket.IO packets on their way out (wspipe(1): SOCKET.IO), for
/// the client's sender and the server's clients alike. A line becomes its
/// packet, and the binary messages of its attachments after it; a message
/// that is a packet already (sent again after a drop: `MessageTag.packet`)
/// goes as it is. An `"ack":true` gets the next id, which the
/// `ack_requested` event says. The translation happens as a message is
/// written, so the queue, --ack, --record and the reply linger see lines.
final class SocketIOOutgoing {
    private let log: Diagnostics
    private let events: EventSink
    /// The last id an `"ack":true` was given (ids count from 1 for the run).
    private(set) var lastAckID = 0
    /// Counted messages (stdin lines) that were no Socket.IO lines: reported
    /// when it happened, and rejected in the exit status (6).
    private(set) var refusedLines = 0

    /// Client: the namespaces --namespace connects; a line for another is
    /// sent (the server ignores it) and said once. nil: a server's, any.
    private let namespaces: Set<String>?
    private var unconnectedSaid = Set<String>()

    init(log: Diagnostics, events: EventSink, namespaces: [String]? = nil) {
        self.log = log
        self.events = events
        self.namespaces = namespaces.map(Set.init)
    }

    /// What one message becomes on the wire.
    struct Packets {
        /// nil: the message goes as it is (a packet already, or its attachment).
        var packet: [UInt8]?
        var attachments: [[UInt8]] = []
        /// The id an `"ack":true` asked under.
        var askedAck: Int?
        /// What the reply linger is shown: the line with `"ack_of":N` first
        /// when it asked for an ack, so the answer that names N is its reply
        /// (`ReplyTracker`'s default rule, keyed on "ack_of" with --socketio).
        var replyView: [UInt8]?

        /// Writes it into `channel`: the packet counted by `tag` (marked as
        /// a packet, so that a drop sends it again untranslated), each
        /// attachment with it (not counted again).
        func send(_ message: OutgoingMessage, tag: Int, on channel: WebSocketChannel) {
            guard let packet else { return channel.send(message, tag: tag) }
            let packetTag = tag >= 0 ? tag | MessageTag.packet : tag
            packet.withUnsafeBytes { channel.send(.text($0), tag: packetTag) }
            for attachment in attachments {
                attachment.withUnsafeBytes {
                    channel.send(.binary($0), tag: tag >= 0 ? packetTag | MessageTag.attachment : tag)
                }
            }
        }

        /// The messages on the wire, for an adapter that sends them one by one.
        func forEach(_ message: OutgoingMessage, _ body: (OutgoingMessage, _ isAttachment: Bool) -> Void) {
            guard let packet else { return body(message, false) }
            packet.withUnsafeBytes { body(.text($0), false) }
            for attachment in attachments { attachment.withUnsafeBytes { body(.binary($0), true) } }
        }
    }

    /// The packets of `message` (a line, or a packet sent again), or nil
    /// when it is no Socket.IO line: then it is reported (`what` names it)
    /// and not sent.
    func prepare(_ message: OutgoingMessage, tag: Int, what: @autoclosure () -> String) -> Packets? {
        let again = tag >= 0 && tag & MessageTag.packet != 0
        switch message {
        case .binary:
            if again { return Packets() }
            log.warning("\(what()) not sent: a binary message is no Socket.IO event (put {\"$binary\":…} in an event's data)")
            if tag != MessageTag.uncounted { refusedLines += 1 }
            return nil
        case .text(let line):
            if again { return Packets() }
            do {
                guard JSONScanner.validate(line).isValid else { throw SocketIOError("not JSON") }
                let parts = try SocketIOLine.parse(line)
                if let namespaces, !namespaces.contains(parts.namespace), unconnectedSaid.insert(parts.namespace).inserted {
                    log.warning("\(what()): namespace \(parts.namespace) is not connected (--namespace): the server ignores its events")
                }
                var id: Int?
                if parts.ack == .ask {
                    lastAckID += 1
                    id = lastAckID
                }
                let (packet, attachments) = try SocketIOLine.encode(parts, of: line, ackID: id)
                var made = Packets(packet: packet, attachments: attachments)
                if let id {
                    made.askedAck = id
                    made.replyView = Self.replyView(line, ackID: id)
                    events.emit(EventLine.ackRequested(id: id, event: parts.event.map { Array(line[$0]) },
                                                       namespace: parts.namespace, line: MessageTag.line(of: tag)))
                }
                return made
            } catch {
                log.warning("\(what()) not sent: \(error)")
                if tag != MessageTag.uncounted { refusedLines += 1 }
                return nil
            }
        }
    }

    /// The line (an object) with `"ack_of":ID` as its first member.
    static func replyView(_ line: UnsafeRawBufferPointer, ackID: Int) -> [UInt8] {
        var view = Array("{\"ack_of\":\(ackID),".utf8)
        guard let brace = line.firstIndex(of: UInt8(ascii: "{")) else { return view }
        view.append(contentsOf: line[(brace + 1)...])
        return view
    }

    /// What the final report adds: the lines refused count as rejected (exit 6).
    func finalReport(_ status: inout ExitStatus, stats: inout SessionStats) {
        guard refusedLines > 0 else { return }
        stats.invalidLines += refusedLines
        status = status.combined(with: .inputRejected)
    }
}

extension EventLine {
    /// `{"$event":"ack_requested","ack":N,"event":…,"ns":…,"line":L}`: a
    /// line asked for an ack under id N (its answer comes out as
    /// `{"ack_of":N,…}`); `ns` left out for "/", `line` for a message that
    /// is no stdin line.
    static func ackRequested(id: Int, event: [UInt8]?, namespace: String, line: Int) -> [UInt8] {
        var out = start("ack_requested")
        out.int("ack", id)
        if let event { out.raw("event", event) }
        if namespace != "/" { out.string("ns", namespace) }
        if line > 0 { out.int("line", line) }
        return out.finishLine()
    }
}
