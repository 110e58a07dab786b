import WSCore
import WSTransport

/// The client mode (wspipe(1): SYNOPSIS; RECONNECT AND REPLAY; OPTIONS,
/// Ending): connect, pump stdin lines to the server and its messages to
/// stdout, survive drops, then end. `ClientLifecycle` decides what happens
/// next; this class turns I/O into its events and performs its actions.
/// Returns the exit status.
public final class ClientSession: SessionDriver {
    private let client: ClientOptions
    private let policy: SessionPolicy
    let shell: SessionShell
    private(set) var lifecycle: ClientLifecycle
    /// The timer of the current phase (`ClientLifecycle.timerNanos`).
    private var phaseTimer: EventLoop.TimerID?
    private let replay: ReplayCoordinator
    private let sender: ClientSender
    private var tls: TLSContext?
    private var connector: ClientConnector?
    private(set) var channel: WebSocketChannel?
    private var keepAlive: KeepAlive?
    /// Why the current connection is ending, once known.
    private var disconnect: Disconnect?
    /// Events raised while actions were being performed wait their turn.
    private var pendingEvents: [ClientLifecycle.Event] = []
    private var handling = false
    /// Interactive mode (ClientSession+Interactive.swift): the terminal side,
    /// and what it is told of the lifecycle; nil in a pipe.
    let interactive: InteractiveFrontend?
    private let observer: ClientSessionObserver?

    private var loop: EventLoop { shell.loop }
    private var log: Diagnostics { shell.log }
    private var bridge: BridgeOptions { shell.bridge }

    public init(client: ClientOptions, bridge: BridgeOptions, policy: SessionPolicy, log: Diagnostics,
                events: EventSink) {
        self.client = client
        self.policy = policy
        shell = SessionShell(bridge: bridge, log: log, events: events)
        replay = ReplayCoordinator(policy: policy, maxMessageSize: bridge.maxMessageSize)
        sender = ClientSender(shell: shell, replay: replay, queueLimit: policy.queueLimit)
        lifecycle = ClientLifecycle(policy: .init(policy, bridge), backoff: Backoff(policy: policy.backoff))
        interactive = client.interactive.map { [shell] in
            InteractiveFrontend(settings: $0, bridge: bridge, loop: shell.loop, log: log, events: events)
        }
        observer = interactive
        wireInteractive()
    }

    public func run() -> ExitStatus {
        shell.run(self) {
            tls = client.url.secure ? try TLSContext.client(client.tls) : nil
            try startInteractive()
            handle(.start)
        }
    }

    // MARK: the lifecycle

    func handle(_ event: ClientLifecycle.Event) {
        pendingEvents.append(event)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !pendingEvents.isEmpty {
            let before = lifecycle.phase
            let actions = lifecycle.handle(pendingEvents.removeFirst())
            if lifecycle.phase != before { armPhaseTimer() }
            for action in actions { perform(action) }
        }
    }

    /// The only place timers of the lifecycle start and stop.
    private func armPhaseTimer() {
        if let phaseTimer { loop.cancel(phaseTimer) }
        phaseTimer = lifecycle.timerNanos.map { nanos in
            loop.schedule(afterNanos: nanos) { [unowned self] in
                self.phaseTimer = nil
                self.handle(.timerFired(self.progress()))
            }
        }
    }

    /// What the lifecycle needs to know about delivery. Replies owed matter
    /// only once the input is over and everything is out.
    func progress() -> ClientLifecycle.Progress {
        var progress = ClientLifecycle.Progress(queueEmpty: sender.queueEmpty, acksPending: replay.acksPending)
        let inputOver = shell.stdin?.finished ?? interactive?.inputEnded ?? false
        if progress.queueEmpty && !progress.acksPending && inputOver {
            progress.repliesOwed = sender.replies.owed(at: monotonicNanos())
        }
        return progress
    }

    private func reportProgress() {
        if lifecycle.wantsProgress { handle(.progressed(progress())) }
    }

