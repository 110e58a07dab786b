import WSCore
import WSTransport
import WSTerminal
import WSCodecs
import WSMessages
import WSConnect

/// --check (wspipe(1): CHECKING A SERVER): each recording, each of its
/// connections on a fresh connection of its own, one after the other, N
/// times with --repeat; a `CheckConversation` decides what each connection
/// sends and whether what comes back is what the recording says. The report
/// goes to stderr as each recording ends, then the `N passed, N failed`
/// line, --junit's file and -w. Exit status 8 when a check failed, 3, 4, 5
/// or 7 when a connection did (wspipe(1): EXIT STATUS).
///
/// With --socketio each connection first runs the Socket.IO handshake
/// (`CheckSession+SocketIO.swift`) and the conversation sees event lines;
/// with --codec the server's binary messages are compared as the JSON of
/// their values, and the recording's lines are sent encoded.
public final class CheckSession: SessionDriver {
    let options: CheckOptions
    let shell: SessionShell
    private let tls: TLSContextSource
    private var metrics = SessionMetrics()

    /// Where the session is, one connection at a time.
    enum Phase {
        case connecting(ClientConnector)
        case waitingToRetry
        case open(WebSocketChannel)
        /// The connection's check is over: its Close is on the way.
        case closing(WebSocketChannel)
        /// Between connections (the next one starts on the next turn of the loop).
        case between
        case done
    }

    var phase = Phase.between
    var conversation: CheckConversation?
    /// The conversation's one timer, and the closing's.
    private var timer: EventLoop.TimerID?
    /// What a read asked to send: sent once the read is over (a connection
    /// cannot take a send while it is being read).
    private var pendingSends: [(form: OutgoingTemplate.Form, bytes: [UInt8], line: Int)] = []
    private var reading = false
    /// --socketio: the connection's Socket.IO side (nil without the flag,
    /// and between connections), and what turns lines into packets (ack
    /// ids count from 1 for each recording, as they did for the run that
    /// recorded it).
    var socketIO: SocketIOClientLink?
    var socketIOOutgoing: SocketIOOutgoing?
    /// --codec: the recording's lines, encoded as they are sent.
    private lazy var encoder = shell.bridge.codec.map { Transcoder($0, maxJSONBytes: Int.max / 2) }
    /// The server's Close (code and reason), for the connection's end event.
    private var closeSeen: (code: CloseCode?, reason: String)?
    /// The server closed or dropped the connection before its check was over.
    private var endedByServer = false

    // The recording being checked.
    private var runNumber = 1
    private var scriptIndex = 0
    var connectionIndex = 0
    private var scriptStartedAt: Int64 = 0
    private var comparison: MessageComparison
    private var scriptFailure: CheckFailure?
    private var stopping = false

    // The run.
    private let startedAt = monotonicNanos()
    private var passed = 0
    private var failed = 0
    private var junit = JUnitReport()
    private var junitFile: Int32?
    private var backoff: Backoff
    private var attempts = 0
    private var anyConnectionOpened = false

    public init(options: CheckOptions, bridge: BridgeOptions, log: Diagnostics, events: EventSink) {
        self.options = options
        shell = SessionShell(bridge: bridge, log: log, events: events)
        tls = TLSContextSource(options: options.connections.first?.first?.tls ?? TLSClientOptions())
        comparison = MessageComparison(ignores: options.ignores)
        backoff = Backoff(policy: options.backoff)
        junit.timestamp = String(decoding: UTCTimestamp.now(), as: UTF8.self)
    }

    var loop: EventLoop { shell.loop }
    var log: Diagnostics { shell.log }
    var script: CheckScript { options.scripts[scriptIndex] }
    var client: ClientOptions { options.connections[scriptIndex][connectionIndex] }

    public func run() -> ExitStatus {
        shell.run(self) {
            if options.connections.joined().contains(where: \.url.secure) { _ = try tls.context() }
            if let path = options.junitPath {
                switch FD.open(path, .replace(creatingWithMode: 0o644)) {
                case .success(let fd): junitFile = fd
                case .failure(let error): throw JUnitFileError(path: path, error: error)
                }
            }
            startScript()
        }
    }

    // MARK: recordings and connections

