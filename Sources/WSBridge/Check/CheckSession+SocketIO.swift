import WSCore
import WSTransport
import WSTerminal
import WSSocketIO
import WSMessages
import WSConnect

/// --check with --socketio (wspipe(1): CHECKING A SERVER, SOCKET.IO): a
/// recording made with `--socketio --record` holds event lines, so each
/// connection first runs the Socket.IO handshake (the open packet, the
/// namespaces of --namespace connected with --sio-auth) on a
/// `SocketIOClientLink`, as a client connection does; the conversation
/// starts once every namespace answered, then sees event lines (the
/// server's pings answered by the link, never compared), and its lines go
/// out as packets (`sendPending`). A refused namespace fails the recording
/// as a rejected handshake (exit status 4).
extension CheckSession {
    func handshakeSocketIO(_ opened: OpenedConnection, on channel: WebSocketChannel) {
        guard let options = shell.bridge.socketIO else { return }
        let link = SocketIOClientLink(connection: opened, channel: channel, namespaces: options.clientNamespaces,
                                      auth: renderAuth(options), loop: loop, maxMessageSize: shell.bridge.maxMessageSize,
                                      handshakeNanos: client.connectTimeoutNanos) { [unowned self] phase in
            self.socketIOTimedOut(phase)
        }
        socketIO = link
        log.debug("WebSocket open; waiting for the Engine.IO open packet")
        link.start()
    }

    /// --sio-auth for this connection (`${seq}`: the recording's connection number).
    private func renderAuth(_ options: SocketIOOptions) -> [UInt8]? {
        guard let template = options.auth else { return nil }
        let values = TemplateValues(seq: script.connections[connectionIndex].number, nowMs: TemplateRenderer.nowMillis())
        var renderer = TemplateRenderer()
        var auth: [UInt8]?
        if let reason = renderer.render(template, values, { message in
            if case .text(let bytes) = message { auth = Array(bytes) }
        }) {
            log.warning("--sio-auth not sent: \(reason)")
        }
        return auth
    }

    /// A message of the channel while --socketio is on.
    func socketIOMessage(_ message: ConnectionEvent, _ link: SocketIOClientLink) {
        if link.isHandshaking { return handshakeMessage(message, link) }
        switch message {
        case .text, .binary:
            link.receive(message) { event in
                switch event {
                case .line(let line):
                    received(line: line)
                case .unreadable(let why):
                    log.warning("Socket.IO: \(why); compared as it came")
                    incoming(message)
                case .rejected(let namespace, let text):
                    feed(.lost("the server refused namespace \(namespace): \(text)", status: .handshakeRejected))
                case .namespaceClosed(let namespace):
                    log.warning("Socket.IO: the server disconnected namespace \(namespace)")
                case .engineClosed:
                    log.info("the server closed the Engine.IO session")
                case .opened, .namespaceConnected, .ready, .send, .pinged, .ponged:
                    break
                }
            }
        default:
            incoming(message)
        }
    }

    private func received(line: UnsafeRawBufferPointer) {
        metricsArrived(bytes: line.count)
        feed(.received(.text(line), now: monotonicNanos()))
    }

    private func handshakeMessage(_ message: ConnectionEvent, _ link: SocketIOClientLink) {
        let closeNanos = shell.bridge.closeTimeoutNanos
        switch message {
        case .text, .binary:
            link.receive(message) { event in
                switch event {
                case .opened(let open):
                    log.info("Engine.IO session \(TerminalEscaping.escaping(open.sid)) open; connecting the namespaces")
                case .namespaceConnected(let namespace, _):
                    log.info("Socket.IO namespace \(namespace) connected")
                case .rejected(let namespace, let text):
                    link.fail(.socketIORejected(namespace: namespace, message: text), closeNanos: closeNanos)
                case .line(let line):
                    if !link.keepEarly(line) {
                        link.fail(.protocolViolation(code: .messageTooBig, reason: "more than --max-message-size of "
                                                     + "events before every namespace was connected"), closeNanos: closeNanos)
                    }
                case .unreadable(let why):
                    guard link.sawOpen else {
                        return link.fail(.invalidHandshake("not a Socket.IO server (Engine.IO v4 over WebSocket): \(why)"),
                                         closeNanos: closeNanos)
                    }
                    log.warning("Socket.IO: \(why); ignored")
                case .namespaceClosed(let namespace):
                    link.fail(.dropped("the server disconnected namespace \(namespace) before every namespace was connected"),
                              closeNanos: closeNanos)
                case .engineClosed:
                    link.fail(.dropped("the server closed the Engine.IO session"), closeNanos: closeNanos)
                case .send, .pinged, .ponged, .ready:
                    break
                }
            }
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
    }

    /// A read is over: what the protocol answers goes out, and the
    /// conversation starts once every namespace is connected.
    func socketIOProcessed(_ link: SocketIOClientLink) {
        link.processed()
        guard link.phase == .connected, link.failure == nil, case .open = phase else { return }
        link.opened()
        startConversation()
        for line in link.takeEarly() { line.withUnsafeBytes { received(line: $0) } }
    }

    /// The channel ended; true when it was during the handshake (the
    /// connection failed, which is reported here).
    func socketIOEnded(_ link: SocketIOClientLink, _ reason: WebSocketChannel.EndReason) -> Bool {
        let handshaking = link.isHandshaking
        link.stop()
        socketIO = nil
        guard handshaking else { return false }
        cancelTimer()
        let cause = link.failure ?? {
            switch reason {
            case .lost(let text): return .dropped(text)
            case .closed: return .dropped("the connection closed before Socket.IO connected")
            }
        }()
        let status: ExitStatus
        switch cause {
        case .socketIORejected, .invalidHandshake: status = .handshakeRejected
        case .protocolViolation: status = .protocolViolation
        default: status = .connectFailed
        }
        shell.events.emit(EventLine.connectFailed(attempt: 1, error: cause.description))
        phase = .between
        // The channel is still handing out its end: the next step is on the next turn.
        loop.schedule(afterNanos: 0) { [unowned self] in self.connectionFailed(cause.description, status: status) }
        return true
    }

    private func socketIOTimedOut(_ linkPhase: SocketIOClientLink.Phase) {
        guard let link = socketIO else { return }
        switch linkPhase {
        case .handshaking, .connected:
            if link.failure == nil {
                let what = link.sawOpen ? "the namespaces' answers" : "the Engine.IO open packet"
                link.failure = .unreachable("no Socket.IO handshake: \(what) did not come within --connect-timeout")
            }
            link.channel.terminate()
        case .open:
            feed(.lost("no Engine.IO ping within \(link.deadPeerSeconds)s (pingInterval + pingTimeout)",
                       status: .connectFailed))
            link.channel.terminate()
        case .ended:
            break
        }
    }
}
