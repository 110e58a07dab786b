import WSJSON
import WSTransport

/// The scripted peer on one connection (wspipe(1): SCRIPTED PEER): it
/// records what arrives, answers by type, sends the heartbeat and watches
/// for silence; on a server it also plays the --replay to its client.
///
/// Answers are made while a message is being delivered (its bytes are only
/// valid then) but sent after the read that brought it (`processed`): a
/// connection cannot take a send while it is being read, and one read's
/// answers then go out together, before anything queued from stdin.
final class ConnectionScript {
    /// The connection number (client) or the client's id (server).
    let conn: Int
    private unowned let peer: PeerScript
    private let sequence: SequenceCounter
    /// Sends a message on this connection (only outside a read).
    private let send: (OutgoingMessage, MessageSource) -> Void
    private var pending: [OutboundQueue.Message] = []
    private var heartbeat: Heartbeat?
    /// Server: the --replay playing to this client.
    var player: ReplayPlayer?

    init(conn: Int, peer: PeerScript, sequence: SequenceCounter, send: @escaping (OutgoingMessage, MessageSource) -> Void) {
        self.conn = conn
        self.peer = peer
        self.sequence = sequence
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

    func stop() {
        heartbeat?.stop()
        heartbeat = nil
        player?.stop()
        pending.removeAll()
    }

    // MARK: what arrives

    /// A text message arrived (inside the read).
    func received(text payload: UnsafeRawBufferPointer, verdict: Int) {
        peer.recorder?.received(.text(payload), conn: conn)
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
        render(template, .answer, message: message) { pending.append(OutboundQueue.copy($0, line: 0)) }
    }

    /// The read is over: the peer is alive, and the answers go out.
    func processed() {
        heartbeat?.heard()
        guard !pending.isEmpty else { return }
        let answers = pending
        pending.removeAll(keepingCapacity: true)
        for answer in answers { answer.withOutgoing { send($0, .answer) } }
    }

    // MARK: what wspipe makes

    /// Sends `template`'s message now (not inside a read).
    func sendNow(_ template: MessageTemplate, _ source: MessageSource) {
        render(template, source, message: nil) { send($0, source) }
    }

    private func beat() {
        if let template = peer.options.heartbeat { sendNow(template, .heartbeat) }
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
