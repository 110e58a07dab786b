import WSCore
import WSTransport

/// The client mode (SPEC §1): connect, pump stdin lines to the server and its
/// messages to stdout, then end as SPEC §6 says. Returns the exit status.
public final class ClientSession {
    private let client: ClientOptions
    private let bridge: BridgeOptions
    private let log: Diagnostics
    private let loop = EventLoop()
    private let formatter: OutputFormatter
    private var stdout: OutputWriter!
    private var stdin: StdinPump?
    private var connector: ClientConnector?
    private var channel: WebSocketChannel?
    private var signals: SignalWatcher?
    private var status = ExitStatus.success
    private var messagesReceived = 0
    private var closeTimer: EventLoop.TimerID?
    private var closeReceived = false
    private var finishing = false
    /// The connection is over; only stdout remains to be written.
    private var ending = false
    private var interrupts = 0

    /// Above this much unsent socket output, stdin reading pauses.
    private let socketHighWater = 4 << 20

    public init(client: ClientOptions, bridge: BridgeOptions, log: Diagnostics) {
        self.client = client
        self.bridge = bridge
        self.log = log
        self.formatter = bridge.formatter
    }

    public func run() -> ExitStatus {
        defer { StdioMode.restoreAll() }
        stdout = OutputWriter(fd: 1, loop: loop)
        stdout.onFailure = { [unowned self] reason in self.stdoutFailed(reason) }
        stdout.onDrained = { [unowned self] in self.stdoutDrained() }
        watchSignals()
        let tls: TLSContext?
        do {
            tls = client.url.secure ? try TLSContext.client(client.tls) : nil
        } catch {
            log.fatal("\(error)")
            return .runtimeError
        }
        connect(tls)
        loop.run()
        return status
    }

    // MARK: connecting

    private func connect(_ tls: TLSContext?) {
        log.info("connecting to \(client.url.display)")
        let connector = ClientConnector(options: client, tlsContext: tls, loop: loop, log: log)
        self.connector = connector
        connector.start { [unowned self] result in
            self.connector = nil
            switch result {
            case .success(let opened): self.opened(opened)
            case .failure(let failure):
                self.log.fatal(failure.description)
                self.end(failure.exitStatus)
            }
        }
    }

    private func opened(_ opened: OpenedConnection) {
        log.info("connected to \(client.url.display)" + (opened.subprotocol.map { " (protocol \($0))" } ?? ""))
        let channel = WebSocketChannel(stream: opened.stream, role: .client, maxMessageSize: bridge.maxMessageSize,
                                       loop: loop) { [unowned self] event in self.channelEvent(event) }
        self.channel = channel
        channel.onDrained = { [unowned self] in self.stdin?.resume() }
        channel.start(leftover: opened.leftover)
        guard !finishing else { return }
        if bridge.receiveOnly { return }
        let pump = StdinPump(loop: loop, settings: bridge.stdinSettings, log: log,
                             deliver: { [unowned self] message in self.send(message) },
                             afterBatch: { [unowned self] in self.channel?.flush() },
                             onEnd: { [unowned self] in self.stdinEnded() })
        stdin = pump
        pump.resume()
    }

    // MARK: stdin -> socket

    private func send(_ message: OutgoingMessage) -> Bool {
        guard let channel, channel.isOpen else { return false }
        channel.send(message)
        if channel.outputBytes > socketHighWater {
            channel.flush()
            if channel.outputBytes > socketHighWater { stdin?.pause() }
        }
        return true
    }

    private func stdinEnded() {
        channel?.flush()
        if let pump = stdin, pump.unsentLines > 0 {
            log.warning("\(pump.unsentLines) input line(s) not sent: the connection was closed")
        }
        if let pump = stdin, pump.rejectedLines > 0 || pump.unsentLines > 0 {
            status = status.combined(with: .inputRejected)
        }
        if bridge.noClose { return }
        startClosing()
    }

    // MARK: socket -> stdout

