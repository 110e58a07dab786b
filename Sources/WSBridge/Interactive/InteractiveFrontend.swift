import WSCore
import WSTransport
import WSMessages
import WSConsole
import WSConnect

/// What the interactive mode asks of the client session
/// (ClientSession+Interactive.swift).
protocol InteractiveSessionControl: AnyObject {
    /// A typed message, delivered as a stdin line would be.
    func sendTyped(_ message: OutgoingMessage) -> TypedDelivery
    /// A ping on the open connection; false when there is none.
    func sendPing(_ payload: [UInt8]) -> Bool
    /// Ctrl-D, /quit, or the terminal hung up; `again` when input had already ended.
    func endInput(again: Bool)
    /// /close CODE REASON.
    func closeConnection(code: CloseCode, reason: String)
    /// Ctrl-C on an empty line.
    func interrupt()
    /// /reconnect.
    func reconnect()
}

/// What became of a typed message.
enum TypedDelivery: Equatable {
    case sent
    /// Not connected: it waits in the queue for the next connection.
    case queued
    /// Not sent, and why.
    case refused(String)
}

/// The interactive mode's terminal side (wspipe(1): INTERACTIVE MODE): raw
/// mode on the terminal, what is typed fed to the `InteractiveConsole`, what
/// it draws written out, its actions performed through the session. While it
/// is up, the session's diagnostics, its events and the messages bound for
/// the terminal are shown above the prompt instead of written, so that
/// nothing breaks the line being edited. `finish()` erases the edit area and
/// restores the terminal; `SessionShell` restores it again on every exit
/// path, and TerminalMode on exit(3) and crashes.
final class InteractiveFrontend {
    /// How long an ESC may wait for the rest of its sequence: a terminal
    /// sends a whole sequence in one write, so 50 ms only ever splits a
    /// sequence on a very slow link, and the Esc key still feels immediate.
    static let escapeTimeoutNanos: Int64 = 50_000_000
    /// How often at most the status row is drawn again for what changed
    /// without a line printed (hidden messages, routed ones, pongs): a
    /// stream of hidden messages must not become a stream of redraws.
    static let statusRefreshNanos: Int64 = 100_000_000

    private let settings: InteractiveSettings
    private let loop: EventLoop
    private let log: Diagnostics
    private let events: EventSink
    private let maxMessageSize: Int
    private let console: InteractiveConsole
    private let stdoutIsTerminal = StdioMode.isTerminal(1)
    private let stderrIsTerminal = StdioMode.isTerminal(2)
    weak var control: InteractiveSessionControl?
    private(set) var isActive = false
    /// Ctrl-D or /quit was given (or the terminal hung up).
    private(set) var inputEnded = false
    private var readingInput = false
    private var escapeTimer: EventLoop.TimerID?
    private var statusTimer: EventLoop.TimerID?
    /// The /pings waiting for their pong, oldest first, with when they left.
    private var pings: [(payload: [UInt8], sentAt: Int64)] = []
    private var readBuffer = [UInt8](repeating: 0, count: 4096)
    /// The window size the console draws for.
    private var size: (columns: Int, rows: Int)

    init(settings: InteractiveSettings, bridge: BridgeOptions, loop: EventLoop, log: Diagnostics, events: EventSink,
         templates: InteractiveConsole.TemplateSource = .init()) {
        self.settings = settings
        self.loop = loop
        self.log = log
        self.events = events
        maxMessageSize = bridge.maxMessageSize
        var options = InteractiveConsole.Options()
        size = TerminalMode.windowSize(settings.terminalFD) ?? (columns: 80, rows: 24)
        options.columns = size.columns
        options.rows = size.rows
        options.colors = settings.colors
        options.historyPath = settings.historyPath
        options.home = settings.home
        options.format = bridge.format
        options.lenient = bridge.lenient
        options.codec = bridge.codec
        options.socketIO = bridge.socketIO != nil
        options.maxMessageSize = bridge.maxMessageSize
        options.transcriptBytes = settings.transcriptBytes
        options.statusLine = settings.statusLine
        options.savedMessagesPath = settings.savedMessagesPath
        options.typeKey = bridge.typeKey
        options.templates = templates
        options.listDirectory = { FileSystem.list($0) }
        console = InteractiveConsole(options: options)
    }

