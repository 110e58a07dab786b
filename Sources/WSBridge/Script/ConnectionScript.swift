import WSJSON
import WSTransport
import WSMessages

/// The scripted peer on one connection (wspipe(1): SCRIPTED PEER): it
/// records what arrives, answers by type, sends the heartbeat and watches
/// for silence; on a server it also plays the --replay to its client.
///
/// Answers are made while a message is being delivered (its bytes are only
/// valid then) but sent after the read that brought it (`processed`): a
/// connection cannot take a send while it is being read, and one read's
/// answers then go out together, before anything queued from stdin.
///
/// Answers and heartbeats wait behind back-pressure as stdin lines do: while
/// the connection is behind (`isBehind`: its unsent output is above the
/// session's high water) they stay here, and go when it has caught up
/// (`release`). A heartbeat that falls due meanwhile waits as one, however
/// many intervals pass. A peer that keeps asking without reading the answers
/// is not read either once more than `waitingLimit` of them wait
/// (`holdsReadingBack`): what wspipe holds for it stays bounded, and every
/// request is still answered once it reads again.
final class ConnectionScript {
    /// The connection number (client) or the client's id (server).
    let conn: Int
    private unowned let peer: PeerScript
    private let sequence: SequenceCounter
    /// Sends a message on this connection (only outside a read).
    private let send: (OutgoingMessage, MessageSource) -> Void
    /// The connection's unsent output is above the high water.
    private let isBehind: () -> Bool
    /// Answers made and not sent yet: those of the read in progress, and
    /// those waiting for the connection to catch up.
    private var waiting = OutboundQueue()
    /// A heartbeat fell due while the connection was behind.
    private var heartbeatDue = false
    private var heartbeat: Heartbeat?
    /// Server: the --replay playing to this client.
    var player: ReplayPlayer?

    /// Answers waiting beyond this stop the session reading the peer. Well
    /// above what a peer that reads leaves waiting (an answer or two behind
    /// an upload), so that a peer blocked writing to us is never left
    /// unread for that alone.
    static let waitingLimit = 1 << 20

    init(conn: Int, peer: PeerScript, sequence: SequenceCounter, isBehind: @escaping () -> Bool,
         send: @escaping (OutgoingMessage, MessageSource) -> Void) {
        self.conn = conn
        self.peer = peer
        self.sequence = sequence
        self.isBehind = isBehind
        self.send = send
    }

    /// The connection is open: heartbeats start, and so does the silence watch.
    func start(onSilent: @escaping () -> Void) {
        let options = peer.options
        guard options.heartbeat != nil || options.heartbeatTimeoutNanos != nil else { return }
        heartbeat = Heartbeat(
            scheduler: peer.scheduler,
            intervalNanos: options.heartbeat == nil ? nil : options.heartbeatIntervalNanos,
            timeoutNanos: options.heartbeatTimeoutNanos,
            beat: { [unowned self] in self.beat() }, onSilent: onSilent)
        heartbeat?.start()
    }

    /// The connection ended: an answer still waiting belongs to it and is
    /// not sent on another (said with -v).
    func stop() {
        heartbeat?.stop()
        heartbeat = nil
        player?.stop()
        if !waiting.isEmpty {
            peer.log.info("connection \(conn) ended with \(waiting.count) --answer message(s) not sent")
        }
        waiting = OutboundQueue()
        heartbeatDue = false
    }

    /// More answers wait than `waitingLimit`: the session stops reading the
    /// peer until they have gone (`release`).
    var holdsReadingBack: Bool { waiting.byteCount > Self.waitingLimit }

    // MARK: what arrives

    /// A text message arrived (inside the read), or with --codec the JSON
    /// `decoded` from a binary message.
    func received(text payload: UnsafeRawBufferPointer, verdict: Int, decoded: Bool = false) {
        peer.recorder?.received(.text(payload), conn: conn, decoded: decoded)
        guard !peer.answers.isEmpty else { return }
        guard case .valid = JSONScanner.validate(payload, verdict: verdict) else {
            return peer.answers.forEachAnswer(toPlain: false) { answer($0, to: nil) }
        }
        peer.answers.forEachAnswer(to: payload) { answer($0, to: payload) }
    }

    func received(binary payload: UnsafeRawBufferPointer) {
        peer.recorder?.received(.binary(payload), conn: conn)
        guard !peer.answers.isEmpty else { return }
        peer.answers.forEachAnswer(toPlain: true) { answer($0, to: nil) }
    }

    /// `message`: the JSON answered, for `${.KEYPATH}` (nil: a `$text` or `$binary` one).
    private func answer(_ template: MessageTemplate, to message: UnsafeRawBufferPointer?) {
        render(template, .answer, message: message) { waiting.append($0, line: 0) }
    }

    /// The read is over: the peer is alive, and the answers go out, unless
    /// the connection is behind. `beforeClose`: a Close follows (the read
    /// asked for the end of the run), so they all go now, ahead of it.
    func processed(beforeClose: Bool = false) {
        heartbeat?.heard()
        release(regardless: beforeClose)
    }

    /// Sends what waited, answers first, while the connection is not
    /// behind (the session calls it when the connection's output drained).
    func release(regardless: Bool = false) {
        while !waiting.isEmpty && (regardless || !isBehind()), let answer = waiting.popFirst() {
            answer.withOutgoing { send($0, .answer) }
        }
        if heartbeatDue && waiting.isEmpty && !isBehind() {
            heartbeatDue = false
            beat()
        }
    }

    // MARK: what wspipe makes

    /// Sends `template`'s message now (not inside a read).
    func sendNow(_ template: MessageTemplate, _ source: MessageSource) {
        render(template, source, message: nil) { send($0, source) }
    }

    private func beat() {
        guard let template = peer.options.heartbeat else { return }
        if waiting.isEmpty && !isBehind() { sendNow(template, .heartbeat) } else { heartbeatDue = true }
    }

    /// Renders `template` with this connection's values and hands the message to `body`.
    func render(_ template: MessageTemplate, _ source: MessageSource, message: UnsafeRawBufferPointer?,
                line: UnsafeRawBufferPointer? = nil, _ body: (OutgoingMessage) -> Void) {
        var values = TemplateValues(seq: template.usesSeq ? sequence.next() : 0, nowMs: TemplateRenderer.nowMillis())
        values.message = message
        values.line = line
        values.captures = peer.captures?()
        if let reason = peer.renderer.render(template, values, body) {
            peer.log.warning("\(source.flagName) message not sent: \(reason)")
        }
    }
}

extension MessageSource {
    /// The flag a made message comes from, for what is said about it.
    var flagName: String {
        switch self {
        case .input: return "--wrap"
        case .onConnect: return "--on-connect"
        case .answer: return "--answer"
        case .heartbeat: return "--heartbeat"
        }
    }
}
