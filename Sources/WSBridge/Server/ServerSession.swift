import WSCore
import WSTransport
import WSJSON
import WSTerminal
import WSMessages

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
    /// --keylog or SSLKEYLOGFILE: the TLS secrets of every client (`TLSKeyLog`).
    public var keyLogFile: String? = nil
    public var handshakeTimeoutNanos: Int64 = 10_000_000_000
    /// --tag: stdout lines that are JSON objects get `"$client":N` as their
    /// first member, and a stdin line with a `"$client":N` member goes to
    /// client N only, without that member. JSON line mode only.
    public var tag = false
    /// --send-timeout: a client whose unsent output stays above the high
    /// water without shrinking this long is disconnected, so the broadcast
    /// goes on for the others. nil: it gets back-pressure (stdin waits).
    public var sendTimeoutNanos: Int64? = nil
    /// --cacert: mutual TLS, clients must present a certificate issued by a
    /// CA in this file.
    public var clientCAFile: String? = nil
    /// --allow-origin: a request with another Origin is answered 403.
    public var allowedOrigins: [String] = []
    /// --max-clients: past this many connected clients an upgrade is answered
    /// 503, and at most this many more connections may be in their handshake
    /// at once (the kernel queues the rest). nil: no limit.
    public var maxClients: Int? = nil
    /// --relay: every client's data messages also go to every other client.
    public var relay = false
    /// --exec: each client gets its own `sh -c COMMAND`, which takes the
    /// place of stdin and stdout for that client.
    public var exec: String? = nil
    /// -H, --header-file: more headers in every 101 response.
    public var responseHeaders: [(name: String, value: String)] = []
    /// --ping-interval: ping every client this often; one whose pong does not
    /// come within `pingTimeoutNanos` (nil: the interval) is dropped with 1001.
    public var pingIntervalNanos: Int64? = nil
    public var pingTimeoutNanos: Int64? = nil
    /// --max-programs: --exec programs at once (running, or winding down
    /// after their client left); past it an upgrade is answered 503. Its
    /// default is the flag table's (the CLI's `Plan` sets it).
    public var maxPrograms = 0
    /// --on-connect, --on-connect-file: each client is greeted with these.
    public var onConnect: [MessageTemplate] = []

    public init(address: ListenAddress) { self.address = address }
}

/// The server mode: accept any number of clients, write their messages to
/// stdout and broadcast stdin lines to them. stdin is only read while at least
/// one client takes messages, so no line is read that nobody could receive.
/// `ServerLifecycle` decides when it ends; `ClientRegistry` keeps the clients
/// and the back-pressure.
public final class ServerSession: SessionDriver {
    let options: ServerOptions
    let shell: SessionShell
    /// --tag applies to JSON lines; raw line mode has no objects to tag.
    private let tagging: Bool
    /// Feeds `ServerLifecycle` and arms its timer (`PhaseDriver`).
    let driver: PhaseDriver<ServerLifecycle>
    var lifecycle: ServerLifecycle { _read { yield driver.machine } }
    let registry: ClientRegistry
    private var addressed = AddressedLines()
    var listener: TCPListener?
    var boundPort: UInt16 = 0
    let admission: ClientAdmission
    /// --exec: the clients' programs.
    var execs: ExecTable?
    /// Whether the listener is watched: not while --max-clients connections
    /// are upgrading, nor for a moment after accept(2) ran out of descriptors.
    var gate: AcceptGate
    var gateTimer: EventLoop.TimerID?
    var tlsContext: TLSContext?
    /// Clients still in the TLS handshake or the HTTP upgrade.
    var upgrading: [Int: ServerClient] = [:]
    var nextID = 1
    var servedOne = false
    /// --tag lines for a client that is not there (or not a client number).
    private var unaddressableLines = 0
    /// stdin ended after this many lines (nil: not yet): a client that comes
    /// later gets none of them, which is said once (`sayLateClient`).
    private var stdinEndedAfter: Int?
    private var saidLateClient = false
    /// --answer, --heartbeat, --wrap, --record, --replay and the greeting
    /// (ServerSession+Script.swift); nil without them.
    let script: PeerScript?
    /// --socketio: lines become packets on their way out (ServerSession+SocketIO.swift).
    let socketIOLines: SocketIOOutgoing?

    var loop: EventLoop { shell.loop }
    var log: Diagnostics { shell.log }
    var bridge: BridgeOptions { shell.bridge }

