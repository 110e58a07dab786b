import WSTransport
import WSMessages

/// The decisions a session makes about what happens to the shell it runs in.
protocol SessionDriver: AnyObject {
    /// SIGINT or SIGTERM (the status already says which); `again` from the
    /// second one on, which must end the run at once.
    func interrupted(again: Bool)
    /// stdout went away: a reader that stopped (`| head -1`), or an error
    /// that was already reported.
    func stdoutLost()
    /// The --max-messages-th incoming message was admitted.
    func maxMessagesReached()
    /// The route destinations caught up: reading the peer(s) may resume.
    func routesDrained()
    /// After the loop, before the --stats line: last reports into the status.
    func finalReport()
    /// SIGCHLD (only with `SessionShell.watchesChildren`): some child may have
    /// exited; the driver reaps its own with `waitpid(pid, WNOHANG)`.
    func childrenExited()
}

extension SessionDriver {
    func childrenExited() {}
}

/// What the client and the server sessions share: the event loop, where
/// incoming messages go (`MessageOutput`), stdin, the signal watch, the exit
/// status and the --stats counters. The run goes: set up, loop until the
/// session ends (`end()`), write every destination out on the loop
/// (`OutputDrain`, SessionShell+Draining.swift), report.
final class SessionShell {
    let loop = EventLoop()
    let bridge: BridgeOptions
    let log: Diagnostics
    let events: EventSink
    private(set) var output: MessageOutput!
    private(set) var stdin: StdinPump?
    private var signals: SignalWatcher?
    /// Not weak, nor retained (UnretainedReferences.swift).
    private var driverReference: DriverReference?
    private var driver: SessionDriver? { driverReference?.driver }
    var status = ExitStatus.success
    /// Interactive mode (set before `run`): SIGHUP ends the run like SIGTERM,
    /// and SIGWINCH calls this.
    var onWindowResize: (() -> Void)?
    var stats = SessionStats()
    /// Set before `run` by a session that starts children it must reap
    /// (--exec): SIGCHLD is then watched too.
    var watchesChildren = false
    private var messagesReceived = 0
    private(set) var interrupts = 0
    /// --codec: binary messages in become JSON lines (`MessageCodec`).
    let codec: MessageCodec?
    /// The last phase, after the session has ended.
    var drain: OutputDrain
    var drainTimer: EventLoop.TimerID?

    init(bridge: BridgeOptions, log: Diagnostics, events: EventSink) {
        self.bridge = bridge
        self.log = log
        self.events = events
        codec = bridge.codec.map { MessageCodec(format: $0, maxMessageSize: bridge.maxMessageSize, log: log) }
        drain = OutputDrain(timeoutNanos: bridge.closeTimeoutNanos)
    }

    /// Runs the session: `start` opens what it needs (a connection attempt,
    /// a listener); the loop runs until the driver stops it.
    func run(_ driver: SessionDriver, start: () throws -> Void) -> ExitStatus {
        defer { StdioMode.restoreAll() }
        driverReference = DriverReference(driver)
        do {
            output = try MessageOutput(bridge: bridge, loop: loop, log: log, events: events)
            output.onStdoutLost = { [unowned self] error in self.stdoutLost(error) }
            output.routes.onDrained = { [unowned self] in self.driver?.routesDrained() }
            watchSignals()
            try start()
        } catch {
            log.fatal("\(error)")
            return .runtimeError
        }
        loop.run()
        // The loop failed or ran out of work before the session ended: write out as before, blocking.
        // (Otherwise only what commands' output left in stdout or stderr remains to write.)
        output.routes.finish(waitingForCommands: drain.phase != .done)
        output.reportFailures(&status, ignoringRouteErrors: bridge.routeErrorsIgnored)
        stats.invalidLines = stdin?.rejectedLines ?? 0
        if let stdin, stdin.rejectedLines > 0 { status = status.combined(with: .inputRejected) }
        driver.finalReport()
        codec?.finalReport(&status)
        if bridge.stats { events.write(stats.jsonLine(time: UTCTimestamp.now())) }
        return status
    }

    /// Creates the stdin pump (paused: the session resumes it when there is
    /// somewhere to send).
    func makeStdin(deliver: @escaping (OutgoingMessage) -> Bool, afterBatch: @escaping () -> Void,
                   onEnd: @escaping () -> Void) -> StdinPump {
        let pump = StdinPump(loop: loop, settings: bridge.stdinSettings, log: log,
                             deliver: deliver, afterBatch: afterBatch, onEnd: onEnd)
        pump.events = events
        stdin = pump
        return pump
    }

    /// Counts one incoming data message of `bytes` bytes; false when it must
    /// not be written (-u, or --max-messages already reached).
    func admit(bytes: Int) -> Bool {
        stats.messagesIn += 1
        stats.bytesIn += bytes
        if bridge.sendOnly || admissionClosed { return false }
        guard let max = bridge.maxMessages else { return true }
        if messagesReceived >= max { return false }
        messagesReceived += 1
        if messagesReceived == max {
            log.info("received \(max) message(s), closing")
            driver?.maxMessagesReached()
        }
        return true
    }

    /// The run has what it waited for (--until): later messages are counted
    /// but not written.
    func closeAdmission() { admissionClosed = true }
    private var admissionClosed = false

    /// Counts one outgoing data message.
    func sent(bytes: Int) {
        stats.messagesOut += 1
        stats.bytesOut += bytes
    }

    /// Quietly for a reader that stopped, with the error otherwise.
    private func stdoutLost(_ error: String?) {
        if let error {
            log.fatal(error)
            status = status.combined(with: .runtimeError)
        }
        stdin?.stop()
        driver?.stdoutLost()
    }

    private func watchSignals() {
        let terminal: [Signal] = onWindowResize == nil ? [] : [.hangup, .windowChanged]
        // SIGCHLD for --exec programs, and for |COMMAND routes, waited for at the end.
        let children: [Signal] = watchesChildren || output.routes.hasCommands ? [.childExited] : []
        guard let watcher = try? SignalWatcher(signals: [.interrupt, .terminate] + terminal + children) else { return }
        signals = watcher
        loop.watch(watcher.fd, .read) { [unowned self] _ in
            for signal in watcher.drain() {
                switch signal {
                case .windowChanged: self.onWindowResize?()
                case .childExited:
                    self.driver?.childrenExited()
                    self.commandsMayHaveExited()
                default: self.interrupted(by: signal)
                }
            }
        }
    }

    private func interrupted(by signal: Signal) {
        interrupts += 1
        status = status.combined(with: signal == .terminate ? .terminated : signal == .hangup ? .hangup : .interrupted)
        stdin?.stop()
        // Once the session has ended, the signal is the drain's.
        if drain.phase != .running { return handleDrain(.interrupted(again: interrupts > 1)) }
        driver?.interrupted(again: interrupts > 1)
    }
}