    private func perform(_ action: ClientLifecycle.Action) {
        switch action {
        case .connect(let attempt):
            connect(attempt: attempt)
        case .announceRetry(let attempt, let delay, let cause, let wasOpen):
            shell.events.emit(EventLine.reconnecting(attempt: attempt, delayMs: delay / 1_000_000))
            // The interactive transcript shows this as its disconnected and reconnecting notes.
            if wasOpen && observer == nil { log.warning("connection lost (\(cause)); reconnecting") }
            log.info("retrying in \(delay / 1_000_000)ms: \(cause)")
            observer?.retrying(attempt: attempt, delayNanos: delay, cause: cause, wasOpen: wasOpen)
        case .sendClose(let code, let reason):
            channel?.close(code: code, reason: reason)
        case .dropConnection:
            log.info("no Close from the server within the close timeout; closing")
            channel?.terminate()
        case .cancelAttempt:
            connector?.cancel()
            connector = nil
        case .reportUnacked:
            reportUnacked()
        case .stopInput:
            shell.stdin?.stop()
        case .finish(let outcome):
            finish(outcome)
        }
    }

    // MARK: connecting

    private func connect(attempt: Int) {
        shell.events.emit(EventLine.connecting(url: client.url.display, attempt: attempt))
        observer?.connecting(url: client.url.display, attempt: attempt)
        log.info("connecting to \(client.url.display)" + (attempt > 1 ? " (attempt \(attempt))" : ""))
        let connector = ClientConnector(options: client, tlsContext: tls, loop: loop, log: log)
        self.connector = connector
        connector.start { [unowned self] result in
            self.connector = nil
            switch result {
            case .success(let opened): self.opened(opened)
            case .failure(let failure):
                self.shell.events.emit(EventLine.connectFailed(attempt: self.lifecycle.attempts, error: failure.description))
                self.handle(.attemptFailed(failure.disconnect))
            }
        }
    }

    private func opened(_ opened: OpenedConnection) {
        let isReconnect = lifecycle.everConnected
        if isReconnect { shell.stats.reconnects += 1 }
        disconnect = nil
        shell.events.emit(EventLine.connected(url: client.url.display, attempt: lifecycle.attempts,
                                              protocol: opened.subprotocol))
        log.info("connected to \(client.url.display)" + (opened.subprotocol.map { " (protocol \($0))" } ?? ""))
        logResponse(opened.response)
        observer?.connected(url: client.url.display, subprotocol: opened.subprotocol,
                            extensions: opened.response.value("Sec-WebSocket-Extensions"))
        let channel = WebSocketChannel(stream: opened.stream, role: .client, maxMessageSize: bridge.maxMessageSize,
                                       compression: opened.compression,
                                       loop: loop) { [unowned(unsafe) self] event in self.channelEvent(event) }
        self.channel = channel
        if bridge.trace { channel.tracer = FrameTracer(role: .client, log: log) }
        sender.channel = channel
        sender.replies.connected(roundTripNanos: opened.roundTripNanos)
        channel.fitSendBuffer(roundTripNanos: opened.roundTripNanos)
        channel.onDrained = { [unowned self] in self.pump() }
        // The replay and the queue go out before the frames that came with the
        // 101 are read: one of them could end the session (--max-messages).
        replay.replay(isReconnect: isReconnect, log: log,
                      send: { sender.transmit($0, on: channel); observer?.sent($0) },
                      resend: { sender.resend($0, on: channel); observer?.sent(.text($0)) })
        sender.pump()
        let inputEnded = shell.stdin?.finished ?? interactive?.inputEnded ?? false
        handle(.connected(now: monotonicNanos(), inputEnded: inputEnded, progress: progress()))
        channel.start(leftover: opened.leftover)
        guard self.channel === channel, channel.isOpen else { return }
        startKeepAlive(channel)
        if shell.stdin == nil && interactive == nil && !bridge.receiveOnly && lifecycle.phase == .open(.streaming) {
            startStdin()
        }
        pump()
    }

    private func startKeepAlive(_ channel: WebSocketChannel) {
        guard let interval = policy.pingIntervalNanos, interval > 0 else { return }
        keepAlive = KeepAlive(
            scheduler: loop, intervalNanos: interval, timeoutNanos: policy.pingTimeoutNanos ?? interval,
            sendPing: { [weak channel] payload in channel?.sendPing(payload) },
            onDead: { [unowned self] in self.peerSilent() })
        keepAlive?.start()
    }

