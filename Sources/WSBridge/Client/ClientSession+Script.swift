import WSCore
import WSTransport
import WSMessages

/// The client as a scripted peer (wspipe(1): SCRIPTED PEER): what
/// `PeerScript` does on each connection, the --wrap of stdin lines, and
/// the --replay that takes the place of stdin. Every entry point is reached
/// through `script`, nil unless one of the flags was given.
extension ClientSession {
    /// Wires the recorder to what the session sends and the events it says.
    func wireScript() {
        guard let script, script.options.recordPath != nil else { return }
        sender.onSent = { [unowned script] message, source in
            script.recorder?.sent(message, conn: script.connections, source: source)
        }
        shell.events.recorder = { [unowned self, unowned script] line in
            // Between connections an event belongs to the next one.
            script.recorder?.event(line, conn: script.connections + (self.connection == nil ? 1 : 0))
        }
    }

    /// A connection is opening (before its connected event): it gets its
    /// number and its script.
    func scriptOpening(_ connection: ClientConnection) {
        guard let script else { return }
        script.connections += 1
        connection.script = ConnectionScript(
            conn: script.connections, peer: script, sequence: script.sequence,
            // As for stdin lines (`ClientSender.updateFlow`).
            isBehind: { [unowned self] in (self.channel?.outputBytes ?? 0) >= ClientSender.socketHighWater }
        ) { [unowned self] message, source in self.sendScripted(message, source) }
    }

    /// Whether the server is read: not while answers to it wait beyond their
    /// limit (`ConnectionScript.holdsReadingBack`) or the routes are backed up.
    var readsPaused: Bool {
        shell.output.routes.isBackedUp || connection?.script?.holdsReadingBack == true
    }

    /// The connection caught up: the answers and the heartbeat that waited go
    /// first, ahead of the queue, and the server is read again.
    func releaseScripted() {
        guard let script = connection?.script else { return }
        script.release()
        channel?.setReadPaused(readsPaused)
    }

    /// The connection is open (about to read): heartbeats and the silence watch start.
    func scriptStarted() {
        guard let script, let connection else { return }
        connection.script?.start(onSilent: { [unowned self] in self.heartbeatSilent() })
        // The answers to the read that ends the run (--max-messages, --until) go before the Close.
        if !script.answers.isEmpty {
            connection.channel.beforeDeferredClose = { [weak connection] in connection?.script?.processed(beforeClose: true) }
        }
    }

    /// The connection ended (after its disconnected event). `${seq}` counts
    /// per connection: what is rendered from now on belongs to the next one.
    func scriptEnded() {
        connection?.script?.stop()
        connection?.script = nil
        resume.restartSequence()
    }

    /// An answer or a heartbeat goes straight into the open connection, ahead
    /// of the queue, and belongs to it: after a drop it is not sent again
    /// (`ClientSender.connectionOnlyTag`).
    func sendScripted(_ message: OutgoingMessage, _ source: MessageSource) {
        guard let channel, channel.isOpen, sender.sendUncounted(message, source: source, on: channel) else { return }
        channel.flush()
        switch message {
        case .text(let bytes), .binary(let bytes): shell.sent(bytes: bytes.count)
        }
        if let script { script.recorder?.sent(message, conn: script.connections, source: source) }
        observer?.sent(message)
    }

    /// --heartbeat-timeout: nothing came for that long. The connection is
    /// dropped without a Close handshake and retried, as --ping-timeout does.
    private func heartbeatSilent() {
        guard let connection else { return }
        log.info("nothing from the server within --heartbeat-timeout; dropping the connection")
        connection.disconnect = .heartbeatTimeout
        connection.channel.terminate()
    }

    // MARK: --wrap

    /// A stdin line (raw text, valid UTF-8) sent as the --wrap message.
    func deliverWrapped(_ message: OutgoingMessage) -> Bool {
        guard lifecycle.phase != .closing, lifecycle.phase != .ended else { return false }
        guard let script, case .text(let line) = message else { return false }
        if PeerScript.isBlankWrapLine(line) { return true }
        let number = shell.stdin?.lineNumber ?? 0
        let reason = script.wrap(line, sequence: script.sequence) { sender.deliver($0, line: number) }
        if let reason {
            log.warning("stdin:\(number): --wrap message not sent: \(reason)")
            script.wrapRejected += 1
        }
        return true
    }

    // MARK: --replay

    /// The first connection is open: the recording takes the place of stdin.
    func startReplay() {
        guard let script, let schedule = script.replaySchedule(.out, rateIntervalNanos: bridge.rateIntervalNanos) else {
            return
        }
        if schedule.items.isEmpty { log.warning("--replay: the recording has no message to send") }
        log.info("replaying \(schedule.items.count) message(s)")
        let player = ReplayPlayer(
            schedule: schedule, scheduler: loop,
            deliver: { [unowned self] message, tag in
                defer { self.channel?.flush() }
                return self.deliver(message, tag: tag)
            },
            canDeliver: { [unowned self] in !self.sender.isFull },
            onEnd: { [unowned self] in
                self.channel?.flush()
                self.replayInputEnded(recording: true)
            })
        script.player = player
        player.start()
    }

    /// A client's --replay is what it sends: stdin is read only to say which
    /// of its lines were not sent (rather than leave them unread, unsaid).
    func startStdinBesideReplay() {
        let pump = shell.makeStdin(
            deliver: { [unowned self] _ in
                self.script?.stdinBesideReplay.add(tag: self.shell.stdin?.lineNumber ?? 0)
                return true
            },
            afterBatch: {}, onEnd: { [unowned self] in self.replayInputEnded(recording: false) })
        pump.resume()
    }

    /// The recording or stdin beside it has ended. The recording is the run:
    /// once it has been played, the stdin lines already written are read and
    /// counted, and stdin is not waited for (a pipe nobody closes would hold
    /// the run open after its script; stdin at a terminal is not read).
    func replayInputEnded(recording: Bool) {
        guard let script else { return }
        script.replayInput = script.replayInput.after(recordingEnded: recording)
        if script.replayInput == .stdin, let stdin = shell.stdin {
            stdin.drainAvailable()  // its end, when reached, comes back here
            if script.replayInput == .stdin { script.replayInput = .ended }
            else { return }
        }
        if script.replayInput == .ended { handle(.inputEnded(progress())) }
    }

    /// Nothing more is taken from the input: stdin, or the --replay.
    func stopScriptedInput() {
        script?.player?.stop()
    }

    /// Last reports: the --replay messages that were not sent, a failed --record.
    func scriptFinalReport() {
        guard let script else { return }
        if let player = script.player, player.remaining + player.unsent > 0 {
            let notSent = player.tallyRemaining()
            log.warning("\(notSent.phrase) of the --replay not sent")
            shell.stats.notSent += notSent.count
            shell.status = shell.status.combined(with: .inputRejected)
        }
        if !script.stdinBesideReplay.isEmpty {
            let lines = script.stdinBesideReplay
            log.warning("\(lines.phrase) not sent: in client mode --replay sends the recording, not stdin")
            shell.stats.notSent += lines.count
            shell.status = shell.status.combined(with: .inputRejected)
        }
        script.finalReport(&shell.status, stats: &shell.stats)
    }
}
