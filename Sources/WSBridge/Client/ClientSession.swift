import WSCore
import WSTransport

/// The client mode (wspipe(1): SYNOPSIS; RECONNECT AND REPLAY; OPTIONS, Ending): connect, pump stdin lines to the server
/// and its messages to stdout, survive drops (backoff, keepalive, a queue,
/// replay and acks), then end as wspipe(1): OPTIONS, Ending says. Returns the exit status.
///
/// Outgoing messages take one of two paths: straight into the connection when
/// it is open and nothing is waiting, or into the queue, which is emptied into
/// the next connection after the replayed messages. No line read from stdin
/// is ever dropped silently: it is sent, or counted and reported at the end.
public final class ClientSession {
    private let client: ClientOptions
    private let bridge: BridgeOptions
    private let policy: SessionPolicy
    private let log: Diagnostics
    private let events: EventSink

    private let loop = EventLoop()
    private var output: MessageOutput!
    private var stdin: StdinPump?
    private var signals: SignalWatcher?
    private var tls: TLSContext?
    private var connector: ClientConnector?
    private var channel: WebSocketChannel?
    private var keepAlive: KeepAlive?

    private var backoff: Backoff
    private var attempts = 0
    private var everConnected = false
    private var retryTimer: EventLoop.TimerID?
    private var queue = OutboundQueue()
    private var ledger: AckLedger?
    private var captures: CaptureTable
    private var replayTranslator: InputTranslator
    private let ackPathBytes: [[UInt8]]?
    private var stats = SessionStats()
    /// Why the current connection is ending, once known.
    private var disconnect: Disconnect?

    private var status = ExitStatus.success
    private var messagesReceived = 0
    private var stdinEnded = false
    /// Our Close is on its way: whatever happens next ends the session.
    private var closing = false
    /// The session is over; only stdout remains to be written.
    private var ending = false
    private var closeTimer: EventLoop.TimerID?
    private var ackTimer: EventLoop.TimerID?
    private var ackWaitOver = false
    private var finishCheckPending = false
    private var interrupts = 0

    /// Above this much unwritten socket output, messages wait in the queue.
    private let socketHighWater = 4 << 20

    public init(client: ClientOptions, bridge: BridgeOptions, policy: SessionPolicy, log: Diagnostics,
                events: EventSink) {
        self.client = client
        self.bridge = bridge
        self.policy = policy
        self.log = log
        self.events = events
        self.backoff = Backoff(policy: policy.backoff)
        self.captures = CaptureTable(policy.captures)
        self.ledger = policy.ackPath.map { AckLedger(path: $0) }
        self.ackPathBytes = policy.ackPath.map { $0.map { Array($0.utf8) } }
        self.replayTranslator = InputTranslator(format: .json, lenient: false, maxPendingBytes: bridge.maxMessageSize)
    }

    public func run() -> ExitStatus {
        defer { StdioMode.restoreAll() }
        watchSignals()
        do {
            output = try MessageOutput(bridge: bridge, loop: loop, log: log, events: events)
            tls = client.url.secure ? try TLSContext.client(client.tls) : nil
        } catch {
            log.fatal("\(error)")
            return .runtimeError
        }
        output.onStdoutLost = { [unowned self] error in self.stdoutLost(error) }
        output.routes.onDrained = { [unowned self] in self.channel?.setReadPaused(false) }
        connect()
        loop.run()
        output.finish(&status, ignoringRouteErrors: bridge.routeErrorsIgnored)
        stats.invalidLines = stdin?.rejectedLines ?? 0
        if bridge.stats { events.write(stats.jsonLine()) }
        return status
    }

    // MARK: connecting

    private func connect() {
        retryTimer = nil
        attempts += 1
        events.emit(EventLine.connecting(url: client.url.display, attempt: attempts))
        log.info("connecting to \(client.url.display)" + (attempts > 1 ? " (attempt \(attempts))" : ""))
        let connector = ClientConnector(options: client, tlsContext: tls, loop: loop, log: log)
        self.connector = connector
        connector.start { [unowned self] result in
            self.connector = nil
            switch result {
            case .success(let opened): self.opened(opened)
            case .failure(let failure): self.ended(failure.disconnect, wasOpen: false)
            }
        }
    }

