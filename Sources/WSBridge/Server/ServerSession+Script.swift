import WSJSON
import WSCore
import WSTransport
import WSMessages

/// The server as a scripted peer (wspipe(1): SCRIPTED PEER): each client
/// gets its own `ConnectionScript` (greeted with --on-connect, answered,
/// sent heartbeats, played the --replay, with its own `${seq}`), and the
/// stdin lines are wrapped with --wrap. Every entry point is reached
/// through `script`, nil unless one of the flags was given.
extension ServerSession {
    /// Wires the recorder to what the server sends and the events it says.
    func wireScript() {
        guard let script, script.options.recordPath != nil else { return }
        // With --socketio the lines are recorded, not their packets (`send(_:to:line:)`).
        if bridge.socketIO == nil {
            registry.onSent = { [unowned script] message, client, source in
                script.recorder?.sent(message, conn: client.id, source: source)
            }
        }
        shell.events.recorder = { [unowned script] line in
            script.recorder?.event(line, conn: Self.clientID(inEvent: line))
        }
    }

    /// The client an event is about ("id"), 0 for one about the server.
    private static func clientID(inEvent line: [UInt8]) -> Int {
        line.withUnsafeBytes { bytes in
            guard let range = JSONScanner.valueRange(atPath: [Array("id".utf8)], in: bytes) else { return 0 }
            return Int(String(decoding: bytes[range], as: UTF8.self)) ?? 0
        }
    }

    /// A client is upgraded: it is greeted, and its heartbeats and replay start.
    func scriptOpened(_ client: ServerClient) {
        guard let script else { return }
        let connection = ConnectionScript(
            conn: client.id, peer: script, sequence: SequenceCounter(),
            isBehind: { [unowned self, unowned client] in self.registry.isBehind(client) }
        ) { [unowned self, unowned client] message, source in
            self.registry.source = source
            defer { self.registry.source = .input }
            // Greetings, heartbeats and answers are the script's, not the user's lines: uncounted.
            if self.send(message, to: client, line: MessageTag.uncounted) { client.channel?.flush() }
        }
        client.script = connection
        if !script.answers.isEmpty {
            client.channel?.beforeDeferredClose = { [unowned connection] in connection.processed(beforeClose: true) }
        }
        for template in options.onConnect { connection.sendNow(template, .onConnect) }
        connection.start(onSilent: { [unowned self, unowned client] in self.heartbeatSilent(client) })
        guard let schedule = script.replaySchedule(.in, rateIntervalNanos: bridge.rateIntervalNanos) else { return }
        let player = ReplayPlayer(
            schedule: schedule, scheduler: loop,
            deliver: { [unowned self, unowned client] message, tag in
                guard self.send(message, to: client, line: tag) else { return false }
                client.channel?.flush()
                return true
            },
            canDeliver: { [unowned client] in client.stall == nil },
            onEnd: { [unowned self, unowned client] in
                self.log.info("client \(client.id): replay done")
            })
        connection.player = player
        player.start()
    }

    /// The client's transport ended.
    func scriptEnded(_ client: ServerClient) {
        guard let connection = client.script else { return }
        if let player = connection.player, !player.finished || player.unsent > 0 {
            log.info("client \(client.id) left with \(player.remaining + player.unsent) of the \(player.count) --replay message(s) not sent")
        }
        connection.stop()
    }

    /// Back-pressure eased: the replays that waited for it go on.
    func scriptFlowChanged() {
        guard script?.options.replay != nil else { return }
        for client in registry.clients { client.script?.player?.resume() }
    }

    /// --heartbeat-timeout: nothing came from this client for that long. It
    /// is dropped at once, with an event and a Close 1001 it may never read,
    /// as --ping-timeout drops one.
    private func heartbeatSilent(_ client: ServerClient) {
        guard client.phase == .open, let channel = client.channel else { return }
        log.warning("client \(client.id) (\(client.peer)): nothing received within --heartbeat-timeout; dropping it")
        shell.events.emit(ServerEvents.heartbeatTimeout(id: client.id))
        if client.closeInfo == nil { client.closeInfo = (.goingAway, "heartbeat timeout", false) }
        registry.retire(client)
        channel.close(code: .goingAway, reason: "heartbeat timeout")
        channel.terminate()
    }

    /// What stdin's lines go through with --wrap (the session's own
    /// `deliver` stays as it is, without a check per line).
    func wrappingDelivery() -> (OutgoingMessage) -> Bool {
        { [unowned self] message in
            guard let script = self.script else { return false }
            return self.deliverWrapped(message, script)
        }
    }

    /// --wrap: the stdin line (raw text, valid UTF-8) as the template's
    /// message, to every client; made once, or once per client when it
    /// holds `${seq}` (each client counts its own).
    private func deliverWrapped(_ message: OutgoingMessage, _ script: PeerScript) -> Bool {
        let number = shell.stdin?.lineNumber ?? 0
        guard let template = script.options.wrap, case .text(let line) = message else {
            return broadcast(message, line: number)
        }
        if PeerScript.isBlankWrapLine(line) { return true }
        var sent = false
        var failure: String?
        if template.usesSeq {
            for client in registry.clients where client.phase == .open {
                guard let connection = client.script else { continue }
                connection.render(template, .input, message: nil, line: line) { rendered in
                    if send(rendered, to: client, line: number) { sent = true }
                }
            }
        } else {
            failure = script.wrap(line, sequence: SequenceCounter()) { sent = broadcast($0, line: number) }
        }
        if let failure {
            log.warning("stdin:\(shell.stdin?.lineNumber ?? 0): --wrap message not sent: \(failure)")
            script.wrapRejected += 1
            return true   // counted as rejected, not as unsent
        }
        return sent
    }
}

extension ServerEvents {
    /// `{"$event":"heartbeat_timeout","id":N}`: nothing came from client N
    /// within --heartbeat-timeout; it is dropped (a client_disconnected
    /// event with code 1001 follows).
    static func heartbeatTimeout(id: Int) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "heartbeat_timeout")
        line.int("id", id)
        return line.finishLine()
    }
}
