import WSCore
import WSTransport

/// What the server needs (SPEC §9).
public struct ServerOptions: Sendable {
    public var address: ListenAddress
    public var once = false
    /// Subprotocols we accept; the first one the client offers is selected.
    public var protocols: [String] = []
    public var certFile: String? = nil
    public var keyFile: String? = nil
    public var handshakeTimeoutNanos: Int64 = 10_000_000_000

    public init(address: ListenAddress) { self.address = address }
}

/// The server mode: accept any number of clients, write their messages to
/// stdout and broadcast stdin lines to them. stdin is only read while at least
/// one client is connected, so no line is read that nobody could receive.
public final class ServerSession {
    private let options: ServerOptions
    private let bridge: BridgeOptions
    private let log: Diagnostics
    private let events: EventSink
    private var stats = SessionStats()
    /// Per client: its Close code and reason, for the disconnect event.
    private var closeInfo: [Int: (code: UInt16, reason: String, clean: Bool)] = [:]
    private let loop = EventLoop()
    private let formatter: OutputFormatter
    private var stdout: OutputWriter!
    private var stdin: StdinPump?
    private var listener: TCPListener?
    private var tlsContext: TLSContext?
    private var pending: [Int: ServerClient] = [:]
    private var clients: [Int: ServerClient] = [:]
    /// Connected clients in the order they arrived, for a stable broadcast order.
    private var order: [Int] = []
    private var nextID = 1
    private var status = ExitStatus.success
    private var messagesReceived = 0
    private var stdinDone = false
    private var stopping = false
    private var ending = false
    private var servedOne = false
    private var signals: SignalWatcher?
    private var interrupts = 0
    private let clientHighWater = 4 << 20

    public init(options: ServerOptions, bridge: BridgeOptions, log: Diagnostics, events: EventSink) {
        self.options = options
        self.bridge = bridge
        self.log = log
        self.events = events
        self.formatter = bridge.formatter
    }

    public func run() -> ExitStatus {
        defer { StdioMode.restoreAll() }
        stdout = OutputWriter(fd: 1, loop: loop)
        stdout.onFailure = { [unowned self] reason in
            if reason != "EPIPE" { self.log.fatal("writing stdout: \(reason)"); self.status = self.status.combined(with: .runtimeError) }
            self.shutdown(code: .goingAway)
        }
        stdout.onDrained = { [unowned self] in self.stdoutDrained() }
        do {
            if let cert = options.certFile, let key = options.keyFile {
                tlsContext = try TLSContext.server(certFile: cert, keyFile: key)
            }
            let l = try TCPListener(host: options.address.host, port: options.address.port)
            listener = l
            let shown = ListenAddress(host: options.address.host, port: l.port, path: options.address.path)
            if options.address.port == 0 { log.warning("listening on \(shown.display)") } else { log.info("listening on \(shown.display)") }
            loop.watch(l.fd, .read) { [unowned self] _ in self.acceptAll() }
        } catch {
            log.fatal("\(error)")
            return .runtimeError
        }
        watchSignals()
        if !bridge.receiveOnly {
            stdin = StdinPump(loop: loop, settings: bridge.stdinSettings, log: log,
                              deliver: { [unowned self] message in self.broadcast(message) },
                              afterBatch: { [unowned self] in self.flushClients() },
                              onEnd: { [unowned self] in self.stdinEnded() })
            stdin?.onReject = { [unowned self] rejection in
                self.stats.invalidLines += 1
                self.log.warning(rejection.message)
                self.events.emit(EventLine.invalidInput(line: rejection.line, column: rejection.column,
                                                        reason: rejection.reason))
            }
        }
        loop.run()
        if bridge.stats { events.write(stats.jsonLine()) }
        return status
    }

    // MARK: accepting

    private func acceptAll() {
        guard let listener else { return }
        while let (fd, peer) = listener.accept() {
            let id = nextID
            nextID += 1
            do {
                let client = try ServerClient(
                    id: id, fd: fd, peer: peer, tlsContext: tlsContext, loop: loop,
                    maxMessageSize: bridge.maxMessageSize, handshakeTimeoutNanos: options.handshakeTimeoutNanos,
                    accept: { [unowned self] request in self.accept(request) },
                    events: { [unowned self] client, event in self.clientEvent(client, event) },
                    opened: { [unowned self] client in self.clientOpened(client) },
                    failedUpgrade: { [unowned self] client, why in self.upgradeFailed(client, why) })
                pending[id] = client
            } catch {
                log.warning("client \(id) (\(peer)): \(error)")
                TCPStream(fd: fd).close()
            }
        }
    }

    private func accept(_ request: UpgradeRequest) -> Result<String?, ServerClient.HTTPRefusal> {
        if let path = options.address.path, request.path != path {
            return .failure(.init(status: 404, reason: "Not Found"))
        }
        if stopping || (options.once && servedOne) {
            return .failure(.init(status: 503, reason: "Service Unavailable"))
        }
        servedOne = true
        return .success(request.protocols.first { options.protocols.contains($0) })
    }

    private func upgradeFailed(_ client: ServerClient, _ why: String) {
        pending[client.id] = nil
        log.info("client \(client.id) (\(client.peer)) refused: \(why)")
    }

    // MARK: clients

