import WSCore
import WSTransport
import WSTerminal
import WSSocketIO
import WSMessages
import WSConnect

/// The client speaking Socket.IO (wspipe(1): SOCKET.IO). Each connection
/// starts with Engine.IO's open packet and the namespaces' connects
/// (`SocketIOClientLink`); the connection opens for the lifecycle once every
/// namespace is connected (a refusal is a rejected attempt, exit 4). Then
/// events and acks become lines on their way in, and lines become packets
/// on their way out (`SocketIOOutgoing`, in the sender). Every entry point
/// is reached through `socketIO`, nil without --socketio.
extension ClientSession {
    func wireSocketIO() {
        sender.socketIO = SocketIOOutgoing(log: log, events: shell.events, namespaces: bridge.socketIO?.clientNamespaces)
    }

    /// The WebSocket is open: the Socket.IO handshake runs on it.
    func handshakeSocketIO(_ opened: OpenedConnection, on channel: WebSocketChannel) {
        guard let options = bridge.socketIO else { return }
        // Engine.IO's own packets (pings above all) are no sign of life.
        channel.framesEngineIO = true
        let link = SocketIOClientLink(connection: opened, channel: channel, namespaces: options.clientNamespaces,
                                      auth: renderAuth(options), loop: loop, maxMessageSize: bridge.maxMessageSize,
                                      handshakeNanos: client.connectTimeoutNanos) { [unowned self] phase in
            self.socketIOTimedOut(phase)
        }
        socketIO = link
        log.debug("WebSocket open; waiting for the Engine.IO open packet")
        link.start()
    }

    /// --sio-auth for this connection (its ${NAME} captures as they are now).
    private func renderAuth(_ options: SocketIOOptions) -> [UInt8]? {
        guard let template = options.auth else { return nil }
        var values = TemplateValues(seq: lifecycle.attempts, nowMs: TemplateRenderer.nowMillis())
        values.captures = resume.captureValues
        var renderer = TemplateRenderer()
        var auth: [UInt8]?
        if let reason = renderer.render(template, values, { message in
            if case .text(let bytes) = message { auth = Array(bytes) }
        }) {
            log.warning("--sio-auth not sent: \(reason)")
        }
        return auth
    }

    /// What the channel says while the handshake runs.
    func socketIOHandshakeEvent(_ event: WebSocketChannel.Event, _ link: SocketIOClientLink) {
        switch event {
        case .message(let message):
            switch message {
            case .text, .binary:
                link.receive(message) { handshakeStep($0, link, message) }
            case .closeReceived(let code, let reason):
                if link.failure == nil {
                    link.failure = .dropped("the server closed the connection before Socket.IO connected: "
                                            + Disconnect.closedByServer(code: code, reason: reason).description)
                }
            case .failed(let code, let reason):
                if link.failure == nil {
                    link.failure = code == .abnormal ? .dropped(reason) : .protocolViolation(code: code, reason: reason)
                }
            case .ping, .pong:
                break
            }
        case .processed:
            link.processed()
            guard link.phase == .connected && link.failure == nil else { return }
            // From here the channel's events are the open connection's (its
            // end too, while the lifecycle is told it opened).
            link.opened()
            opened(link.connection, on: link.channel)
        case .ended(let reason):
            handshakeEnded(link, reason)
        }
    }

    private func handshakeStep(_ event: SocketIOEvent, _ link: SocketIOClientLink, _ message: ConnectionEvent) {
        switch event {
        case .opened(let open):
            log.info("Engine.IO session \(TerminalEscaping.escaping(open.sid)) open (ping every \(open.pingIntervalMs) ms, "
                     + "timeout \(open.pingTimeoutMs) ms); connecting the namespaces")
        case .namespaceConnected(let namespace, _):
            log.info("Socket.IO namespace \(namespace) connected")
        case .rejected(let namespace, let message):
            link.fail(.socketIORejected(namespace: namespace, message: message), closeNanos: bridge.closeTimeoutNanos)
        case .line(let line):
            if !link.keepEarly(line) {
                link.fail(.protocolViolation(code: .messageTooBig, reason: "more than --max-message-size of events before every namespace was connected"),
                          closeNanos: bridge.closeTimeoutNanos)
            }
        case .unreadable(let why):
            guard link.sawOpen else {
                return link.fail(.invalidHandshake("not a Socket.IO server (Engine.IO v4 over WebSocket): \(why)"),
                                 closeNanos: bridge.closeTimeoutNanos)
            }
            log.warning("Socket.IO: \(why); ignored")
        case .namespaceClosed(let namespace):
            link.fail(.dropped("the server disconnected namespace \(namespace) before every namespace was connected"),
                      closeNanos: bridge.closeTimeoutNanos)
        case .engineClosed:
            link.fail(.dropped("the server closed the Engine.IO session"), closeNanos: bridge.closeTimeoutNanos)
        case .send, .pinged, .ponged, .ready:
            break
        }
    }