    private func opened(_ opened: OpenedConnection) {
        let isReconnect = everConnected
        if isReconnect { stats.reconnects += 1 }
        everConnected = true
        backoff.reset()
        disconnect = nil
        events.emit(EventLine.connected(url: client.url.display, attempt: attempts, protocol: opened.subprotocol))
        log.info("connected to \(client.url.display)" + (opened.subprotocol.map { " (protocol \($0))" } ?? ""))
        let channel = WebSocketChannel(stream: opened.stream, role: .client, maxMessageSize: bridge.maxMessageSize,
                                       compression: opened.compression,
                                       loop: loop) { [unowned self] event in self.channelEvent(event) }
        self.channel = channel
        channel.onDrained = { [unowned self] in self.pump() }
        // The replay is queued before the first frames that came with the 101
        // are read: one of them could end the session (--max-messages) or the
        // connection, and the on-connect messages must still go first.
        replay(isReconnect: isReconnect, on: channel)
        channel.start(leftover: opened.leftover)
        guard self.channel === channel, channel.isOpen else { return }
        startKeepAlive(channel)
        // stdin is read from the first connection on: a first connection that
        // fails has consumed no line, and none can go out before the 101.
        if stdin == nil && !bridge.receiveOnly {
            // A person typing gets one short hint; scripts get nothing extra.
            if !isReconnect && StdioMode.isTerminal(0) && !log.enabled(.info) {
                log.warning("connected to \(client.url.display); one JSON message per line, Ctrl-D to close")
            }
            startStdin()
        }
        pump()
    }

    private func startKeepAlive(_ channel: WebSocketChannel) {
        guard let interval = policy.pingIntervalNanos, interval > 0 else { return }
        let keepAlive = KeepAlive(
            loop: loop, intervalNanos: interval, timeoutNanos: policy.pingTimeoutNanos ?? interval,
            sendPing: { [weak channel] payload in channel?.sendPing(payload) },
            onDead: { [unowned self] in self.peerSilent() })
        self.keepAlive = keepAlive
        keepAlive.start()
    }

    /// wspipe(1): RECONNECT AND REPLAY: a connection declared dead is dropped at once, no Close handshake.
    private func peerSilent() {
        guard let channel else { return }
        log.info("no pong within the ping timeout; dropping the connection")
        disconnect = .pingTimeout
        channel.terminate()
    }

    /// On-connect (or on-reconnect) messages, then the messages still waiting
    /// for an ack, before anything queued (wspipe(1): RECONNECT AND REPLAY).
    private func replay(isReconnect: Bool, on channel: WebSocketChannel) {
        let templates = isReconnect && !policy.onReconnect.isEmpty ? policy.onReconnect : policy.onConnect
        for template in templates {
            var line = captures.substitute(template)
            let outcome = line.withUnsafeMutableBytes { bytes in
                replayTranslator.translate(UnsafeRawBufferPointer(bytes)) { message in transmit(message, on: channel) }
            }
            if case .rejected(let rejection) = outcome {
                log.warning("on-connect message not sent: \(rejection.reason): \(String(decoding: line, as: UTF8.self))")
            }
            line.removeAll()
        }
        guard let ledger, !ledger.isEmpty else { return }
        log.info("re-sending \(ledger.count) unacknowledged message(s)")
        ledger.forEachHeld { payload in
            channel.send(.text(payload))
            stats.messagesOut += 1
            stats.bytesOut += payload.count
        }
    }

    // MARK: stdin -> socket

    private func startStdin() {
        let pump = StdinPump(loop: loop, settings: bridge.stdinSettings, log: log,
                             deliver: { [unowned self] message in self.deliver(message) },
                             afterBatch: { [unowned self] in self.afterStdinBatch() },
                             onEnd: { [unowned self] in self.stdinFinished() })
        pump.events = events
        stdin = pump
        pump.resume()
    }