    public init(options: ServerOptions, bridge: BridgeOptions, log: Diagnostics, events: EventSink) {
        self.options = options
        shell = SessionShell(bridge: bridge, log: log, events: events)
        tagging = options.tag && bridge.format == .json
        // A server that replays a recording keeps serving it when stdin ends.
        driver = PhaseDriver(ServerLifecycle(holdAfterInput: bridge.noClose || bridge.script.replay != nil, once: options.once,
                                             closeTimeoutNanos: bridge.closeTimeoutNanos, closeCode: bridge.closeCode,
                                             closeReason: bridge.closeReason),
                             clock: shell.loop) { .timerFired }
        registry = ClientRegistry(shell: shell, sendTimeoutNanos: options.sendTimeoutNanos, relay: options.relay)
        gate = AcceptGate(maxHandshakes: options.maxClients)
        admission = ClientAdmission(path: options.address.path, allowedOrigins: options.allowedOrigins,
                                    maxClients: options.maxClients)
        shell.watchesChildren = options.exec != nil
        script = PeerScript(options: bridge.script, typeKey: bridge.typeKey, scheduler: shell.loop, log: log,
                            greets: !options.onConnect.isEmpty, codec: shell.codec)
        socketIOLines = bridge.socketIO.map { _ in SocketIOOutgoing(log: log, events: events) }
        wireScript()
        driver.perform = { [unowned self] action in self.perform(action) }
        // The stopping phase's timer counts the clients' progress from when it is armed.
        driver.willArmTimer = { [unowned self] in _ = self.registry.takeProgress() }
        driver.timerEvent = { [unowned self] in self.registry.takeProgress() ? .timerFiredWithProgress : .timerFired }
    }

    public func run() -> ExitStatus {
        shell.run(self) {
            try script?.openRecording()
            try listen()
            registry.flowChanged = { [unowned self] in
                self.updateStdin()
                if self.registry.roomWaitsForEveryone { self.updateClientReads() }
                self.scriptFlowChanged()
            }
            // With --exec each client's program takes the place of stdin.
            if !bridge.receiveOnly && options.exec == nil { startStdin() }
        }
    }

    // MARK: the lifecycle

    func handle(_ event: ServerLifecycle.Event) {
        driver.handle(event)
    }

    private func perform(_ action: ServerLifecycle.Action) {
        switch action {
        case .stopInput: shell.stdin?.stop()
        case .stopAccepting: stopAccepting()
        case .closeClients(let code, let reason): registry.closeAll(code, reason: reason)
        case .dropClients: registry.terminateAll()   // --exec programs are stopped after the loop
        case .restartTimer: driver.restartTimer()
        case .finish:
            registry.terminateAll()   // a second SIGINT: nobody is waited for
            shell.end()
        }
    }

    // MARK: clients

    func clientOpened(_ client: ServerClient) {
        upgrading[client.id] = nil
        updateAccepting()
        registry.add(client)
        log.info("client \(client.id) connected from \(client.peer)")
        sayLateClient(client)
        shell.events.emit(EventLine.clientConnected(id: client.id, peer: client.peer))
        if options.once { stopAccepting() }
        client.channel?.onDrained = { [unowned self, unowned client] in self.clientDrained(client) }
        if bridge.trace { client.channel?.tracer = FrameTracer(role: .server, log: log, label: "client \(client.id)") }
        if bridge.format == .json && bridge.socketIO == nil { client.channel?.readsTextAsJSON() }
        execs?.start(for: client)
        startKeepAlive(client)
        // A Socket.IO client is greeted once it connected a namespace.
        if let options = bridge.socketIO { socketIOOpened(client, options) } else { scriptOpened(client) }
    }

    /// --ping-interval: a client that does not answer our ping in time is
    /// gone (wspipe(1): RECONNECT AND REPLAY): dropped at once, with a Close
    /// 1001 it may never read, and reported as client_disconnected.
    private func startKeepAlive(_ client: ServerClient) {
        guard let interval = options.pingIntervalNanos, let channel = client.channel, channel.isOpen else { return }
        channel.pingsAhead()
        let keepAlive = KeepAlive(
            scheduler: loop, intervalNanos: interval, timeoutNanos: options.pingTimeoutNanos ?? interval,
            sendPing: { [weak channel] payload in channel?.sendPing(payload) },
            onDead: { [unowned self, unowned client] in self.clientSilent(client) },
            progress: { [weak channel] in channel?.progressMark() })
        client.keepAlive = keepAlive
        keepAlive.start()
    }