    /// Raw mode, the first prompt, and the terminal read from now on.
    func start(output: MessageOutput) throws {
        try TerminalMode.enterRaw(input: 0, output: settings.terminalFD)
        TerminalMode.installCrashHandlers()
        isActive = true
        output.display = self
        log.divert = { [unowned self] level, message in
            self.note(level <= .warning ? .warning(message) : .info(message))
        }
        if let destination = events.destination, isTerminal(destination) {
            events.divert = { [unowned self] line in self.note(.info(Self.text(ofLine: line))) }
        }
        write(console.start())
        readingInput = true
        loop.watch(0, .read) { [unowned self] _ in self.readInput() }
    }

    /// The last words on the terminal: the edit area erased, the terminal as
    /// it was. Idempotent.
    func finish() {
        guard isActive else { return }
        isActive = false
        cancelEscapeTimer()
        if let statusTimer { loop.cancel(statusTimer) }
        statusTimer = nil
        if readingInput { loop.unwatch(0); readingInput = false }
        log.divert = nil
        events.divert = nil
        write(console.finish())
        TerminalMode.restore()
    }

    /// SIGWINCH.
    func windowResized() {
        guard isActive else { return }
        followWindowSize()
    }

    /// Redraws for the window's size when it changed. Also done before each
    /// batch of keys: the loop may hand over keys typed after a resize before
    /// the SIGWINCH that announced it (stdin is fd 0, the first it looks at),
    /// and drawing them at the old width would leave a stale row behind.
    private func followWindowSize() {
        guard let now = TerminalMode.windowSize(settings.terminalFD), now != size else { return }
        size = now
        write(console.resize(columns: now.columns, rows: now.rows))
    }

    // MARK: the terminal

    private func readInput() {
        let result = readBuffer.withUnsafeMutableBytes { FD.read(0, into: $0) }
        switch result {
        case .bytes(let n):
            cancelEscapeTimer()
            followWindowSize()
            perform(console.feed(readBuffer[0..<n]))
            if isActive && console.isHoldingEscape { armEscapeTimer() }
        case .wouldBlock:
            return
        case .eof, .error:
            // The terminal hung up: nothing more will be typed.
            loop.unwatch(0)
            readingInput = false
            endInput()
        }
    }

    private func armEscapeTimer() {
        escapeTimer = loop.schedule(afterNanos: Self.escapeTimeoutNanos) { [unowned self] in
            self.escapeTimer = nil
            if self.isActive { self.perform(self.console.escapeTimeout()) }
        }
    }

    private func cancelEscapeTimer() {
        if let escapeTimer { loop.cancel(escapeTimer) }
        escapeTimer = nil
    }

    private func write(_ bytes: [UInt8]) {
        if !bytes.isEmpty {
            // A terminal that went away is noticed on the read side (EOF or EIO).
            bytes.withUnsafeBytes { _ = FD.writeAll(settings.terminalFD, $0) }
        }
        if console.statusIsStale && statusTimer == nil && isActive { armStatusTimer() }
    }

    private func armStatusTimer() {
        statusTimer = loop.schedule(afterNanos: Self.statusRefreshNanos) { [unowned self] in
            self.statusTimer = nil
            if self.isActive { self.write(self.console.refreshStatus()) }
        }
    }

    private func note(_ note: ConsoleNote) {
        guard isActive else { return }
        write(console.show(note))
    }

    /// stdout or stderr when it is the terminal: the console takes its place.
    private func isTerminal(_ destination: Destination) -> Bool {
        switch destination.spec {
        case .stdout: return stdoutIsTerminal
        case .stderr: return stderrIsTerminal
        default: return false
        }
    }

    private static func text(ofLine line: [UInt8]) -> String {
        String(decoding: line.last == 10 ? line.dropLast() : line[...], as: UTF8.self)
    }

    // MARK: the console's actions

    private func perform(_ output: InteractiveConsole.Output) {
        write(output.bytes)
        for action in output.actions { perform(action) }
    }

    private func perform(_ action: InteractiveConsole.Action) {
        switch action {
        case .sendText(let payload): payload.withUnsafeBytes { send(.text($0)) }
        case .sendBinary(let payload): payload.withUnsafeBytes { send(.binary($0)) }
        case .sendFile(let path): sendFile(path)
        case .ping(let payload): ping(payload)
        case .close(let code, let reason): control?.closeConnection(code: CloseCode(rawValue: code), reason: reason)
        case .reconnect: control?.reconnect()
        case .quit, .endOfInput: endInput()
        case .interrupt: control?.interrupt()
        case .suspend: suspend()
        }
    }

