import WSCore
import WSTransport
import WSMessages
import WSConnect

/// The client mode (wspipe(1): SYNOPSIS; RECONNECT AND REPLAY; OPTIONS,
/// Ending): connect, pump stdin lines to the server and its messages to
/// stdout, survive drops, then end. `ClientLifecycle` decides what happens
/// next; this class turns I/O into its events and performs its actions.
/// Returns the exit status.
public final class ClientSession: SessionDriver {
    let client: ClientOptions
    let policy: SessionPolicy
    let shell: SessionShell
    /// Feeds `ClientLifecycle` and arms its timers; events raised while its
    /// actions are performed wait their turn (`PhaseDriver`).
    let driver: PhaseDriver<ClientLifecycle>
    var lifecycle: ClientLifecycle { _read { yield driver.machine } }
    let resume: ResumeCoordinator
    let sender: ClientSender
    private lazy var tls = TLSContextSource(options: client.tls)
    private var connector: ClientConnector?
    /// What -w and --stats report beyond the counters.
    var metrics = SessionMetrics()
    /// The open connection (from `opened(_:on:)` until its end has been
    /// handled): its channel, keep-alive, script and why it ends.
    var connection: ClientConnection?
    var channel: WebSocketChannel? { connection?.channel }
    /// `pumpSoon` is waiting for its turn of the loop.
    private var pumpScheduled = false
    /// The last attempt's request carried a credential (for the hint after a 401).
    var lastAttemptAuthorized = false
    /// The last refusal's WWW-Authenticate (`ConnectHint`).
    var lastAttemptChallenge: String?
    /// --until and --idle-timeout.
    lazy var ending = ScriptedEnding(until: policy.until, idleNanos: policy.idleTimeoutNanos, clock: loop) {
        [unowned self] reason in
        guard self.lifecycle.phase != .ended else { return }   // the output is being written out
        self.log.info(reason == .untilMatched ? "--until matched; closing" : "no message within --idle-timeout; closing")
        if reason == .untilMatched { self.shell.closeAdmission() }
        self.handle(.stop(reason))
    }
    /// Whether `ending` looks at incoming messages at all (--until or
    /// --idle-timeout): without either, a message skips the call (and the
    /// lazy load and reference count that come with it).
    let endingWatchesMessages: Bool
    /// Some hook looks at each incoming message (--until, --idle-timeout, the
    /// scripted peer): without one, a message skips the call.
    let watchesMessages: Bool
    /// Interactive mode (ClientSession+Interactive.swift): the terminal side,
    /// and what it is told of the lifecycle; nil in a pipe.
    let interactive: InteractiveFrontend?
    let observer: ClientSessionObserver?
    /// --answer, --heartbeat, --wrap, --record, --replay (ClientSession+Script.swift); nil without them.
    let script: PeerScript?
    /// --socketio: the current connection's Socket.IO side (ClientSession+SocketIO.swift); nil without it.
    var socketIO: SocketIOClientLink?

    var loop: EventLoop { shell.loop }
    /// The one clock the session's rules read (the loop's).
    var clock: any TimerScheduling { shell.loop }
    var log: Diagnostics { shell.log }
    var bridge: BridgeOptions { shell.bridge }

    public init(client: ClientOptions, bridge: BridgeOptions, policy: SessionPolicy, log: Diagnostics,
                events: EventSink) {
        self.client = client
        self.policy = policy
        endingWatchesMessages = policy.until != nil || policy.idleTimeoutNanos != nil
        shell = SessionShell(bridge: bridge, log: log, events: events)
        script = PeerScript(options: bridge.script, typeKey: bridge.typeKey, scheduler: shell.loop, log: log,
                            codec: shell.codec)
        watchesMessages = endingWatchesMessages || script != nil
        let sequence = script?.sequence ?? SequenceCounter()
        resume = ResumeCoordinator(policy: policy, maxMessageSize: bridge.maxMessageSize, sequence: sequence,
                                   codec: bridge.codec)
        script?.captures = { [resume] in resume.captureValues }
        sender = ClientSender(shell: shell, resume: resume, queueLimit: policy.queueLimit)
        sender.replies = ReplyTracker(replyPath: policy.replyPath, match: policy.replyMatch,
                                      lingerNanos: policy.lingerNanos, readsJSON: bridge.format == .json,
                                      socketIO: bridge.socketIO != nil)
        driver = PhaseDriver(ClientLifecycle(policy: .init(policy, bridge), backoff: Backoff(policy: policy.backoff)),
                             clock: shell.loop) { .timerFired(.init(queueEmpty: true, acksPending: false, inputOver: false)) }
        interactive = policy.interactive.map { [shell, resume] in
            InteractiveFrontend(settings: $0, bridge: bridge, loop: shell.loop, log: log, events: events,
                                templates: .init(captureNames: policy.captures.map(\.name),
                                                 captures: { resume.captureValues }, nextSequence: sequence.next,
                                                 environment: ProcessEnvironment.variable))
        }
        observer = interactive
        if let interactive { sender.onResent = { interactive.sent(.text($0)) } }
        if bridge.socketIO != nil { wireSocketIO() }
        wireInteractive()
        wireScript()
        wireLifecycle()
    }