    private func clientOpened(_ client: ServerClient) {
        pending[client.id] = nil
        clients[client.id] = client
        order.append(client.id)
        log.info("client \(client.id) connected from \(client.peer)")
        events.emit(EventLine.clientConnected(id: client.id, peer: client.peer))
        if options.once, let l = listener { loop.unwatch(l.fd); l.close(); listener = nil }
        client.channel?.onDrained = { [unowned self] in self.resumeStdinIfDrained() }
        resumeStdinIfDrained()
    }

    private func clientEvent(_ client: ServerClient, _ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message): clientMessage(message, from: client)
        case .processed:
            stdout.flush()
            client.channel?.setReadPaused(stdout.isBackedUp)
        case .ended: clientEnded(client)
        }
    }

    private func clientMessage(_ event: ConnectionEvent, from client: ServerClient) {
        switch event {
        case .text(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            if acceptMessage() { formatter.appendText(payload, to: &stdout.pending) }
        case .binary(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            if acceptMessage() { formatter.appendBinary(payload, to: &stdout.pending) }
        case .ping, .pong:
            break
        case .closeReceived(let code, let reason):
            closeInfo[client.id] = (code ?? 1005, reason, true)
            log.info("client \(client.id) closed (\(code.map(String.init) ?? "no status code"))\(reason.isEmpty ? "" : ": \(reason)")")
        case .failed(let code, let reason):
            closeInfo[client.id] = (code.rawValue, reason, false)
            if code == .abnormal { log.info("client \(client.id) dropped the connection"); return }
            log.warning("client \(client.id): protocol error: \(reason) (closing with \(code.rawValue))")
            if options.once { status = status.combined(with: .protocolViolation) }
        }
    }

    private func acceptMessage() -> Bool {
        if bridge.sendOnly { return false }
        if let max = bridge.maxMessages, messagesReceived >= max { return false }
        messagesReceived += 1
        if let max = bridge.maxMessages, messagesReceived == max { shutdown(code: .normal) }
        return true
    }

    private func clientEnded(_ client: ServerClient) {
        let info = closeInfo.removeValue(forKey: client.id) ?? (1006, "", false)
        events.emit(EventLine.clientDisconnected(id: client.id, code: info.code, reason: info.reason, clean: info.clean))
        clients[client.id] = nil
        order.removeAll { $0 == client.id }
        log.info("client \(client.id) disconnected")
        if clients.isEmpty { stdin?.pause() }
        if options.once || (stopping && clients.isEmpty) { finish() }
    }

    // MARK: stdin -> clients

    private func broadcast(_ message: OutgoingMessage) -> Bool {
        var sent = false
        for id in order {
            guard let channel = clients[id]?.channel, channel.isOpen else { continue }
            channel.send(message)
            sent = true
            stats.messagesOut += 1
            if channel.outputBytes > clientHighWater {
                channel.flush()
                if channel.outputBytes > clientHighWater { stdin?.pause() }
            }
        }
        return sent
    }

    private func flushClients() {
        for id in order { clients[id]?.channel?.flush() }
    }

    private func resumeStdinIfDrained() {
        guard !stdinDone, !stopping else { return }
        let open = order.compactMap { clients[$0]?.channel }.filter { $0.isOpen }
        guard !open.isEmpty, open.allSatisfy({ $0.outputBytes <= clientHighWater }) else { return }
        stdin?.resume()
    }

    private func stdinEnded() {
        stdinDone = true
        for id in order { clients[id]?.channel?.flush() }
        if let pump = stdin, pump.rejectedLines > 0 || pump.unsentLines > 0 {
            if pump.unsentLines > 0 { log.warning("\(pump.unsentLines) input line(s) not sent: no client connected") }
            status = status.combined(with: .inputRejected)
        }
        if !bridge.noClose { shutdown(code: .normal) }
    }

    // MARK: ending

    /// Close every client, stop accepting, and finish when they are gone or
    /// after the close timeout.
    private func shutdown(code: CloseCode) {
        guard !stopping else { return }
        stopping = true
        stdin?.stop()
        if let l = listener { loop.unwatch(l.fd); l.close(); listener = nil }
        for client in pending.values { client.cancel() }
        pending.removeAll()
        if clients.isEmpty { finish(); return }
        for id in order { clients[id]?.channel?.close(code: code) }
        loop.schedule(afterNanos: bridge.closeTimeoutNanos) { [unowned self] in
            for id in self.order { self.clients[id]?.channel?.terminate() }
            self.finish()
        }
    }

    private func finish() {
        stdin?.stop()
        ending = true
        if stdout.isEmpty || stdout.failed { loop.stop(); return }
        stdout.flush()
    }

    /// stdout caught up: resume reading the clients, or stop if we were only
    /// waiting for the last lines to be written.
    private func stdoutDrained() {
        if ending { loop.stop(); return }
        for id in order { clients[id]?.channel?.setReadPaused(false) }
    }

    private func watchSignals() {
        guard let watcher = try? SignalWatcher(signals: [SIGINT, SIGTERM]) else { return }
        signals = watcher
        loop.watch(watcher.fd, .read) { [unowned self] _ in
            for signal in watcher.drain() {
                self.interrupts += 1
                self.status = self.status.combined(with: signal == SIGTERM ? .terminated : .interrupted)
                if self.interrupts > 1 { self.loop.stop() } else { self.shutdown(code: .goingAway) }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