    private func send(_ message: OutgoingMessage) {
        switch control?.sendTyped(message) ?? .refused("the session has ended") {
        case .sent: break
        case .queued: note(.info("not connected: queued, to be sent once connected"))
        case .refused(let reason): note(.warning("not sent: \(reason)"))
        }
    }

    /// /binary FILE: the whole file as one message, shown as sent.
    private func sendFile(_ path: String) {
        switch MessageFile.load(path, maxBytes: maxMessageSize) {
        case .success(let bytes):
            write(bytes.withUnsafeBytes { console.showMessage($0, binary: true, direction: .sent) })
            bytes.withUnsafeBytes { send(.binary($0)) }
        case .failure(let error):
            note(.warning(error.description))
        }
    }

    /// /ping: the round trip is measured to the pong with the same payload
    /// (RFC 6455 §5.5.3), so a keepalive's pong is never taken for it.
    private func ping(_ payload: [UInt8]) {
        guard control?.sendPing(payload) == true else { return note(.warning("not connected: no ping sent")) }
        pings.append((payload, monotonicNanos()))
    }

    private func endInput() {
        let again = inputEnded
        inputEnded = true
        control?.endInput(again: again)
    }

    /// Ctrl-Z: the terminal as the shell expects it while stopped, and the
    /// edit area back (at the size the window may have taken meanwhile).
    private func suspend() {
        write(console.finish())
        TerminalMode.suspend()
        if let now = TerminalMode.windowSize(settings.terminalFD) {
            size = now
            write(console.resize(columns: now.columns, rows: now.rows))
        } else {
            write(console.redraw())
        }
    }
}

extension InteractiveFrontend: MessageDisplay {
    /// Messages bound for stdout are shown (and, when stdout is not the
    /// terminal, written there too); those bound for a terminal stderr are
    /// shown instead. Routes to files and commands are left alone.
    func show(_ payload: UnsafeRawBufferPointer, binary: Bool, goingTo destination: Destination) -> Bool {
        guard isActive else { return false }
        let replaced = isTerminal(destination)
        guard replaced || destination.spec == .stdout else {
            // Routed elsewhere: counted, and the last message for ${.KEYPATH}.
            console.received(payload, binary: binary)
            write([])
            return false
        }
        write(console.showMessage(payload, binary: binary, direction: .received))
        return replaced
    }
}

extension InteractiveFrontend: ClientSessionObserver {
    func connecting(url: String, attempt: Int) {
        note(.connecting(url: url, attempt: attempt))
    }

    func connected(url: String, subprotocol: String?, extensions: String?) {
        note(.connected(url: url, status: 101, subprotocol: subprotocol, extensions: extensions))
    }

    func disconnected(_ cause: Disconnect, byClient: Bool) {
        pings.removeAll()
        var reason = ""
        var by: String? = byClient ? "client" : nil
        switch cause {
        case .closedByServer(_, let text):
            reason = text
            if !byClient { by = "server" }
        case .closedByClient(_, let text):
            reason = text
        case .protocolViolation(_, let text):
            reason = text
        default:
            break
        }
        note(.disconnected(code: cause.closeCode.code.rawValue, reason: reason, by: by))
    }

    func retrying(attempt: Int, delayNanos: Int64, cause: Disconnect, wasOpen: Bool) {
        if !wasOpen { note(.failed("could not connect: \(cause)")) }
        note(.reconnecting(attempt: attempt, delayMillis: Int(delayNanos / 1_000_000)))
    }

    func sent(_ message: OutgoingMessage) {
        guard isActive else { return }
        switch message {
        case .text(let payload): write(console.showMessage(payload, binary: false, direction: .sent))
        case .binary(let payload): write(console.showMessage(payload, binary: true, direction: .sent))
        }
    }

    func replied(_ nanos: Int64) {
        console.replyNanos = nanos
    }

    func roundTrip(_ nanos: Int64) {
        guard isActive else { return }
        console.roundTrip(nanos)
        write([])
    }

    func pong(_ payload: UnsafeRawBufferPointer) {
        guard let index = pings.firstIndex(where: { payload.elementsEqual($0.payload) }) else { return }
        let roundTrip = monotonicNanos() - pings[index].sentAt
        pings.remove(at: index)
        note(.pong(payload: String(decoding: payload, as: UTF8.self), roundTripNanos: roundTrip))
    }
}