    public func run() -> ExitStatus {
        shell.run(self) {
            if client.url.secure { _ = try tls.context() }
            try script?.openRecording()
            try startInteractive()
            handle(.start)
            // stdin is read while the first attempt runs: its lines wait in
            // the queue, and its end is known when the connection opens (a
            // server that closes at once is then answered at once).
            let readsStdin = interactive == nil && !bridge.receiveOnly
            if script?.options.replay == nil {
                if readsStdin { startStdin() }
            } else if readsStdin && !StdioMode.isTerminal(0) {
                startStdinBesideReplay()
            } else {
                script?.replayInput = .recording
            }
        }
    }

    // MARK: the lifecycle

    func handle(_ event: ClientLifecycle.Event) {
        driver.handle(event)
    }

    /// The driver performs the lifecycle's actions here; its timer's event
    /// carries the delivery's progress when it fires.
    private func wireLifecycle() {
        driver.perform = { [unowned self] action in self.perform(action) }
        driver.willArmTimer = { [unowned self] in
            _ = self.channel?.takeProgress()   // the closing phase's timer counts from now
        }
        driver.timerEvent = { [unowned self] in
            var progress = self.progress()
            progress.peerProgressed = self.channel?.takeProgress() ?? false
            return .timerFired(progress)
        }
        driver.phaseChanged = { [unowned self] before in
            if self.lifecycle.phase == .closing && before != .closing { self.sayWhyTheWaitEnded() }
        }
    }

    /// -v: why the Close goes out once stdin is over (the one-shot rule,
    /// wspipe(1) --linger), as the other endings say theirs. The tracker
    /// has a reason only when its last answer ended the wait.
    private func sayWhyTheWaitEnded() {
        if let reason = sender.replies.takeCloseReason() { log.info(reason.description) }
    }

    /// What the lifecycle needs to know about delivery. Replies owed matter
    /// only once the input is over and everything is out.
    func progress() -> ClientLifecycle.Progress {
        var progress = ClientLifecycle.Progress(queueEmpty: sender.queueEmpty, acksPending: resume.acksPending,
                                                inputOver: inputOver)
        if progress.queueEmpty && !progress.acksPending && inputOver && channel != nil {
            progress.replyWaitNanos = sender.replies.wait(now: clock.nowNanos)
        }
        return progress
    }

    /// The input is over: stdin's, the console's, or (a --replay's
    /// recording being the input, its stdin only watched) the playback's.
    var inputOver: Bool {
        if script?.options.replay != nil { return script?.player?.finished ?? false }
        return shell.stdin?.finished ?? interactive?.inputEnded ?? false
    }

    func reportProgress() {
        if lifecycle.wantsProgress { handle(.progressed(progress())) }
    }

