import WSCore
import WSTransport
import WSTerminal
import WSSocketIO
import WSMessages

/// The server speaking Socket.IO (wspipe(1): SOCKET.IO): a mock Socket.IO
/// server. Each client gets the open packet and the Engine.IO heartbeat
/// (`SocketIOServerLink`); its namespaces' connects are answered (any
/// namespace, or those of --namespace); once it connected one, it is
/// greeted (--on-connect) and played the --replay. Its events and acks are
/// lines on stdout; stdin lines, answers and greetings become packets on
/// their way to it. Every entry point is reached through `socketIO`, nil
/// without --socketio.
extension ServerSession {
    /// The client is upgraded: the open packet goes first.
    func socketIOOpened(_ client: ServerClient, _ options: SocketIOOptions) {
        guard let channel = client.channel else { return }
        channel.framesEngineIO = true
        let link = SocketIOServerLink(channel: channel, sid: "wspipe-\(client.id)", options: options,
                                      maxMessageSize: bridge.maxMessageSize, loop: loop) { [unowned self, unowned client] in
            self.log.info("client \(client.id): no Engine.IO pong within the ping timeout")
            self.clientSilent(client)
        }
        client.socketIO = link
        link.start()
        channel.flush()
    }

    /// A data message from a Socket.IO client.
    func socketIOMessage(_ message: ConnectionEvent, from client: ServerClient, _ link: SocketIOServerLink) {
        if options.relay { relaySocketIO(message, from: client) }
        link.receive(message) { event in
            switch event {
            case .line(let line):
                if let script = client.script { script.received(text: line, verdict: 0) }
                if shell.admit(bytes: line.count) { appendText(line, verdict: 0, from: client) }
            case .namespaceConnected(let namespace, let auth):
                log.info("client \(client.id): Socket.IO namespace \(namespace) connected")
                shell.events.emit(ServerEvents.namespaceConnected(id: client.id, namespace: namespace, auth: auth))
                if !link.greeted {
                    link.greeted = true
                    link.greetingDue = true
                }
            case .namespaceClosed(let namespace):
                log.info("client \(client.id): left Socket.IO namespace \(namespace)")
                shell.events.emit(ServerEvents.namespaceLeft(id: client.id, namespace: namespace))
            case .engineClosed:
                log.info("client \(client.id): closed its Engine.IO session")
            case .unreadable(let why):
                log.warning("client \(client.id): Socket.IO: \(TerminalEscaping.escaping(why)); shown as it came")
                switch message {
                case .text(let payload, _):
                    if shell.admit(bytes: payload.count) { appendText(payload, verdict: -1, from: client) }
                case .binary(let payload):
                    if shell.admit(bytes: payload.count) { shell.output.appendBinary(payload) }
                default: break
                }
            case .send, .opened, .pinged, .ponged, .ready, .rejected:
                break
            }
        }
    }

    /// The greeting and the --replay start after the read that connected
    /// the namespace (its answer goes first, at the end of the read), and
    /// before any later read: an event the client sends as soon as it has
    /// the answer finds its script (a timer ran after such a read at times).
    func socketIOProcessed(_ client: ServerClient, _ link: SocketIOServerLink) {
        link.processed()
        guard link.greetingDue else { return }
        link.greetingDue = false
        if client.phase == .open { scriptOpened(client) }
    }

    /// --relay: a client's events go to the others as they came (the packet
    /// and its attachments); what is the protocol's own stays with it.
    private func relaySocketIO(_ message: ConnectionEvent, from client: ServerClient) {
        switch message {
        case .text(let payload, _):
            guard payload.count >= 2, EngineIOPacket.isMessage(payload),
                  payload[1] == SocketIOPacket.Kind.event.rawValue || payload[1] == SocketIOPacket.Kind.binaryEvent.rawValue
            else { return }
            registry.relay(.text(payload), from: client)
        case .binary(let payload):
            registry.relay(.binary(payload), from: client)
        default:
            break
        }
    }

    // MARK: lines out

    /// `message` (stdin `line`, or a tag) to `client`: as it is, or as its
    /// packets; false when the client takes nothing now or the line is no
    /// Socket.IO line (reported).
    func send(_ message: OutgoingMessage, to client: ServerClient, line: Int) -> Bool {
        guard let socketIOLines else { return registry.send(message, to: client, line: line) }
        guard let packets = socketIOLines.prepare(message, tag: line, what: what(line)) else { return true }
        return send(packets, message, to: client, line: line)
    }

    /// `message` to every open client.
    func broadcast(_ message: OutgoingMessage, line: Int) -> Bool {
        guard let socketIOLines else { return registry.broadcast(message, line: line) }
        guard let packets = socketIOLines.prepare(message, tag: line, what: what(line)) else { return true }
        var sent = false
        for client in registry.clients where send(packets, message, to: client, line: line) { sent = true }
        return sent
    }

    private func send(_ packets: SocketIOOutgoing.Packets, _ message: OutgoingMessage, to client: ServerClient,
                      line: Int) -> Bool {
        var took = false
        packets.forEach(message) { frame, isAttachment in
            guard isAttachment else { took = registry.send(frame, to: client, line: line); return }
            // Counted with their packet, in the stats as in the client's account.
            guard took, registry.send(frame, to: client, line: line < 0 ? line : line | MessageTag.attachment) else { return }
            shell.stats.messagesOut -= 1
        }
        if took, let recorder = script?.recorder { recorder.sent(message, conn: client.id, source: registry.source) }
        return took
    }

    /// How a report names a message with this tag.
    private func what(_ tag: Int) -> String {
        let line = MessageTag.line(of: tag)
        if line > 0 { return "stdin:\(line): line" }
        return registry.source == .input ? "a line" : "\(registry.source.flagName) message"
    }
}

extension ServerEvents {
    /// `{"$event":"namespace_connected","id":N,"ns":…,"auth":…}`: client N
    /// connected a Socket.IO namespace, with the auth object it sent.
    static func namespaceConnected(id: Int, namespace: String, auth: [UInt8]?) -> [UInt8] {
        var line = EventLine.start("namespace_connected")
        line.int("id", id)
        line.string("ns", namespace)
        if let auth { line.raw("auth", auth) }
        return line.finishLine()
    }

    /// `{"$event":"namespace_disconnected","id":N,"ns":…}`: client N left the namespace.
    static func namespaceLeft(id: Int, namespace: String) -> [UInt8] {
        var line = EventLine.start("namespace_disconnected")
        line.int("id", id)
        line.string("ns", namespace)
        return line.finishLine()
    }
}