    /// The channel ended before the connection opened: a failed attempt.
    private func handshakeEnded(_ link: SocketIOClientLink, _ reason: WebSocketChannel.EndReason) {
        link.stop()
        if socketIO === link { socketIO = nil }
        // Cancelled by the lifecycle (an end, a /reconnect): it knows.
        if link.cancelled { return }
        let cause = link.failure ?? {
            switch reason {
            case .lost(let text): return .dropped(text)
            case .closed: return .dropped("the connection closed before Socket.IO connected")
            }
        }()
        shell.events.emit(EventLine.connectFailed(attempt: lifecycle.attempts, error: cause.description))
        handle(.attemptFailed(cause))
    }

    private func socketIOTimedOut(_ phase: SocketIOClientLink.Phase) {
        guard let link = socketIO else { return }
        switch phase {
        case .handshaking, .connected:
            if link.failure == nil {
                let what = link.sawOpen ? "the namespaces' answers" : "the Engine.IO open packet"
                link.failure = .unreachable("no Socket.IO handshake: \(what) did not come within --connect-timeout")
            }
            link.channel.terminate()
        case .open:
            guard let channel, channel === link.channel else { return }
            log.info("no Engine.IO ping within \(link.deadPeerSeconds)s (pingInterval + pingTimeout); dropping the connection")
            connection?.disconnect = .pingTimeout
            channel.terminate()
        case .ended:
            break
        }
    }

    /// The lifecycle knows the connection is open (`opened(_:on:)`): the
    /// events that came with the namespaces' answers are delivered now.
    func socketIOOpened() {
        guard let link = socketIO else { return }
        let early = link.takeEarly()
        guard !early.isEmpty else { return }
        for line in early { line.withUnsafeBytes { arrived(text: $0, verdict: 0) } }
        channelEvent(.processed)
    }

    /// Interactive /reconnect, or an end, while the handshake runs.
    func cancelSocketIOHandshake() {
        guard let link = socketIO, link.isHandshaking else { return }
        link.cancelled = true
        link.channel.terminate()   // its end comes to `handshakeEnded`, now or later
    }

    /// A data message on the open connection.
    func socketIOReceived(_ message: ConnectionEvent, _ link: SocketIOClientLink) {
        link.receive(message) { event in
            switch event {
            case .line(let line):
                arrived(text: line, verdict: 0)
            case .unreadable(let why):
                unreadable(message, why)
            case .rejected(let namespace, let text):
                // Ends the run as the refusal it is (exit 4), not as the Close that would follow.
                connection?.disconnect = .socketIORejected(namespace: namespace, message: text)
                loop.schedule(afterNanos: 0) { [weak channel = link.channel] in channel?.terminate() }
            case .namespaceClosed(let namespace):
                log.warning("Socket.IO: the server disconnected namespace \(namespace)")
                shell.events.emit(EventLine.namespaceClosed(namespace))
                // None left: the server ended the session, as a Close 1000 does (no reconnect).
                if link.namespaceClosed(namespace) { channel?.close(code: .normal) }
            case .engineClosed:
                // Its WebSocket Close follows, and says whether to come back.
                log.info("the server closed the Engine.IO session")
            case .opened, .namespaceConnected, .ready, .send, .pinged, .ponged:
                break
            }
        }
    }

    /// A message that is not Socket.IO as expected is shown as it is (a
    /// `$text` or `$binary` line), with why; said once a connection.
    private func unreadable(_ message: ConnectionEvent, _ why: String) {
        log.warning("Socket.IO: \(why); shown as it came")
        switch message {
        case .text(let payload, _):
            metrics.messageArrived()
            received(text: payload, verdict: -1)
        case .binary(let payload):
            metrics.messageArrived()
            if shell.admit(bytes: payload.count) { shell.output.appendBinary(payload) }
            if watchesMessages { watch(binary: payload) }
        default:
            break
        }
    }

    /// The connection ended.
    func socketIOEnded() {
        socketIO?.stop()
        socketIO = nil
    }

    /// Lines --socketio could not send count as rejected (exit 6).
    func socketIOFinalReport() {
        sender.socketIO?.finalReport(&shell.status, stats: &shell.stats)
    }
}

extension EventLine {
    /// `{"$event":"namespace_disconnected","ns":…}`: the server ended the namespace (Socket.IO's disconnect packet).
    static func namespaceClosed(_ namespace: String) -> [UInt8] {
        var line = start("namespace_disconnected")
        line.string("ns", namespace)
        return line.finishLine()
    }
}