    private func perform(_ action: ClientLifecycle.Action) {
        switch action {
        case .connect(let attempt):
            connect(attempt: attempt)
        case .announceRetry(let attempt, let delay, let cause, let wasOpen):
            shell.events.emit(EventLine.reconnecting(attempt: attempt, delayMs: delay / 1_000_000))
            // One line per attempt (the interactive transcript shows its own notes).
            if observer == nil {
                let next = "in \(ClientConnector.seconds(delay)) (attempt \(attempt))"
                log.warning(wasOpen ? "connection lost (\(cause)); reconnecting \(next)"
                                    : "attempt \(attempt - 1) failed (\(cause)); retrying \(next)")
            }
            observer?.retrying(attempt: attempt, delayNanos: delay, cause: cause, wasOpen: wasOpen)
        case .sendClose(let code, let reason):
            channel?.close(code: code, reason: reason)
        case .dropConnection:
            log.info("no Close from the server, nor any progress, within the close timeout; closing")
            if connection?.disconnect == nil { connection?.disconnect = .dropped("no Close from the server within the close timeout") }
            channel?.terminate()
        case .restartTimer:
            driver.restartTimer()
        case .cancelAttempt:
            connector?.cancel()
            connector = nil
            cancelSocketIOHandshake()
        case .reportUnacked:
            reportUnacked()
        case .stopInput:
            shell.stdin?.stop()
            stopScriptedInput()
        case .finish(let outcome):
            stopScriptedInput()
            finish(outcome)
        }
    }

    // MARK: connecting

    private func connect(attempt: Int) {
        shell.events.emit(EventLine.connecting(url: client.url.display, attempt: attempt))
        observer?.connecting(url: client.url.display, attempt: attempt)
        log.info("connecting to \(client.url.display)" + (attempt > 1 ? " (attempt \(attempt))" : ""))
        let connector = ClientConnector(options: client, tls: tls, loop: loop, log: log,
                                        childErrors: { [unowned self] in
            ChildOutput.errorCopy(of: $0, to: try? self.shell.output.routes.inheritedDestination(.stderr), loop: self.loop) })
        self.connector = connector
        watchHandshakes(connector)
        connector.start { [unowned self, connector] result in
            self.connector = nil
            self.lastAttemptAuthorized = connector.sentAuthorization
            self.lastAttemptChallenge = connector.challenge
            switch result {
            case .success(let opened): self.opened(opened)
            case .failure(let failure):
                self.shell.events.emit(EventLine.connectFailed(attempt: self.lifecycle.attempts, error: failure.description))
                self.handle(.attemptFailed(failure.disconnect))
            }
        }
    }

    private func opened(_ opened: OpenedConnection) {
        let channel = WebSocketChannel(stream: opened.stream, role: .client, maxMessageSize: bridge.maxMessageSize,
                                       compression: opened.compression, tunneled: opened.tunneled,
                                       loop: loop) { [session = unretainedSelf] event in
            session.use { $0.channelEvent(event) }
        }
        if bridge.trace { channel.tracer = FrameTracer(role: .client, log: log) }
        // --socketio: the connection opens once every namespace is connected
        // (ClientSession+SocketIO.swift), which reads the channel first.
        if bridge.socketIO != nil { return handshakeSocketIO(opened, on: channel) }
        if bridge.format == .json { channel.readsTextAsJSON() }
        self.opened(opened, on: channel)
    }

    /// The connection is open (the WebSocket's, or Socket.IO's once its
    /// namespaces are connected, when the channel is read already).
    func opened(_ opened: OpenedConnection, on channel: WebSocketChannel) {
        let isReconnect = lifecycle.everConnected
        let connection = ClientConnection(channel: channel)
        self.connection = connection
        scriptOpening(connection)
        if isReconnect { shell.stats.reconnects += 1 }
        metrics.opened(opened.url, redirects: opened.redirects, timings: opened.timings)
        shell.events.emit(EventLine.connected(url: opened.url.display, attempt: lifecycle.attempts,
                                              protocol: opened.subprotocol))
        log.info("connected to \(opened.url.display)" + (opened.subprotocol.map { " (protocol \($0))" } ?? ""))
        logResponse(opened.response)
        observer?.connected(url: opened.url.display, subprotocol: opened.subprotocol,
                            extensions: opened.response.value("Sec-WebSocket-Extensions"))
        sender.channel = channel
        scriptStarted()
        sender.replies.connected(roundTripNanos: opened.roundTripNanos)
        channel.fitSendBuffer(roundTripNanos: opened.roundTripNanos)
        channel.onDrained = { [unowned self] in self.pumpSoon() }
        // The resume and the queue go out before the frames that came with the
        // 101 are read: one of them could end the session (--max-messages).
        // A peer that resets the connection while they go out ends the
        // channel before the lifecycle knows it is open: that end waits
        // (`ClientConnection.Phase.opening`).
        sender.source = .onConnect
        resume.resume(isReconnect: isReconnect, log: log,
                      send: { sender.transmit($0, line: MessageTag.uncounted, on: channel); observer?.sent($0) })
        sender.source = .input
        sender.pump()
        handle(.connected(now: clock.nowNanos, inputEnded: inputOver, progress: progress()))
        if let reason = connection.finishOpening() { return channelEnded(reason) }
        guard lifecycle.phase != .ended else { return }
        ending.connected()
        if socketIO == nil { channel.start(leftover: opened.leftover) } else { socketIOOpened() }
        guard self.channel === channel, channel.isOpen else { return }
        startKeepAlive(connection)
        // The --replay takes the place of stdin from the first connection on.
        if script?.options.replay != nil && script?.player == nil && !bridge.receiveOnly { startReplay() }
        // A person typing gets one short hint; scripts get nothing extra.
        if !isReconnect && shell.stdin?.finished == false && StdioMode.isTerminal(0) && !log.enabled(.info) {
            log.warning("connected to \(client.url.display); one JSON message per line, Ctrl-D to close")
        }
        pump()
    }