    private func startScript() {
        scriptStartedAt = monotonicNanos()
        comparison = MessageComparison(ignores: options.ignores)
        scriptFailure = nil
        connectionIndex = 0
        if shell.bridge.socketIO != nil {
            socketIOOutgoing = SocketIOOutgoing(log: log, events: shell.events,
                                                namespaces: shell.bridge.socketIO?.clientNamespaces)
        }
        startConnection()
    }

    private func startConnection() {
        attempts += 1
        let client = self.client
        shell.events.emit(EventLine.connecting(url: client.url.display, attempt: attempts))
        log.info("\(place): connecting to \(client.url.display)")
        let connector = ClientConnector(options: client, tls: tls, loop: loop, log: log,
                                        childErrors: { [unowned self] in
            ChildOutput.errorCopy(of: $0, to: try? self.shell.output.routes.inheritedDestination(.stderr), loop: self.loop) })
        connector.onResponse = { [unowned self] status in self.metrics.httpCode = status }
        phase = .connecting(connector)
        connector.start { [unowned self] result in
            switch result {
            case .success(let opened): self.opened(opened)
            case .failure(let failure): self.connectFailed(failure)
            }
        }
    }

    func connectFailed(_ failure: ConnectFailure) {
        shell.events.emit(EventLine.connectFailed(attempt: attempts, error: failure.description))
        if options.waitForFirstConnection && !anyConnectionOpened && !stopping
            && options.maxRetries.map({ attempts <= $0 }) ?? true {
            let delay = backoff.nextDelayNanos()
            log.warning("attempt \(attempts) failed (\(failure)); retrying in \(ClientConnector.seconds(delay))")
            shell.events.emit(EventLine.reconnecting(attempt: attempts + 1, delayMs: delay / 1_000_000))
            phase = .waitingToRetry
            timer = loop.schedule(afterNanos: delay) { [unowned self] in
                self.timer = nil
                self.startConnection()
            }
            return
        }
        let status: ExitStatus
        switch failure {
        case .rejected, .redirectRefused, .invalidHandshake: status = .handshakeRejected
        default: status = .connectFailed
        }
        connectionFailed(failure.description, status: status)
    }

    /// The connection could not be opened (nor, with --socketio, its
    /// namespaces connected): the recording's check fails with `status`.
    func connectionFailed(_ reason: String, status: ExitStatus) {
        let number = script.connections[connectionIndex].number
        scriptFailure = CheckFailure(kind: .connectFailed(reason), status: status, connection: number)
        phase = .between
        afterConnection()
    }

    private func opened(_ opened: OpenedConnection) {
        anyConnectionOpened = true
        metrics.opened(opened.url, redirects: opened.redirects, timings: opened.timings)
        shell.events.emit(EventLine.connected(url: opened.url.display, attempt: attempts, protocol: opened.subprotocol))
        log.info("\(place): connected to \(opened.url.display)")
        attempts = 0
        closeSeen = nil
        endedByServer = false
        let channel = WebSocketChannel(stream: opened.stream, role: .client, maxMessageSize: shell.bridge.maxMessageSize,
                                       compression: opened.compression, loop: loop) { [unowned self] event in
            self.channelEvent(event)
        }
        if shell.bridge.trace { channel.tracer = FrameTracer(role: .client, log: log) }
        channel.readsTextAsJSON()
        phase = .open(channel)
        if shell.bridge.socketIO != nil { return handshakeSocketIO(opened, on: channel) }
        startConversation()
        if case .open = phase {
            channel.start(leftover: opened.leftover)
        } else if case .closing = phase {
            channel.start(leftover: opened.leftover)
        }
    }

    /// The connection is open (with --socketio, its namespaces connected):
    /// the recorded connection plays.
    func startConversation() {
        let connection = script.connections[connectionIndex]
        conversation = CheckConversation(script: connection, settings: settings, comparison: comparison)
        perform(conversation!.handle(.opened(now: monotonicNanos())))
    }

    private var settings: CheckConversation.Settings {
        CheckConversation.Settings(timeoutNanos: options.timeoutNanos, settleNanos: options.settleNanos,
                                   anyOrder: options.anyOrder, allowExtra: Set(options.allowExtra.map { Array($0.utf8) }),
                                   typePath: shell.bridge.typeKey.map { Array($0.utf8) })
    }