    /// A message from stdin: straight out when the way is clear, else queued.
    private func deliver(_ message: OutgoingMessage) -> Bool {
        if closing || ending { return false }
        if let channel, channel.isOpen, queue.isEmpty, channel.outputBytes < socketHighWater {
            transmit(message, on: channel)
        } else {
            queue.append(message)
        }
        return true
    }

    private func transmit(_ message: OutgoingMessage, on channel: WebSocketChannel) {
        channel.send(message)
        stats.messagesOut += 1
        switch message {
        case .text(let bytes):
            stats.bytesOut += bytes.count
            if ledger != nil { ledger!.sent(bytes) }
        case .binary(let bytes):
            stats.bytesOut += bytes.count
        }
    }

    private func afterStdinBatch() {
        channel?.flush()
        updateStdinFlow()
    }

    /// Moves queued messages into the open connection while its output is short.
    private func pump() {
        if let channel, channel.isOpen, !closing {
            while channel.outputBytes < socketHighWater, let message = queue.popFirst() {
                message.withOutgoing { transmit($0, on: channel) }
            }
            channel.flush()
        }
        updateStdinFlow()
        tryFinish()
    }

    /// Back-pressure (wspipe(1): RECONNECT AND REPLAY): stop reading stdin while the queue is at its
    /// limit or the socket is not keeping up.
    private func updateStdinFlow() {
        guard let stdin, !stdin.finished else { return }
        let socketBusy = (channel?.outputBytes ?? 0) >= socketHighWater
        if queue.byteCount >= policy.queueLimit || socketBusy { stdin.pause() } else { stdin.resume() }
    }

    private func stdinFinished() {
        stdinEnded = true
        channel?.flush()
        tryFinish()
    }

    /// At stdin EOF (wspipe(1): OPTIONS, Ending): flush the queue, wait for acks, then Close 1000.
    private func tryFinish() {
        guard stdinEnded, !closing, !ending, let channel, channel.isOpen, queue.isEmpty else { return }
        if let ledger, !ledger.isEmpty, !ackWaitOver {
            if ackTimer == nil {
                ackTimer = loop.schedule(afterNanos: policy.ackTimeoutNanos) { [unowned self] in
                    self.ackTimer = nil
                    self.ackWaitOver = true
                    self.reportUnacked()
                    self.tryFinish()
                }
            }
            return
        }
        if bridge.noClose { return }
        startClosing()
    }

    // MARK: socket -> stdout