    func clientSilent(_ client: ServerClient) {
        guard let channel = client.channel else { return }
        log.info("client \(client.id): no pong within the ping timeout; dropping it")
        if client.closeInfo == nil { client.closeInfo = (.goingAway, "ping timeout", false) }
        registry.retire(client)
        channel.close(code: .goingAway, reason: "ping timeout")
        channel.terminate()
    }

    /// Clients still connected, and --exec programs still winding down after
    /// their client left: the server stops once none is left.
    var activeCount: Int {
        guard let execs else { return registry.count }
        return Set(registry.clients.map(\.id)).union(execs.ids).count
    }

    func clientEvent(_ client: ServerClient, _ event: WebSocketChannel.Event) {
        if let pair = execs?.pair(of: client) { return execEvent(pair, event) }
        switch event {
        case .message(let message):
            clientMessage(message, from: client)
        case .processed:
            if let link = client.socketIO { socketIOProcessed(client, link) }
            client.script?.processed()
            shell.output.routes.flushAll()
            if options.relay { registry.flushAll() }
            registry.processed(client)
            client.channel?.setReadPaused(readsPaused(client))
        case .ended:
            clientEnded(client)
        }
    }

    private func clientMessage(_ event: ConnectionEvent, from client: ServerClient) {
        switch event {
        case .text(let payload, let verdict):
            if let link = client.socketIO { return socketIOMessage(event, from: client, link) }
            textMessage(payload, verdict: verdict, as: .text(payload), from: client)
        case .binary(let payload):
            if let link = client.socketIO { return socketIOMessage(event, from: client, link) }
            if let codec = shell.codec, let json = codec.decode(payload, from: "client \(client.id)") {
                // A JSON text message from here on (wspipe(1): BINARY CODECS);
                // --relay passes on what came.
                return textMessage(json, verdict: 0, as: .binary(payload), from: client)
            }
            if let script = client.script { script.received(binary: payload) }
            if options.relay { registry.relay(.binary(payload), from: client) }
            guard shell.admit(bytes: payload.count) else { return }
            if tagging { shell.output.appendBinary(payload, taggedWith: client.id) } else { shell.output.appendBinary(payload) }
        case .ping:
            break
        case .pong(let payload):
            client.keepAlive?.pongReceived(payload)
        case .closeReceived(let code, let reason):
            // Our echo is queued; nothing more can be sent to it.
            if client.closeInfo == nil { client.closeInfo = (code ?? .noStatus, reason, true) }
            registry.retire(client)
            let said = reason.isEmpty ? "" : ": " + TerminalEscaping.escaping(reason)   // the peer's text
            log.info("client \(client.id) closed (\(code.map(String.init(describing:)) ?? "no status code"))\(said)")
        case .failed(let code, let reason):
            if client.closeInfo == nil { client.closeInfo = (code, reason, false) }
            registry.retire(client)
            if code == .abnormal { log.info("client \(client.id) dropped the connection"); return }
            log.warning("client \(client.id): protocol error: \(TerminalEscaping.escaping(reason)) (closing with \(code.rawValue))")
            if options.once { shell.status = shell.status.combined(with: .protocolViolation) }
        }
    }

    /// A text message (or, with --codec, the JSON of a binary one, `wire`
    /// being the message as it came): to the script, --relay and its route.
    private func textMessage(_ payload: UnsafeRawBufferPointer, verdict: Int, as wire: OutgoingMessage,
                             from client: ServerClient) {
        if let script = client.script {
            var decoded = false
            if case .binary = wire { decoded = true }
            script.received(text: payload, verdict: verdict, decoded: decoded)
        }
        if options.relay { registry.relay(wire, from: client) }
        switch wire {
        case .text(let bytes), .binary(let bytes): guard shell.admit(bytes: bytes.count) else { return }
        }
        if tagging, let own = withoutOwnTag(payload, verdict: verdict, from: client) {
            // Other bytes than those the verdict was given for.
            return own.withUnsafeBytes { appendText($0, verdict: -1, from: client) }
        }
        appendText(payload, verdict: verdict, from: client)
    }