    private func channelEvent(_ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message): connectionEvent(message)
        case .processed: afterInput()
        case .ended(let reason): channelEnded(reason)
        }
    }

    private func connectionEvent(_ event: ConnectionEvent) {
        switch event {
        case .text(let payload):
            guard acceptMessage() else { return }
            formatter.appendText(payload, to: &stdout.pending)
        case .binary(let payload):
            guard acceptMessage() else { return }
            formatter.appendBinary(payload, to: &stdout.pending)
        case .ping(let payload):
            log.debug("ping from server (\(payload.count) bytes), pong sent")
        case .pong(let payload):
            log.debug("pong from server (\(payload.count) bytes)")
        case .closeReceived(let code, let reason):
            serverClosed(code: code, reason: reason)
        case .failed(let code, let reason):
            if code == .abnormal { return }   // reported when the channel ends
            log.fatal("protocol error from the server: \(reason) (closing with \(code.rawValue))")
            status = status.combined(with: .protocolViolation)
            stdin?.stop()
            startClosing(sendClose: false)   // the core already queued the Close
        }
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

    private func afterInput() {
        stdout.flush()
        channel?.setReadPaused(stdout.isBackedUp)
    }

    private func serverClosed(code: UInt16?, reason: String) {
        closeReceived = true
        stdin?.stop()
        let text = reason.isEmpty ? "" : ": \(reason)"
        if code == nil || code == CloseCode.normal.rawValue || code == 1005 {
            log.info("server closed the connection (\(code.map(String.init) ?? "no status code"))\(text)")
        } else {
            log.fatal("server closed the connection with \(code!)\(CloseCodeNames.name(code!))\(text)")
            status = status.combined(with: .connectFailed)
        }
        reportUnsent()
    }

    private func reportUnsent() {
        guard let pump = stdin, pump.unsentLines > 0 else { return }
        log.warning("\(pump.unsentLines) input line(s) not sent: the connection was closed")
        status = status.combined(with: .inputRejected)
    }

    private func channelEnded(_ reason: WebSocketChannel.EndReason) {
        if let closeTimer { loop.cancel(closeTimer) }
        if case .lost(let text) = reason, !closeReceived, status != .protocolViolation {
            if finishing {
                log.info("the server dropped the connection instead of answering our Close")
            } else {
                log.fatal("connection to \(client.url.display) lost: \(text)")
                status = status.combined(with: .connectFailed)
            }
        }
        stdin?.stop()
        end(nil)
    }

    // MARK: ending

    /// Send Close 1000 and wait for the server's Close, at most --close-timeout.
    private func startClosing(sendClose: Bool = true) {
        guard let channel, !finishing else { return }
        finishing = true
        if sendClose { channel.close(code: .normal) }
        closeTimer = loop.schedule(afterNanos: bridge.closeTimeoutNanos) { [unowned self] in
            self.log.info("no Close from the server within the close timeout; closing")
            self.channel?.terminate()
        }
    }

    /// Stop once stdout has been written out (a slow reader still gets every line).
    private func end(_ newStatus: ExitStatus?) {
        if let newStatus { status = status.combined(with: newStatus) }
        connector?.cancel()
        stdin?.stop()
        ending = true
        if stdout.isEmpty || stdout.failed { loop.stop(); return }
        stdout.flush()
    }

    /// stdout caught up: resume reading the socket, or stop if we were only
    /// waiting for the last lines to be written.
    private func stdoutDrained() {
        if ending { loop.stop(); return }
        channel?.setReadPaused(false)
    }

    private func stdoutFailed(_ reason: String) {
        // A closed pipe (`| head -1`) is a normal way to stop reading: quietly.
        if reason != "EPIPE" { log.fatal("writing stdout: \(reason)"); status = status.combined(with: .runtimeError) }
        stdin?.stop()
        if channel == nil || !(channel!.isOpen) { loop.stop(); return }
        startClosing()
    }

    private func watchSignals() {
        guard let watcher = try? SignalWatcher(signals: [SIGINT, SIGTERM]) else { return }
        signals = watcher
        loop.watch(watcher.fd, .read) { [unowned self] _ in
            for signal in watcher.drain() { self.interrupted(signal) }
        }
    }

    /// SIGINT: a clean Close, then exit 130; a second one exits at once.
    private func interrupted(_ signal: Int32) {
        interrupts += 1
        status = status.combined(with: signal == SIGTERM ? .terminated : .interrupted)
        stdin?.stop()
        guard interrupts == 1, let channel, channel.isOpen else {
            connector?.cancel()
            loop.stop()
            return
        }
        log.info("interrupted, closing")
        startClosing()
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