    private func startKeepAlive(_ connection: ClientConnection) {
        guard let interval = policy.pingIntervalNanos, interval > 0 else { return }
        let channel = connection.channel
        let keepAlive = KeepAlive(
            scheduler: loop, intervalNanos: interval, timeoutNanos: policy.pingTimeoutNanos ?? interval,
            sendPing: { [weak channel] payload in channel?.sendPing(payload) },
            onDead: { [unowned self] in self.peerSilent() },
            progress: { [weak channel] in channel?.progressMark() })
        keepAlive.onRoundTrip = { [unowned self] nanos in self.pongArrived(roundTrip: nanos) }
        connection.keepAlive = keepAlive
        keepAlive.start()
    }

    /// A connection declared dead is dropped at once, without a Close handshake
    /// (wspipe(1): RECONNECT AND REPLAY).
    private func peerSilent() {
        guard let connection else { return }
        log.info("no pong within the ping timeout; dropping the connection")
        connection.disconnect = .pingTimeout
        connection.channel.terminate()
    }

    // MARK: stdin -> socket

    private func startStdin() {
        // The per-message closures (here and the channel's handler) hold the
        // session unretained (UnretainedReferences.swift).
        let pump = shell.makeStdin(
            deliver: script?.wraps == true ? { [unowned self] message in self.deliverWrapped(message) }
                : { [session = unretainedSelf] message in session.use { $0.deliver(message) } },
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

    /// `tag`: the message's (`MessageTag`); by default its stdin line.
    func deliver(_ message: OutgoingMessage, tag: Int? = nil) -> Bool {
        switch lifecycle.phase {
        case .closing, .ended: return false
        default: sender.deliver(message, line: tag ?? shell.stdin?.lineNumber ?? 0); return true
        }
    }

    private func pump() {
        releaseScripted()
        sender.pump()
        sender.updateFlow(of: shell.stdin)
        script?.player?.resume()
        reportProgress()
    }

    /// The socket took everything: the queue goes on after a turn of the
    /// loop, not from inside the write. Pumped from there, a queue that
    /// filled while connecting went out in one go while the socket took it,
    /// and nothing the server sent meanwhile (its messages, the signs of life
    /// that confirm delivery) was read until the end of it.
    private func pumpSoon() {
        guard !pumpScheduled else { return }
        pumpScheduled = true
        loop.schedule(afterNanos: 0) { [unowned self] in
            self.pumpScheduled = false
            self.pump()
        }
    }

    // MARK: SessionDriver

    func interrupted(again: Bool) {
        if !again && lifecycle.isOpen { log.info("interrupted, closing") }
        handle(.stop(.interrupted))
    }

    func stdoutLost() { handle(.stop(.stdoutLost)) }
    func maxMessagesReached() { handle(.stop(.maxMessages)) }
    func routesDrained() { channel?.setReadPaused(readsPaused) }
    func finalReport() {
        interactive?.finish()
        ending.reportUnmatched(log: log, status: &shell.status)
        scriptFinalReport()
        checkReplyBudget()
        socketIOFinalReport()
        reportMetrics()
    }
}