    /// A connection declared dead is dropped at once, without a Close handshake
    /// (wspipe(1): RECONNECT AND REPLAY).
    private func peerSilent() {
        guard let channel else { return }
        log.info("no pong within the ping timeout; dropping the connection")
        disconnect = .pingTimeout
        channel.terminate()
    }

    // MARK: stdin -> socket

    private func startStdin() {
        // A person typing gets one short hint; scripts get nothing extra.
        if StdioMode.isTerminal(0) && !log.enabled(.info) {
            log.warning("connected to \(client.url.display); one JSON message per line, Ctrl-D to close")
        }
        // The per-message closures (here and the channel's handler) skip the
        // checked unowned load, a call per message; the session owns the
        // pump and the channel and outlives both.
        let pump = shell.makeStdin(
            deliver: { [unowned(unsafe) self] message in self.deliver(message) },
            afterBatch: { [unowned self] in
                self.channel?.flush()
                self.sender.updateFlow(of: self.shell.stdin)
            },
            onEnd: { [unowned self] in
                self.channel?.flush()
                self.handle(.inputEnded(self.progress()))
            })
        pump.resume()
    }

    func deliver(_ message: OutgoingMessage) -> Bool {
        switch lifecycle.phase {
        case .closing, .ended: return false
        default: sender.deliver(message, line: shell.stdin?.lineNumber ?? 0); return true
        }
    }

    private func pump() {
        sender.pump()
        sender.updateFlow(of: shell.stdin)
        reportProgress()
    }

    // MARK: socket -> stdout

