import WSCore
import WSTransport

/// What the server needs (wspipe(1): OPTIONS, Server mode).
public struct ServerOptions: Sendable {
    public var address: ListenAddress
    public var once = false
    /// Subprotocols we accept; the first one the client offers is selected.
    public var protocols: [String] = []
    /// --compress: accept a client's permessage-deflate offer.
    public var compress = false
    public var certFile: String? = nil
    public var keyFile: String? = nil
    public var handshakeTimeoutNanos: Int64 = 10_000_000_000
    /// --tag: stdout lines that are JSON objects get `"$client":N` as their
    /// first member, and a stdin line with a `"$client":N` member goes to
    /// client N only, without that member. JSON line mode only.
    public var tag = false
    /// --send-timeout: a client whose unsent output stays above the high
    /// water without shrinking this long is disconnected, so the broadcast
    /// goes on for the others. nil: it gets back-pressure (stdin waits).
    public var sendTimeoutNanos: Int64? = nil

    public init(address: ListenAddress) { self.address = address }
}

/// The server mode: accept any number of clients, write their messages to
/// stdout and broadcast stdin lines to them. stdin is only read while at least
/// one client is connected, so no line is read that nobody could receive.
///
/// A slow client holds up the broadcast instead of losing messages: once its
/// unsent output passes the high water, stdin waits until it has drained.
/// With --send-timeout a client that makes no progress for that long is
/// disconnected instead, and the others go on.
public final class ServerSession {
    private let options: ServerOptions
    private let bridge: BridgeOptions
    private let log: Diagnostics
    private let events: EventSink
    /// --tag applies to JSON lines; raw line mode has no objects to tag.
    private let tagging: Bool
    private var stats = SessionStats()
    private let loop = EventLoop()
    private var output: MessageOutput!
    private var stdin: StdinPump?
    private var listener: TCPListener?
    private var tlsContext: TLSContext?
    private var signals: SignalWatcher?

    /// Clients still in the TLS handshake or the HTTP upgrade.
    private var upgrading: [Int: ServerClient] = [:]
    /// Upgraded clients until their transport ends, in the order they
    /// arrived: the broadcast order.
    private var connected: [ServerClient] = []
    /// The same clients by id, for lines addressed with --tag.
    private var byID: [Int: ServerClient] = [:]
    /// Connected clients that still take messages (not closing).
    private var liveCount = 0
    /// Live clients whose unsent output is above the high water.
    private var stalledCount = 0
    private var nextID = 1
    private let clientHighWater = 4 << 20

    private var status = ExitStatus.success
    private var messagesReceived = 0
    /// --tag lines for a client that is not there (or not a client number).
    private var unaddressableLines = 0
    /// The line without its "$client" member, and a decoded envelope.
    private var addressed: [UInt8] = []
    private var unwrapped: [UInt8] = []
    private var stdinDone = false
    private var stopping = false
    private var ending = false
    private var servedOne = false
    private var closeTimer: EventLoop.TimerID?
    private var interrupts = 0

    public init(options: ServerOptions, bridge: BridgeOptions, log: Diagnostics, events: EventSink) {
        self.options = options
        self.bridge = bridge
        self.log = log
        self.events = events
        self.tagging = options.tag && bridge.format == .json
    }

    public func run() -> ExitStatus {
        defer { StdioMode.restoreAll() }
        do {
            output = try MessageOutput(bridge: bridge, loop: loop, log: log, events: events)
            try listen()
        } catch {
            log.fatal("\(error)")
            return .runtimeError
        }
        output.onStdoutLost = { [unowned self] error in self.stdoutLost(error) }
        output.routes.onDrained = { [unowned self] in self.routesDrained() }
        watchSignals()
        if !bridge.receiveOnly { startStdin() }
        loop.run()
        output.finish(&status, ignoringRouteErrors: bridge.routeErrorsIgnored)
        stats.invalidLines = stdin?.rejectedLines ?? 0
        reportInput()
        if bridge.stats { events.write(stats.jsonLine()) }
        return status
    }