    /// A text message's line, tagged with its client under --tag.
    /// `verdict`: the JSON check's answer that came with the message (-1: none).
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, from client: ServerClient) {
        let destination = shell.output.destination(forText: payload, isValidJSON: verdict >= 0 ? true : nil)
        if tagging {
            shell.output.appendText(payload, verdict: verdict, taggedWith: client.id, to: destination)
        } else {
            shell.output.appendText(payload, verdict: verdict, to: destination)
        }
    }

    /// --tag: a client that sends its own top-level "$client" would pass for
    /// another client (readers keep the last duplicate key): the member is
    /// removed, said once per client, and each time with an event.
    private func withoutOwnTag(_ payload: UnsafeRawBufferPointer, verdict: Int, from client: ServerClient) -> [UInt8]? {
        guard case .valid = JSONScanner.validate(payload, verdict: verdict),
              let stripped = ClientTag.removingClientMembers(from: payload) else { return nil }
        client.ownTagsRemoved += 1
        if client.ownTagsRemoved == 1 {
            log.warning("client \(client.id) (\(client.peer)) sent a \"$client\" member of its own; removed (--tag names the client), now and from now on")
        }
        shell.events.emit(ServerEvents.tagRemoved(id: client.id))
        return stripped
    }

    /// --exec: data messages go to the client's program, not to stdout.
    private func execEvent(_ pair: ExecClient, _ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message):
            switch message {
            case .text(let payload, _), .binary(let payload):
                if shell.admit(bytes: payload.count) { pair.deliver(message) }
            default:
                clientMessage(message, from: pair.client)
            }
        case .processed:
            shell.output.routes.flushAll()
            registry.processed(pair.client)
            pair.clientBatchDone()
        case .ended:
            clientEnded(pair.client)
        }
    }

    private func clientEnded(_ client: ServerClient) {
        client.keepAlive?.stop()
        client.keepAlive = nil
        client.socketIO?.stop()
        registry.remove(client)
        scriptEnded(client)
        let info = client.closeInfo ?? (.abnormal, "", false)
        let fates = client.channel.map { $0.deliveryFates(confirmedAll: $0.peerAnsweredClose) } ?? .init()
        shell.events.emit(EventLine.clientDisconnected(id: client.id, code: info.code, reason: info.reason, clean: info.clean,
                                                       unconfirmed: fates.unconfirmed, notSent: fates.notSent,
                                                       unread: fates.unread))
        log.info("client \(client.id) disconnected")
        account(client, fates, leftByItself: client.channel?.peerClosedFirst ?? false, clean: info.clean)
        execs?.pair(of: client)?.clientLeft()
        handle(.clientLeft(remaining: activeCount))
    }

    /// What a client that left had not confirmed or not been sent: its
    /// warning (at -v only when it left with a closing handshake) and
    /// --stats; lines its TCP never acknowledged or that were never written
    /// make the exit status 6, unless it closed the connection itself (it
    /// chose to stop reading) (wspipe(1): OPTIONS, Server mode).
    private func account(_ client: ServerClient, _ fates: DeliveryAccount.Fates, leftByItself: Bool, clean: Bool) {
        guard !fates.unconfirmed.isEmpty || !fates.notSent.isEmpty || !fates.unread.isEmpty else { return }
        shell.stats.addUnread(fates.unread)
        if !fates.unconfirmed.isEmpty { shell.stats.addUnconfirmed(fates.unconfirmed) }
        shell.stats.notSent += fates.notSent.count
        var parts: [String] = []
        if !fates.unread.isEmpty { parts.append("\(fates.unread.phrase) unread") }
        if !fates.unconfirmed.isEmpty { parts.append("\(fates.unconfirmed.phrase) unconfirmed") }
        if !fates.notSent.isEmpty { parts.append("\(fates.notSent.phrase) not sent") }
        let why = leftByItself ? "it closed the connection" : "it left before it showed it had them"
        let text = "client \(client.id): " + parts.joined(separator: ", ") + " (\(why))"
        if clean { log.info(text) } else { log.warning(text) }
        let undelivered = !fates.unacknowledged.isEmpty || !fates.notSent.isEmpty
        if undelivered && !leftByItself { shell.status = shell.status.combined(with: .inputRejected) }
    }

    // MARK: stdin -> clients

    private func startStdin() {
        let stdin = shell.makeStdin(deliver: script?.wraps == true ? wrappingDelivery() : { [unowned self] message in self.deliver(message) },
                            afterBatch: { [unowned self] in self.registry.flushAll() },
                            onEnd: { [unowned self] in
                                let lines = self.shell.stdin?.lineNumber ?? 0
                                self.stdinEndedAfter = lines
                                self.log.info("stdin ended after \(lines) line(s)")
                                self.registry.flushAll()
                                self.handle(.inputEnded(clients: self.registry.count))
                            })
        // --tag with --codec: a line for one client is encoded once its
        // "$client" member is taken out.
        if tagging, let codec = bridge.codec {
            stdin.keepsAsJSON = { ClientTag.address(in: $0) != nil }
            addressed.codecLines = InputTranslator(format: .json, lenient: false, maxPendingBytes: Int.max, codec: codec)
        }
    }

    /// A client that connects after stdin ended (-n) gets none of its lines:
    /// each goes to the clients connected when it is read. Said once, when
    /// there were lines, and when nothing else greets it.
    private func sayLateClient(_ client: ServerClient) {
        guard let lines = stdinEndedAfter, lines > 0, !saidLateClient, execs == nil, options.onConnect.isEmpty,
              script?.options.replay == nil else { return }
        saidLateClient = true
        log.warning("client \(client.id) connected after stdin ended: it gets none of its \(lines) line(s), which went to "
                    + "the clients connected when each was read (--on-connect-file FILE greets every client)")
    }

    /// One message from stdin: to the client a --tag line names, else to all.
    private func deliver(_ message: OutgoingMessage) -> Bool {
        if tagging, case .text(let payload) = message, let address = ClientTag.address(in: payload),
           case .valid = JSONScanner.validate(payload) {
            do {
                let line = shell.stdin?.lineNumber ?? 0
                return try addressed.deliver(payload, at: address, registry: registry) {
                    send($0, to: $1, line: line)
                }
            } catch {
                // Counts as not sent (exit 6).
                unaddressableLines += 1
                log.warning((shell.stdin.map { "stdin:\($0.lineNumber): " } ?? "stdin: ") + error.reason)
                return false
            }
        }
        return broadcast(message, line: shell.stdin?.lineNumber ?? 0)
    }

    /// stdin runs while some client takes messages and none is behind.
    private func updateStdin() {
        guard let stdin = shell.stdin, lifecycle.phase == .serving else { return }
        if registry.acceptsInput { stdin.resume() } else { stdin.pause() }
    }

    // MARK: SessionDriver

    func interrupted(again: Bool) { handle(.stop(.interrupted, clients: activeCount)) }
    func stdoutLost() { handle(.stop(.stdoutLost, clients: activeCount)) }
    func maxMessagesReached() { handle(.stop(.done, clients: activeCount)) }
    func childrenExited() { execs?.childrenExited() }
    /// The destinations caught up: resume reading the clients (unless a
    /// --relay --send-timeout 0 member is still behind).
    func routesDrained() { updateClientReads() }

    /// Clients are not read while their messages have nowhere to go: the
    /// routes are backed up, or (--relay --send-timeout 0) some member is not
    /// taking what the others send it. Nothing is dropped and no buffer grows
    /// without bound. (With --relay alone each member has its own queue and
    /// nobody waits for it: `ClientRegistry.relay`.)
    private var clientReadsPaused: Bool {
        shell.output.routes.isBackedUp || (registry.roomWaitsForEveryone && registry.hasStalledClient)
    }

    /// Whether `client` is read: not while its messages have nowhere to go,
    /// nor while more answers wait for it than it may leave unread
    /// (`ConnectionScript.holdsReadingBack`).
    func readsPaused(_ client: ServerClient) -> Bool {
        clientReadsPaused || client.script?.holdsReadingBack == true
    }

    private func updateClientReads() {
        registry.setReadPaused { [unowned self] in self.readsPaused($0) }
    }

    /// The client's output was all written: it no longer holds stdin up, and
    /// what the script held back for it goes now (it may put the client
    /// behind again, so after the registry has heard of the drain).
    private func clientDrained(_ client: ServerClient) {
        registry.drained(client)
        guard let connection = client.script else { return }
        connection.release()
        client.channel?.setReadPaused(readsPaused(client))
    }

    /// Lines that were not sent make the exit status 6 (wspipe(1): LINES AND
    /// MESSAGES; OPTIONS, Server mode).
    func finalReport() {
        execs?.reapAll()
        script?.finalReport(&shell.status, stats: &shell.stats)
        socketIOLines?.finalReport(&shell.status, stats: &shell.stats)
        guard let pump = shell.stdin else { return }
        let noClient = pump.unsentLines - unaddressableLines
        if noClient > 0 { log.warning("\(noClient) input line(s) not sent: no client connected") }
        shell.stats.notSent += pump.unsentLines
        if pump.unsentLines > 0 { shell.status = shell.status.combined(with: .inputRejected) }
    }
}