    // MARK: the connection

    private func channelEvent(_ event: WebSocketChannel.Event) {
        switch event {
        case .message(let message):
            reading = true
            if let link = socketIO { return socketIOMessage(message, link) }
            incoming(message)
        case .processed:
            reading = false
            if let link = socketIO { socketIOProcessed(link) }
            sendPending()
        case .ended(let reason):
            reading = false
            pendingSends.removeAll()
            if let link = socketIO, socketIOEnded(link, reason) { return }
            channelEnded(reason)
        }
    }

    func incoming(_ event: ConnectionEvent) {
        switch event {
        case .text(let payload, _):
            metrics.messageArrived()
            _ = shell.admit(bytes: payload.count)
            feed(.received(.text(payload), now: monotonicNanos()))
        case .binary(let payload):
            metrics.messageArrived()
            _ = shell.admit(bytes: payload.count)
            // --codec: compared as the JSON of its value (as it is recorded).
            if let codec = shell.codec, let json = codec.decode(payload, from: "the server") {
                return feed(.received(.text(json), now: monotonicNanos()))
            }
            feed(.received(.binary(payload), now: monotonicNanos()))
        case .ping, .pong:
            break
        case .closeReceived(let code, let reason):
            closeSeen = (code, reason)
            if case .open = phase { endedByServer = true }
            feed(.closedByServer(code: code?.rawValue, reason: reason))
        case .failed(let code, let reason):
            if code == .abnormal { return }   // the end says it
            log.fatal("protocol error from the server: \(reason) (closing with \(code.rawValue))")
            feed(.lost("protocol error: \(reason)", status: .protocolViolation))
        }
    }

    func feed(_ event: CheckConversation.Event) {
        guard conversation != nil else { return }
        perform(conversation!.handle(event))
    }

    private func perform(_ actions: [CheckConversation.Action]) {
        for action in actions {
            switch action {
            case .send(let form, let bytes, let line):
                pendingSends.append((form, bytes, line))
                if !reading { sendPending() }
            case .armTimer(let nanos):
                armTimer(nanos)
            case .replied(let nanos, let line):
                shell.stats.replyLatency.record(nanos: nanos)
                shell.events.emit(EventLine.reply(nanos: nanos, file: script.path, line: line))
                log.debug("\(place(line: line)): reply in \(LatencyHistogram.milliseconds(nanos))")
            case .finish(let outcome):
                connectionChecked(outcome)
            }
        }
    }

    private func sendPending() {
        guard case .open(let channel) = phase, channel.isOpen, !pendingSends.isEmpty else { return }
        let sends = pendingSends
        pendingSends.removeAll()
        for (form, bytes, line) in sends {
            if let reason = send(form, bytes, on: channel) {
                channel.flush()
                return feed(.unsendable(line: line, reason: reason))
            }
            shell.sent(bytes: bytes.count)
        }
        channel.flush()
    }

    /// Writes one message of the recording into the channel, made what
    /// --socketio or --codec makes a line; why it could not be, if so.
    private func send(_ form: OutgoingTemplate.Form, _ bytes: [UInt8], on channel: WebSocketChannel) -> String? {
        bytes.withUnsafeBytes { raw in
            switch form {
            case .binary:
                channel.send(.binary(raw))
            case .text where socketIOOutgoing == nil:
                channel.send(.text(raw))
            case .text, .line:
                if let socketIOOutgoing {
                    if let error = SocketIOLineCheck.check(raw) { return "not a Socket.IO event line (--socketio): \(error)" }
                    guard let packets = socketIOOutgoing.prepare(.text(raw), tag: MessageTag.uncounted, what: "the message")
                    else { return "not a Socket.IO event line (--socketio)" }
                    packets.forEach(.text(raw)) { message, _ in channel.send(message) }
                } else if let encoder {
                    do throws(CodecError) {
                        channel.send(.binary(try encoder.encode(raw)))
                    } catch {
                        return "\(error.reason) (--codec \(encoder.format.rawValue))"
                    }
                } else {
                    channel.send(.text(raw))
                }
            }
            return nil
        }
    }