    private func channelEvent(_ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message): connectionEvent(message)
        case .processed:
            output.routes.flushAll()
            channel?.setReadPaused(output.routes.isBackedUp)
            if finishCheckPending { finishCheckPending = false; tryFinish() }
        case .ended(let reason): channelEnded(reason)
        }
    }

    private func connectionEvent(_ event: ConnectionEvent) {
        switch event {
        case .text(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            received(text: payload)
        case .binary(let payload):
            stats.messagesIn += 1
            stats.bytesIn += payload.count
            if acceptMessage() { output.appendBinary(payload) }
        case .ping(let payload):
            log.debug("ping from the server (\(payload.count) bytes), pong sent")
        case .pong(let payload):
            keepAlive?.pongReceived(payload)
        case .closeReceived(let code, let reason):
            disconnect = .closedByServer(code: code, reason: reason)
        case .failed(let code, let reason):
            if code == .abnormal {
                if disconnect == nil { disconnect = .dropped(reason) }
                return
            }
            log.fatal("protocol error from the server: \(reason) (closing with \(code.rawValue))")
            disconnect = .protocolViolation(code: code.rawValue, reason: reason)
            armCloseTimer()   // the core queued the Close; wait for the echo briefly
        }
    }

    private func received(text payload: UnsafeRawBufferPointer) {
        guard ledger != nil || !captures.isEmpty || output.classifiesText else {
            if acceptMessage() { output.appendText(payload, to: output.routes.fallback) }
            return
        }
        var valid = false
        if case .valid = JSONScanner.validate(payload) {
            valid = true
            captures.observe(payload)
            if ledger != nil, let key = ledger!.receivedAck(payload)?.key {
                events.emit(EventLine.acked(key: key))
                log.debug("acknowledged: \(String(decoding: key, as: UTF8.self))")
                // Not from inside the connection's callback: after this input.
                if ledger!.isEmpty { finishCheckPending = true }
            }
        }
        if acceptMessage() { output.appendText(payload, to: output.destination(forText: payload, isValidJSON: valid)) }
    }

    /// Counts a data message; false once --max-messages is reached or with -u.
    private func acceptMessage() -> Bool {
        if bridge.sendOnly { return false }
        if let max = bridge.maxMessages, messagesReceived >= max { return false }
        messagesReceived += 1
        if let max = bridge.maxMessages, messagesReceived == max {
            log.info("received \(max) message(s), closing")
            stdin?.stop()
            startClosing()
        }
        return true
    }

    private func channelEnded(_ reason: WebSocketChannel.EndReason) {
        keepAlive?.stop()
        keepAlive = nil
        if let closeTimer { loop.cancel(closeTimer); self.closeTimer = nil }
        var cause = disconnect
        if cause == nil {
            switch reason {
            case .lost(let text): cause = .dropped(text)
            case .closed: cause = closing ? .closedByServer(code: 1000, reason: "") : .dropped("connection closed")
            }
        }
        recoverUnsent()
        channel = nil
        ended(cause!, wasOpen: true)
    }

    /// Messages that never completely left go back to the front of the queue;
    /// those held for an ack are re-sent by the replay instead.
    private func recoverUnsent() {
        guard let channel else { return }
        var recovered: [OutboundQueue.Message] = []
        channel.takeUnsentMessages { message in
            if case .text(let bytes) = message, let key = ackKey(of: bytes), ledger?.isHeld(key: key) == true { return }
            recovered.append(OutboundQueue.copy(message))
        }
        if !recovered.isEmpty { log.debug("\(recovered.count) message(s) not written before the drop; queued again") }
        stats.messagesOut -= recovered.count
        queue.prepend(recovered)
    }

    /// The raw JSON value at the --ack path of an outgoing text message.
    private func ackKey(of text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let path = ackPathBytes, case .valid = JSONScanner.validate(text),
              let range = JSONScanner.valueRange(atPath: path, in: text) else { return nil }
        return Array(text[range])
    }

    // MARK: disconnects and reconnecting

    /// One place for what follows a lost connection or a failed attempt:
    /// RetryPolicy says retry, finish or fail; the options say whether and when.
    private func ended(_ cause: Disconnect, wasOpen: Bool) {
        if wasOpen {
            let (code, clean) = Self.closeCode(of: cause)
            events.emit(EventLine.disconnected(code: code, reason: Self.describe(cause), clean: clean))
        }
        if closing || ending || interrupts > 0 { end(nil); return }
        switch RetryPolicy.verdict(for: cause) {
        case .finished:
            log.info(Self.describe(cause))
            end(nil)
        case .fatal(let fatal):
            if case .protocolViolation = cause {} else { log.fatal(Self.describe(cause)) }
            end(fatal)
        case .retry:
            retry(after: cause, wasOpen: wasOpen)
        }
    }

    private func retry(after cause: Disconnect, wasOpen: Bool) {
        let reason = Self.describe(cause)
        if !everConnected && !policy.waitForFirstConnection {
            log.fatal(reason)
            end(.connectFailed)
        } else if everConnected && !policy.reconnect {
            log.fatal("connection to \(client.url.display) lost: \(reason)")
            end(.connectFailed)
        } else if let max = policy.maxRetries, backoff.failures >= max {
            events.emit(EventLine.gaveUp(attempts: attempts, reason: reason))
            log.fatal("giving up after \(attempts) attempt(s): \(reason)")
            end(.connectFailed)
        } else {
            let delay = backoff.nextDelayNanos()
            events.emit(EventLine.reconnecting(attempt: attempts + 1, delayMs: delay / 1_000_000))
            if wasOpen { log.warning("connection lost (\(reason)); reconnecting") }
            log.info("retrying in \(delay / 1_000_000)ms: \(reason)")
            retryTimer = loop.schedule(afterNanos: delay) { [unowned self] in self.connect() }
        }
    }

    static func closeCode(of cause: Disconnect) -> (UInt16, Bool) {
        switch cause {
        case .closedByServer(let code, _): return (code ?? 1005, true)
        case .protocolViolation(let code, _): return (code, false)
        default: return (1006, false)
        }
    }

    static func describe(_ cause: Disconnect) -> String {
        switch cause {
        case .unreachable(let text), .tlsFailed(let text), .dropped(let text): return text
        case .handshakeRejected(_, let line): return "handshake rejected by the server: \(line)"
        case .invalidHandshake(let text): return "invalid handshake response: \(text)"
        case .closedByServer(let code, let reason):
            let name = code.map { "\($0)\(CloseCodeNames.name($0))" } ?? "no status code"
            return "closed by the server with \(name)" + (reason.isEmpty ? "" : ": \(reason)")
        case .pingTimeout: return "ping timeout"
        case .protocolViolation(_, let reason): return "protocol error: \(reason)"
        }
    }

    // MARK: ending

    /// Send Close 1000 and wait for the server's Close, at most --close-timeout.
    private func startClosing() {
        guard let channel, !closing else { return }
        closing = true
        stdin?.stop()
        channel.close(code: .normal)
        armCloseTimer()
    }

    private func armCloseTimer() {
        guard closeTimer == nil else { return }
        closeTimer = loop.schedule(afterNanos: bridge.closeTimeoutNanos) { [unowned self] in
            self.closeTimer = nil
            self.log.info("no Close from the server within the close timeout; closing")
            self.channel?.terminate()
        }
    }

    /// Everything stops; what was not sent or acknowledged is reported. The
    /// destinations are written out after the loop (see run()).
    private func end(_ newStatus: ExitStatus?) {
        guard !ending else { return }
        ending = true
        if let newStatus { status = status.combined(with: newStatus) }
        for timer in [retryTimer, ackTimer, closeTimer].compactMap({ $0 }) { loop.cancel(timer) }
        connector?.cancel()
        keepAlive?.stop()
        stdin?.stop()
        channel?.terminate()
        reportUnsent()
        if !ackWaitOver { reportUnacked() }
        if let pump = stdin, pump.rejectedLines > 0 { status = status.combined(with: .inputRejected) }
        loop.stop()
    }

    private func reportUnsent() {
        let count = queue.count + (stdin?.unsentLines ?? 0)
        guard count > 0 else { return }
        stats.notSent = count
        log.warning("\(count) input line(s) not sent")
        status = status.combined(with: .inputRejected)
    }

    private func reportUnacked() {
        guard let ledger, !ledger.isEmpty else { return }
        let keys = ledger.heldKeys
        stats.unacked = keys.count
        let list = keys.prefix(20).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")
        log.warning("\(keys.count) message(s) not acknowledged: \(list)\(keys.count > 20 ? ", ..." : "")")
        events.emit(EventLine.unacked(keys: keys))
        status = status.combined(with: .inputRejected)
    }

    /// stdout went away: quietly for a reader that stopped (`| head -1`),
    /// with the error otherwise; the session ends after a clean Close.
    private func stdoutLost(_ error: String?) {
        if let error {
            log.fatal(error)
            status = status.combined(with: .runtimeError)
        }
        stdin?.stop()
        if let channel, channel.isOpen { startClosing() } else { end(nil) }
    }

    private func watchSignals() {
        guard let watcher = try? SignalWatcher(signals: [SIGINT, SIGTERM]) else { return }
        signals = watcher
        loop.watch(watcher.fd, .read) { [unowned self] _ in
            for signal in watcher.drain() { self.interrupted(signal) }
        }
    }

    /// SIGINT: a clean Close, then exit 130; a second one, or no open
    /// connection, ends at once.
    private func interrupted(_ signal: Int32) {
        interrupts += 1
        status = status.combined(with: signal == SIGTERM ? .terminated : .interrupted)
        stdin?.stop()
        if interrupts == 1, let channel, channel.isOpen, !closing {
            log.info("interrupted, closing")
            startClosing()
        } else {
            end(nil)
            loop.stop()
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