    private func channelEvent(_ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message):
            incoming(message)
        case .processed:
            shell.output.routes.flushAll()
            channel?.setReadPaused(shell.output.routes.isBackedUp)
            reportProgress()
        case .ended(let reason):
            channelEnded(reason)
        }
    }

    private func incoming(_ event: ConnectionEvent) {
        switch event {
        case .text(let payload):
            sender.replies.received()
            received(text: payload)
        case .binary(let payload):
            sender.replies.received()
            if shell.admit(bytes: payload.count) { shell.output.appendBinary(payload) }
        case .ping(let payload):
            log.debug("ping from the server (\(payload.count) bytes), pong sent")
        case .pong(let payload):
            keepAlive?.pongReceived(payload)
            observer?.pong(payload)
        case .closeReceived(let code, let reason):
            disconnect = .closedByServer(code: code, reason: reason)
        case .failed(let code, let reason):
            if code == .abnormal {
                if disconnect == nil { disconnect = .dropped(reason) }
                return
            }
            log.fatal("protocol error from the server: \(reason) (closing with \(code.rawValue))")
            disconnect = .protocolViolation(code: code, reason: reason)
            handle(.peerFailed)
        }
    }

    private func received(text payload: UnsafeRawBufferPointer) {
        let output = shell.output!
        guard replay.watchesIncoming || output.classifiesText else {
            if shell.admit(bytes: payload.count) { output.appendText(payload, to: output.routes.fallback) }
            return
        }
        var valid = false
        if case .valid = JSONScanner.validate(payload) {
            valid = true
            if let key = replay.received(json: payload) {
                shell.events.emit(EventLine.acked(key: key))
                log.debug("acknowledged: \(String(decoding: key, as: UTF8.self))")
            }
        }
        if shell.admit(bytes: payload.count) {
            output.appendText(payload, to: output.destination(forText: payload, isValidJSON: valid))
        }
    }

    private func channelEnded(_ reason: WebSocketChannel.EndReason) {
        keepAlive?.stop()
        keepAlive = nil
        // wspipe started the ending when it was closing (its Close, a
        // violation it detected) or had ended, or the peer went silent.
        let byClient = lifecycle.phase == .closing || lifecycle.phase == .closingToReconnect
            || lifecycle.phase == .ended || disconnect == .pingTimeout
        var cause = disconnect ?? {
            switch reason {
            case .lost(let text): return .dropped(text)
            case .closed: return byClient ? .closedByClient(code: .normal) : .dropped("connection closed")
            }
        }()
        if byClient, case .closedByServer(let echo, let reason) = cause { cause = .closedByClient(code: echo, reason: reason) }
        var refusal: CloseCode?
        if case .closedByServer(let code?, _) = cause, RefusedMessage.isRefusal(code) { refusal = code }
        let recovery = channel.map { sender.recoverUnsent(from: $0, refusedWith: refusal) } ?? .init()
        channel = nil
        sender.channel = nil
        let (code, clean) = cause.closeCode
        shell.events.emit(EventLine.disconnected(code: code, reason: cause.description, clean: clean,
                                                 by: byClient ? "client" : "server", unconfirmed: recovery.unconfirmed))
        observer?.disconnected(cause, byClient: byClient)
        report(recovery, refusal: refusal)
        handle(.connectionEnded(cause, now: monotonicNanos()))
    }

    // MARK: ending

    /// Last words and the exit status; what was not sent or acknowledged is
    /// reported. The destinations are written out after the loop.
    private func finish(_ outcome: ClientLifecycle.Outcome) {
        switch outcome {
        case .completed:
            break
        case .finishedByServer(let cause):
            log.info(cause.description)
        case .fatal(let cause, _):
            if case .protocolViolation = cause {} else { log.fatal(cause.description) }   // said when it happened
            hint(cause)
        case .firstAttemptFailed(let cause):
            log.fatal(cause.description)
            hint(cause)
        case .lostWithoutReconnect(let cause):
            log.fatal("connection to \(client.url.display) lost: \(cause)")
        case .gaveUp(let attempts, let cause):
            shell.events.emit(EventLine.gaveUp(attempts: attempts, reason: cause.description))
            log.fatal("giving up after \(attempts) attempt(s): \(cause)")
            hint(cause)
        }
        if let status = outcome.exitStatus { shell.status = shell.status.combined(with: status) }
        keepAlive?.stop()
        channel?.terminate()
        reportUnsent()
        reportUnacked()
        loop.stop()
    }

    /// A refused message is reported with its line and counts as not sent
    /// (exit 6); unconfirmed ones are said, since only --ack can tell.
    private func report(_ recovery: ClientSender.Recovery, refusal: CloseCode?) {
        shell.stats.unconfirmed += recovery.unconfirmed
        if recovery.unconfirmed > 0 {
            log.warning("\(recovery.unconfirmed) message(s) reached the server's TCP after it last sent anything; "
                        + "they may be lost with it (only --ack confirms delivery)")
        }
        guard let refusal else { return }
        let name = refusal.name.map { " (\($0))" } ?? ""
        guard let refused = recovery.refused else {
            log.warning("the server refused a message (\(refusal)\(name)) that wspipe can no longer tell apart; it may be lost")
            return
        }
        let which = refused.line > 0 ? "stdin:\(refused.line): message" : "a message (\(refused.bytes.count) bytes)"
        log.warning("\(which) refused by the server with \(refusal)\(name); not sent again")
        shell.events.emit(EventLine.refused(line: refused.line, code: refusal))
        shell.stats.notSent += 1
        shell.status = shell.status.combined(with: .inputRejected)
    }

    private func hint(_ cause: Disconnect) {
        if let hint = ConnectHint.hint(for: cause, secure: client.url.secure) { log.warning("hint: \(hint)") }
    }

    /// -v: the 101 response's status line and headers, as the server sent them.
    private func logResponse(_ response: HTTPHead) {
        guard log.enabled(.info) else { return }
        log.info("< " + TerminalText.escapingControls(response.startLine))
        for header in response.headers {
            log.info("< " + TerminalText.escapingControls("\(header.name): \(header.value)"))
        }
    }

    private func reportUnsent() {
        let count = sender.queuedCount + (shell.stdin?.unsentLines ?? 0)
        guard count > 0 else { return }
        shell.stats.notSent += count
        log.warning("\(count) input line(s) not sent")
        shell.status = shell.status.combined(with: .inputRejected)
    }

    private func reportUnacked() {
        let count = replay.reportUnacked(log: log, events: shell.events)
        guard count > 0 else { return }
        shell.stats.unacked = count
        shell.status = shell.status.combined(with: .inputRejected)
    }

    // MARK: SessionDriver

    func interrupted(again: Bool) {
        if !again && lifecycle.isOpen { log.info("interrupted, closing") }
        handle(.stop(.interrupted))
    }

    func stdoutLost() { handle(.stop(.stdoutLost)) }
    func maxMessagesReached() { handle(.stop(.maxMessages)) }
    func routesDrained() { channel?.setReadPaused(false) }
    func finalReport() { interactive?.finish() }
}