    /// A message arrived (its size counted against the memory budget).
    func metricsArrived(bytes: Int) {
        metrics.messageArrived()
        _ = shell.admit(bytes: bytes)
    }

    func cancelTimer() {
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func armTimer(_ nanos: Int64) {
        if let timer { loop.cancel(timer) }
        timer = loop.schedule(afterNanos: nanos) { [unowned self] in
            self.timer = nil
            switch self.phase {
            case .open: self.feed(.timerFired(now: monotonicNanos()))
            case .closing(let channel): channel.terminate()
            default: break
            }
        }
    }

    /// The conversation is over: the connection closes (the server's Close,
    /// if it sent one, is already answered), within --close-timeout.
    private func connectionChecked(_ outcome: CheckOutcome) {
        if case .failed(let failure) = outcome, scriptFailure == nil { scriptFailure = failure }
        comparison = conversation?.comparison ?? comparison
        guard case .open(let channel) = phase else { return }
        phase = .closing(channel)
        channel.close(code: shell.bridge.closeCode, reason: shell.bridge.closeReason)
        armTimer(shell.bridge.closeTimeoutNanos)
    }

    private func channelEnded(_ reason: WebSocketChannel.EndReason) {
        if case .open = phase {
            // Ended before the conversation was over: the connection was lost.
            endedByServer = true
            var text = "connection closed"
            if case .lost(let why) = reason { text = why }
            feed(.lost(text, status: .connectFailed))
        }
        if let timer { loop.cancel(timer) }
        timer = nil
        var code = CloseCode.abnormal
        var clean = false
        if let closeSeen { code = closeSeen.code ?? .noStatus; clean = true }
        metrics.closeCode = Int(code.rawValue)
        socketIO?.stop()
        socketIO = nil
        shell.events.emit(EventLine.disconnected(code: code, reason: closeSeen?.reason ?? "", clean: clean,
                                                 by: endedByServer ? "server" : "client"))
        conversation = nil
        phase = .between
        // The next connection starts after this turn: the channel is still handing out its end.
        loop.schedule(afterNanos: 0) { [unowned self] in self.afterConnection() }
    }

    private func afterConnection() {
        guard case .between = phase else { return }
        if stopping { return finishRun() }
        if scriptFailure == nil && connectionIndex + 1 < script.connections.count {
            connectionIndex += 1
            return startConnection()
        }
        scriptChecked()
        scriptIndex += 1
        if scriptIndex == options.scripts.count {
            scriptIndex = 0
            runNumber += 1
        }
        if runNumber > options.repeats { return finishRun() }
        startScript()
    }

    // MARK: reports

    private var report: CheckReport {
        CheckReport(path: script.path, format: script.format, connections: script.connections.count,
                    settleNanos: options.settleNanos, typeKey: shell.bridge.typeKey)
    }

    /// "chat.ndjson" (with its run with --repeat).
    private var scriptName: String {
        options.repeats > 1 ? "\(script.path) (run \(runNumber) of \(options.repeats))" : script.path
    }

    private var place: String { report.place(line: 0, connection: script.connections[connectionIndex].number) }

    private func place(line: Int) -> String {
        report.place(line: line, connection: script.connections[connectionIndex].number)
    }

    /// A recording is done: its report, its JUnit case, its event.
    private func scriptChecked() {
        let nanos = monotonicNanos() - scriptStartedAt
        var testCase = JUnitReport.Case(name: JUnitReport.baseName(script.path)
                                            + (options.repeats > 1 ? " (run \(runNumber))" : ""),
                                        classname: JUnitReport.classname(of: script.path, current: Self.currentFolder),
                                        file: script.path, seconds: Double(nanos) / 1e9)
        var event = EventLine.start("check")
        event.string("file", script.path)
        if options.repeats > 1 { event.int("run", runNumber) }
        event.raw("time_ms", EventLine.milliseconds(nanos))
        if let failure = scriptFailure {
            failed += 1
            let lines = report.lines(for: failure)
            writeReport(["FAIL " + lines[0]] + lines.dropFirst())
            testCase.lines = lines
            testCase.isError = failure.status != .checkFailed
            shell.status = shell.status.combined(with: failure.status)
            event.string("result", "failed")
            if failure.line > 0 { event.int("line", failure.line) }
            if case .differs(let difference, _, _) = failure.kind { event.string("path", difference.path.description) }
            event.string("reason", lines[0])
        } else {
            passed += 1
            let messages = script.connections.reduce(0) { $0 + $1.steps.count }
            let connections = script.connections.count
            if log.enabled(.warning) {
                writeReport(["PASS \(scriptName) (" + (connections > 1 ? "\(connections) connections, " : "")
                             + "\(messages) message\(messages == 1 ? "" : "s"), \(CheckReport.seconds(nanos)))"])
            }
            event.string("result", "passed")
        }
        shell.events.emit(event.finishLine())
        junit.cases.append(testCase)
    }

    /// The last words: the latency with --repeat, the summary line, the
    /// JUnit file and the latency budget.
    private func finishRun() {
        if case .done = phase { return }
        phase = .done
        let latency = shell.stats.replyLatency
        let showLatency = options.repeats > 1 || options.maxReplyP99Nanos != nil || log.enabled(.info)
        if showLatency && !latency.isEmpty && log.enabled(.warning) {
            writeReport(["reply latency: \(latency.count) replies, \(latency.summary)"])
        }
        if let budget = options.maxReplyP99Nanos {
            ReplyBudget.check(latency, budgetNanos: budget, log: log, status: &shell.status)
        }
        if log.enabled(.warning) { writeReport([CheckReport.summary(passed: passed, failed: failed)]) }
        writeJUnit()
        shell.end()
    }

    private func writeJUnit() {
        guard let fd = junitFile, let path = options.junitPath else { return }
        junitFile = nil
        defer { FD.close(fd) }
        let text = Array(junit.xml(totalSeconds: Double(monotonicNanos() - startedAt) / 1e9).utf8)
        if let error = text.withUnsafeBytes({ FD.writeAll(fd, $0) }) {
            log.fatal("--junit \(path): \(error)")
            shell.status = shell.status.combined(with: .runtimeError)
        }
    }

    /// Report lines on stderr, each escaped as peer text is (the messages
    /// quote the server).
    private func writeReport(_ lines: [String]) {
        var out: [UInt8] = []
        for line in lines {
            out.append(contentsOf: TerminalEscaping.escaping(line).utf8)
            out.append(0x0A)
        }
        out.withUnsafeBytes { Diagnostics.writeAll(2, $0) }
    }

    /// The current directory's name, for the JUnit classname of files in it.
    private static let currentFolder: String = {
        let path = ProcessEnvironment.currentDirectory() ?? ""
        return path.split(separator: "/").last.map(String.init) ?? "wspipe"
    }()

    // MARK: SessionDriver

    func interrupted(again: Bool) {
        stopping = true
        switch phase {
        case .connecting(let connector):
            connector.cancel()
            phase = .between
            finishRun()
        case .waitingToRetry, .between:
            if let timer { loop.cancel(timer) }
            timer = nil
            phase = .between
            finishRun()
        case .open(let channel), .closing(let channel):
            if again { channel.terminate() } else {
                phase = .closing(channel)
                channel.close(code: .normal, reason: "")
                armTimer(shell.bridge.closeTimeoutNanos)
            }
        case .done:
            break
        }
    }

    func stdoutLost() { interrupted(again: false) }
    func maxMessagesReached() {}
    func routesDrained() {}

    func finalReport() {
        if let problem = options.connections.first?.first?.cookies?.save(now: wallClockSeconds()) { log.warning(problem) }
        guard let format = options.writeOut, let url = options.connections.first?.first?.url
        else { return }
        let values = metrics.values(url: url, stats: shell.stats, exitStatus: shell.status.rawValue)
        for (fd, bytes) in format.render(values, escapes: { $0 == 2 || StdioMode.isTerminal($0) }) {
            bytes.withUnsafeBytes { _ = FD.writeAll(fd, $0) }
        }
    }
}

/// --junit FILE could not be created.
struct JUnitFileError: Error, CustomStringConvertible {
    var path: String
    var error: IOError
    var description: String { "--junit \(path): \(error)" }
}