    private func listen() throws {
        if let cert = options.certFile, let key = options.keyFile {
            tlsContext = try TLSContext.server(certFile: cert, keyFile: key)
        }
        let l = try TCPListener(host: options.address.host, port: options.address.port)
        listener = l
        let shown = ListenAddress(host: options.address.host, port: l.port, path: options.address.path)
        // With port 0 the user needs to be told which port they got.
        if options.address.port == 0 { log.warning("listening on \(shown.display)") } else { log.info("listening on \(shown.display)") }
        loop.watch(l.fd, .read) { [unowned self] _ in self.acceptAll() }
    }

    private func startStdin() {
        let pump = StdinPump(loop: loop, settings: bridge.stdinSettings, log: log,
                             deliver: { [unowned self] message in self.deliver(message) },
                             afterBatch: { [unowned self] in self.flushClients() },
                             onEnd: { [unowned self] in self.stdinEnded() })
        pump.events = events
        stdin = pump
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
                    maxMessageSize: bridge.maxMessageSize, compress: options.compress,
                    handshakeTimeoutNanos: options.handshakeTimeoutNanos,
                    accept: { [unowned self] request in self.accept(request) },
                    events: { [unowned self] client, event in self.clientEvent(client, event) },
                    opened: { [unowned self] client in self.clientOpened(client) },
                    failedUpgrade: { [unowned self] client, why in self.upgradeFailed(client, why) })
                upgrading[id] = client
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
        upgrading[client.id] = nil
        log.info("client \(client.id) (\(client.peer)) refused: \(why)")
    }

    private func stopListening() {
        guard let l = listener else { return }
        loop.unwatch(l.fd)
        l.close()
        listener = nil
    }

    // MARK: clients

    private func clientOpened(_ client: ServerClient) {
        upgrading[client.id] = nil
        connected.append(client)
        byID[client.id] = client
        client.live = true
        liveCount += 1
        log.info("client \(client.id) connected from \(client.peer)")
        events.emit(EventLine.clientConnected(id: client.id, peer: client.peer))
        if options.once { stopListening() }
        client.channel?.onDrained = { [unowned self, unowned client] in self.clientDrained(client) }
        updateStdin()
    }

    private func clientEvent(_ client: ServerClient, _ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message): clientMessage(message, from: client)
        case .processed:
            output.routes.flushAll()
            client.channel?.setReadPaused(output.routes.isBackedUp)
        case .ended: clientEnded(client)
        }
    }

    private func clientMessage(_ event: ConnectionEvent, from client: ServerClient) {
        switch event {
        case .text(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            guard acceptMessage() else { return }
            let destination = output.destination(forText: payload)
            let start = destination.pending.count
            output.appendText(payload, to: destination)
            if tagging { ClientTag.insert(client: client.id, into: &destination.pending, lineStart: start) }
        case .binary(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            guard acceptMessage() else { return }
            let destination = output.routes.binaryDestination
            let start = destination.pending.count
            output.appendBinary(payload)
            if tagging { ClientTag.insert(client: client.id, into: &destination.pending, lineStart: start) }
        case .ping, .pong:
            break
        case .closeReceived(let code, let reason):
            // Our echo is queued; nothing more can be sent to it.
            if client.closeInfo == nil { client.closeInfo = (code ?? 1005, reason, true) }
            retire(client)
            log.info("client \(client.id) closed (\(code.map(String.init) ?? "no status code"))\(reason.isEmpty ? "" : ": \(reason)")")
        case .failed(let code, let reason):
            if client.closeInfo == nil { client.closeInfo = (code.rawValue, reason, false) }
            retire(client)
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
        retire(client)
        let info = client.closeInfo ?? (1006, "", false)
        events.emit(EventLine.clientDisconnected(id: client.id, code: info.code, reason: info.reason, clean: info.clean))
        if let index = connected.firstIndex(where: { $0 === client }) { connected.remove(at: index) }
        byID[client.id] = nil
        log.info("client \(client.id) disconnected")
        if options.once { shutdown(code: .normal) }   // finishes at once: nobody else is connected
        if stopping && connected.isEmpty { finish() }
    }

    /// The client takes no more messages (it closed, failed, timed out or
    /// ended): it no longer counts for the broadcast or for back-pressure.
    private func retire(_ client: ServerClient) {
        guard client.live else { return }
        client.live = false
        liveCount -= 1
        unstall(client)
        updateStdin()
    }

    // MARK: stdin -> clients

    /// One message from stdin: to the client a --tag line names, else to all.
    private func deliver(_ message: OutgoingMessage) -> Bool {
        if tagging, case .text(let payload) = message, let address = ClientTag.address(in: payload),
           case .valid = JSONScanner.validate(payload) {
            return deliver(payload, to: address)
        }
        return broadcast(message)
    }

    private func broadcast(_ message: OutgoingMessage) -> Bool {
        var sent = false
        for client in connected where send(message, to: client) { sent = true }
        return sent
    }

    /// A stdin line with a "$client" member: to that client only, with the
    /// member removed. What remains may be a `$text`/`$binary` envelope
    /// (the form --tag writes them in), which is unwrapped as usual.
    private func deliver(_ json: UnsafeRawBufferPointer, to address: ClientTag.Address) -> Bool {
        guard let id = address.client else {
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: json[address.value]).prefix(40), as: UTF8.self)
            return reportUnaddressable("\"$client\" must be a client number, not \(value)")
        }
        guard let client = byID[id], client.live else {
            return reportUnaddressable("no client \(id) connected")
        }
        addressed.removeAll(keepingCapacity: true)
        ClientTag.appendRemoving(address.removal, from: json, into: &addressed)
        return addressed.withUnsafeBytes { rest -> Bool in
            guard let member = JSONScanner.soleStringMember(rest) else { return send(.text(rest), to: client) }
            let token = UnsafeRawBufferPointer(rebasing: rest[member.value])
            if member.key.elementsEqual("$text".utf8) {
                unwrapped.removeAll(keepingCapacity: true)
                JSONScanner.appendUnescaped(stringToken: token, into: &unwrapped)
                return unwrapped.withUnsafeBytes { send(.text($0), to: client) }
            }
            if member.key.elementsEqual("$binary".utf8) {
                unwrapped.removeAll(keepingCapacity: true)
                guard decodeBase64(token, into: &unwrapped) else { return reportUnaddressable("invalid base64 in $binary") }
                return unwrapped.withUnsafeBytes { send(.binary($0), to: client) }
            }
            return send(.text(rest), to: client)
        }
    }

    /// A `$binary` string token (with quotes) decoded; false if it is not base64.
    /// Base64 needs no escapes, but an encoder may still write "\/".
    private func decodeBase64(_ token: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        let inner = UnsafeRawBufferPointer(rebasing: token[1 ..< token.count - 1])
        guard inner.contains(0x5C) else { return Base64.decode(inner, into: &out) }
        var text: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: token, into: &text)
        return text.withUnsafeBytes { Base64.decode($0, into: &out) }
    }

    /// Reports a --tag line that goes nowhere; it counts as not sent (exit 6).
    private func reportUnaddressable(_ why: String) -> Bool {
        unaddressableLines += 1
        let line = stdinLineNumber().map { "stdin:\($0): " } ?? "stdin: "
        log.warning(line + why)
        return false
    }

    private func stdinLineNumber() -> Int? { stdin?.lineNumber }

    /// Queues `message` for `client`; false if it takes no messages now.
    private func send(_ message: OutgoingMessage, to client: ServerClient) -> Bool {
        guard client.live, let channel = client.channel, channel.isOpen else { return false }
        channel.send(message)
        stats.messagesOut += 1
        switch message {
        case .text(let bytes), .binary(let bytes): stats.bytesOut += bytes.count
        }
        if !client.stalled && channel.outputBytes > clientHighWater {
            channel.flush()   // may end the channel, which retires the client
            if client.live && channel.outputBytes > clientHighWater { stall(client) }
        }
        return true
    }

    private func flushClients() {
        for client in connected { client.channel?.flush() }
    }

    // MARK: back-pressure

    /// stdin runs while some client takes messages and none is over the
    /// high water; counters keep this check free of allocations.
    private func updateStdin() {
        guard let stdin, !stdinDone, !stopping else { return }
        if liveCount > 0 && stalledCount == 0 { stdin.resume() } else { stdin.pause() }
    }

    private func stall(_ client: ServerClient) {
        client.stalled = true
        stalledCount += 1
        stdin?.pause()
        guard let timeout = options.sendTimeoutNanos, let channel = client.channel else { return }
        let watch = SendStall(timeoutNanos: timeout, output: channel.outputBytes, now: monotonicNanos())
        client.stall = watch
        scheduleStallCheck(client, afterNanos: watch.firstIntervalNanos)
    }

    private func unstall(_ client: ServerClient) {
        guard client.stalled else { return }
        client.stalled = false
        stalledCount -= 1
        client.stall = nil
        if let timer = client.stallTimer { loop.cancel(timer); client.stallTimer = nil }
    }

    /// Output fully written: the client is no longer holding stdin up.
    private func clientDrained(_ client: ServerClient) {
        unstall(client)
        updateStdin()
    }

    private func scheduleStallCheck(_ client: ServerClient, afterNanos delay: Int64) {
        client.stallTimer = loop.schedule(afterNanos: delay) { [unowned self, weak client] in
            guard let client else { return }
            client.stallTimer = nil
            self.checkStall(client)
        }
    }

    private func checkStall(_ client: ServerClient) {
        // While shutting down, the close timeout ends every client anyway.
        guard !stopping, client.stalled, client.live, let channel = client.channel, var watch = client.stall else { return }
        if let next = watch.check(output: channel.outputBytes, now: monotonicNanos()) {
            client.stall = watch
            scheduleStallCheck(client, afterNanos: next)
        } else {
            sendTimedOut(client, channel)
        }
    }

    /// --send-timeout ran out: disconnect the client so the others go on. The
    /// Close goes behind the output it is not reading, so it rarely arrives;
    /// the transport is dropped right after.
    private func sendTimedOut(_ client: ServerClient, _ channel: WebSocketChannel) {
        log.warning("client \(client.id) (\(client.peer)): \(channel.outputBytes) bytes unsent and no progress for the --send-timeout; disconnecting")
        events.emit(ServerEvents.sendTimeout(id: client.id))
        client.closeInfo = (CloseCode.policyViolation.rawValue, "send timeout", false)
        retire(client)
        channel.close(code: .policyViolation, reason: "send timeout")
        channel.terminate()
    }

    // MARK: ending

    private func stdinEnded() {
        stdinDone = true
        flushClients()
        if !bridge.noClose { shutdown(code: .normal) }
    }

    /// Lines that were not sent make the exit status 6 (wspipe(1): LINES AND MESSAGES; OPTIONS, Server mode).
    private func reportInput() {
        guard let pump = stdin else { return }
        let noClient = pump.unsentLines - unaddressableLines
        if noClient > 0 { log.warning("\(noClient) input line(s) not sent: no client connected") }
        stats.notSent = pump.unsentLines
        if pump.rejectedLines > 0 || pump.unsentLines > 0 { status = status.combined(with: .inputRejected) }
    }

    /// Close every client, stop accepting, and finish when they are gone or
    /// after the close timeout.
    private func shutdown(code: CloseCode) {
        guard !stopping else { return }
        stopping = true
        stdin?.stop()
        stopListening()
        for client in upgrading.values { client.cancel() }
        upgrading.removeAll()
        if connected.isEmpty { finish(); return }
        for client in connected { client.channel?.close(code: code) }
        closeTimer = loop.schedule(afterNanos: bridge.closeTimeoutNanos) { [unowned self] in
            self.closeTimer = nil
            // Iterates a copy: each terminate removes its client from `connected`.
            for client in self.connected { client.channel?.terminate() }
            self.finish()
        }
    }

    /// Stop; the destinations are written out after the loop (see run()).
    private func finish() {
        guard !ending else { return }
        ending = true
        stdin?.stop()
        if let timer = closeTimer { loop.cancel(timer); closeTimer = nil }
        loop.stop()
    }

    /// The destinations caught up: resume reading the clients.
    private func routesDrained() {
        for client in connected { client.channel?.setReadPaused(false) }
    }

    /// stdout went away: quietly for a reader that stopped, with the error
    /// otherwise; the clients are closed and the server ends.
    private func stdoutLost(_ error: String?) {
        if let error {
            log.fatal(error)
            status = status.combined(with: .runtimeError)
        }
        shutdown(code: .goingAway)
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
