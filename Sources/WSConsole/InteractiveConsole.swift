import WSCore
import WSJSON
import WSCodecs
import WSTerminal
import WSTransport
import WSMessages

/// The interactive mode's terminal side (wspipe(1): INTERACTIVE MODE), for
/// the client session to drive: a line editor with history, a transcript of
/// messages and lifecycle notes printed above the prompt, and the slash
/// commands. Pure: it never reads or writes a file descriptor (apart from the
/// history file and the saved messages' file); every method returns the
/// bytes to write to the terminal.
///
/// How a session wires it in (`InteractiveFrontend` does all of this for the
/// client):
///
///     try TerminalMode.enterRaw(input: 0, output: 1)   // restored by StdioMode.restoreAll()
///     TerminalMode.installCrashHandlers()
///     let size = TerminalMode.windowSize(1) ?? (80, 24)
///     var options = InteractiveConsole.Options()
///     options.columns = size.columns; options.rows = size.rows
///     options.colors = getenv("NO_COLOR") == nil (empty counts as unset)
///     options.historyPath = Options.historyPath(stateHome: XDG_STATE_HOME, home: HOME)
///     options.format / lenient / maxMessageSize / home from the flags
///     let console = InteractiveConsole(options: options)
///     write(1, console.start())
///
/// - stdin readable: `let out = console.feed(bytesRead)`; write `out.bytes`,
///   then perform `out.actions` in order (see `Action`). If afterwards
///   `console.isHoldingEscape`, arm a timer (~50 ms, the time a terminal
///   takes to send the rest of a sequence) whose expiry calls
///   `console.escapeTimeout()` (same output handling); cancel it on the next
///   feed. stdin EOF (terminal hung up) is like `.endOfInput`.
/// - A message received: write `console.showMessage(payload, binary:, direction: .received)`;
///   one that goes elsewhere (a route to a file): `console.received(payload, binary:)`,
///   which counts it and keeps it for `${.KEYPATH}`.
/// - A keepalive pong: `console.roundTrip(nanos)`.
/// - After either, and after a hidden message: if `console.statusIsStale`,
///   arm a timer (~100 ms) whose expiry writes `console.refreshStatus()`:
///   the status row is drawn again at most that often.
///   A message the session sends on its own (--on-connect, --replay, the file of
///   `.sendFile`): `direction: .sent`. Messages typed by the user are echoed
///   by `feed` itself.
/// - Lifecycle: write `console.show(.connected(...))`, `.disconnected`,
///   `.reconnecting`, `.pong` (answering `.ping`), `.failed`, `.warning` for
///   a diagnostic that would otherwise go to stderr and break the edit area.
/// - SIGWINCH (add it to the SignalWatcher): write
///   `console.resize(columns:rows:)` with `TerminalMode.windowSize()`.
/// - `.suspend`: write `console.finish()`, call `TerminalMode.suspend()`
///   (returns once the shell continues the process), write `console.redraw()`.
/// - Before exiting (every path): write `console.finish()`, which erases the
///   edit area, then `StdioMode.restoreAll()` restores the terminal.
public final class InteractiveConsole {
    public struct Options {
        /// --text and --binary send typed lines raw; the default validates JSON.
        public var format: LineFormat = .json
        /// --lenient: an invalid JSON line is sent as text instead of kept.
        public var lenient = false
        /// --codec: typed JSON is sent as binary messages in this format; the
        /// transcript shows the messages sent as the lines that make them.
        public var codec: BinaryFormat?
        /// --socketio: a typed line must be an event line (checked here, so
        /// that it stays in the editor to be fixed); /text and /binary,
        /// which have no packet, are refused.
        public var socketIO = false
        /// ANSI colours (off with NO_COLOR).
        public var colors = false
        public var columns = 80
        public var rows = 24
        /// The history file; nil keeps the history in memory only.
        public var historyPath: String?
        public var historyLimit = 1000
        /// Largest message a /binary file or a joined value may be
        /// (--max-message-size: the session sets it).
        public var maxMessageSize = 0
        public var prompt = "> "
        /// For "~/" in /binary paths.
        public var home: String?
        /// The time in transcript marks (tests pin it).
        public var clock: () -> TimeOfDay = TimeOfDay.now
        /// Bytes of messages kept for /find, /show and /resend (--history-size).
        public var transcriptBytes = 0
        /// The status row (off with --no-status-line or WSPIPE_PLAIN=1).
        public var statusLine = false
        /// The saved messages' file (/save, /send); nil: none can be saved.
        public var savedMessagesPath: String?
        /// --type-key's path, which /filter's type= reads.
        public var typeKey = ["type"]
        /// What /send fills a saved message's ${...} with.
        public var templates = TemplateSource()
        /// The names in a directory, for Tab after /binary (nil: unreadable).
        public var listDirectory: (String) -> [FileSystem.DirectoryEntry]? = { _ in nil }

        public init() {}

        /// `$XDG_STATE_HOME/wspipe/history`, else `~/.local/state/wspipe/history`
        /// (the caller reads the two variables: nothing here reads the environment).
        public static func historyPath(stateHome: String?, home: String?) -> String? {
            HistoryFile.defaultPath(stateHome: stateHome, home: home)
        }

        /// `$XDG_CONFIG_HOME/wspipe/messages.ndjson`, else `~/.config/wspipe/messages.ndjson`.
        public static func savedMessagesPath(configHome: String?, home: String?) -> String? {
            SavedMessages.defaultPath(configHome: configHome, home: home)
        }
    }

    /// Where the values of a saved message's variables come from
    /// (wspipe(1): TEMPLATES): the session's --capture values and its
    /// ${seq}, shared with its other templates; ${.KEYPATH} reads the last
    /// message received, which the console keeps itself; ${env:NAME} the
    /// environment when the message is sent (the session hands it in).
    public struct TemplateSource {
        public var captureNames: [String]
        public var captures: () -> (any TemplateCaptures)?
        public var nextSequence: () -> Int
        public var nowMillis: () -> Int64
        public var environment: (String) -> String?

        public init(captureNames: [String] = [], captures: @escaping () -> (any TemplateCaptures)? = { nil },
                    nextSequence: @escaping () -> Int = { 0 },
                    nowMillis: @escaping () -> Int64 = { wallClockNanos() / 1_000_000 },
                    environment: @escaping (String) -> String? = { _ in nil }) {
            self.captureNames = captureNames
            self.captures = captures
            self.nextSequence = nextSequence
            self.nowMillis = nowMillis
            self.environment = environment
        }
    }

    /// What the session does after `feed`, in order.
    public enum Action: Equatable, Sendable {
        /// Send a text message (a typed JSON value, compacted; a `$text`
        /// envelope's text; a /text argument; a raw line with -t).
        case sendText([UInt8])
        /// Send a binary message (a `$binary` envelope; a raw line with -b).
        case sendBinary([UInt8])
        /// /binary FILE: read it (`MessageFile.load`), send it as one binary
        /// message and show it, or show the error as a `.warning`.
        case sendFile(path: String)
        /// /ping: send a ping with this payload; show `.pong` when it is answered.
        case ping([UInt8])
        /// /close: send a Close with this code and reason; the session then
        /// ends as after stdin EOF.
        case close(code: UInt16, reason: String)
        /// /reconnect: drop the connection (Close 1000) and connect again now.
        case reconnect
        /// /quit: close cleanly and exit, as at stdin EOF (exit status 0).
        case quit
        /// Ctrl-D on an empty line: stdin EOF.
        case endOfInput
        /// Ctrl-C on an empty line: as SIGINT (clean Close, exit status 130).
        case interrupt
        /// Ctrl-Z: see the wiring notes above.
        case suspend
    }

    public struct Output: Equatable {
        public var bytes: [UInt8] = []
        public var actions: [Action] = []
    }

    let options: Options
    private var decoder = KeyDecoder()
    var editor: LineEditor
    var renderer: EditorRenderer
    var formatter: TranscriptFormatter
    private var historyFile: HistoryFile?
    var translator: InputTranslator
    /// --codec: the JSON of the binary messages sent, for the transcript.
    private let codecViews: Transcoder?
    /// Shown above the prompt by `start()` (a history file that could not be read).
    private var startupWarning: String?
    /// The messages shown, kept for /find, /show and /resend.
    var transcript: Transcript
    var filter: MessageFilter?
    var status = StatusLine()
    /// The status row changed since it was drawn (see `refreshStatus`).
    package private(set) var statusIsStale = false
    /// The last text message received that was JSON, for ${.KEYPATH}.
    var lastReceived: [UInt8]?
    /// The last message sent, for /save NAME.
    var lastSent: (payload: [UInt8], binary: Bool)?
    /// The note suggesting -t was shown (once).
    private var suggestedText = false
    /// The next message received is a reply that came this long after its
    /// request: shown beside it (wspipe(1): INTERACTIVE MODE).
    public var replyNanos: Int64?
    var completion: TabCompletion

    public init(options: Options) {
        self.options = options
        var entries: [String] = []
        if let path = options.historyPath {
            var file = HistoryFile(path: path, limit: options.historyLimit)
            (entries, startupWarning) = file.load()
            historyFile = file
        }
        editor = LineEditor(prompt: options.prompt, history: HistoryList(limit: options.historyLimit, entries: entries))
        renderer = EditorRenderer(columns: options.columns, screenRows: options.rows, colors: options.colors)
        formatter = TranscriptFormatter(colors: options.colors, columns: options.columns, screenRows: options.rows)
        translator = InputTranslator(format: options.format, lenient: options.lenient,
                                     maxPendingBytes: options.maxMessageSize, codec: options.codec)
        codecViews = options.codec.map { Transcoder($0, maxJSONBytes: Int.max / 2) }
        transcript = Transcript(limitBytes: options.transcriptBytes)
        completion = TabCompletion(list: options.listDirectory, home: options.home)
        let path = options.savedMessagesPath
        completion.savedNames = {
            guard let path, case .success(let contents) = SavedMessages(path: path).load() else { return [] }
            return contents.names
        }
    }

    /// The history as loaded and added to, oldest first.
    public var history: [String] { editor.history.entries }

    /// The first drawing of the prompt.
    public func start() -> [UInt8] {
        var above: [UInt8] = []
        if let warning = startupWarning { above = formatter.note(.warning(warning), at: options.clock()) }
        startupWarning = nil
        var out: [UInt8] = []
        renderer.printAbove(above, view: view, into: &out)
        return out
    }

    /// What the edit area shows: the editor's line, and the status row
    /// when it is on and the terminal is tall enough for it.
    var view: EditorView {
        var view = editor.view
        if options.statusLine && renderer.screenRows >= StatusLine.minimumRows {
            view.footer = status.text(columns: formatter.columns)
        }
        return view
    }

    /// Bytes read from the terminal.
    public func feed(_ bytes: some Collection<UInt8>) -> Output {
        process(decoder.feed(bytes))
    }

    /// True when input ended with an ESC that may begin a sequence: call
    /// `escapeTimeout()` if nothing more arrives soon.
    public var isHoldingEscape: Bool { decoder.isHoldingEscape }

    /// Nothing followed the ESC: it was the Esc key (it cancels a search).
    public func escapeTimeout() -> Output {
        process(decoder.flushEscape())
    }

    /// A message, printed above the prompt unless the filter hides it (then
    /// only counted: see `statusIsStale`).
    public func showMessage(_ payload: UnsafeRawBufferPointer, binary: Bool,
                            direction: TranscriptDirection) -> [UInt8] {
        let isJSON = !binary && Self.isJSON(payload)
        var above = transcribe(payload, binary: binary, direction: direction, isJSON: isJSON)
        if direction == .received && !binary && !isJSON { above += textHint() }
        guard !above.isEmpty else { return [] }
        return printAbove(above)
    }

    /// A message received that the transcript does not show (routed to a
    /// file or a command): counted, and kept for ${.KEYPATH}.
    public func received(_ payload: UnsafeRawBufferPointer, binary: Bool) {
        replyNanos = nil
        count(payload, binary: binary, direction: .received, isJSON: !binary && Self.isJSON(payload))
        staleStatus()
    }

    /// A lifecycle note, printed above the prompt.
    public func show(_ note: ConsoleNote) -> [UInt8] {
        status.follow(note)
        return printAbove(formatter.note(note, at: options.clock()))
    }

    /// A keepalive ping's round trip, for the status row.
    public func roundTrip(_ nanos: Int64) {
        status.roundTripNanos = nanos
        staleStatus()
    }

    /// The edit area drawn again when the status row changed without
    /// anything printed (a hidden message, a pong): empty otherwise.
    public func refreshStatus() -> [UInt8] {
        guard statusIsStale else { return [] }
        statusIsStale = false
        return redraw()
    }

    /// The terminal's new size; returns the redrawn edit area.
    public func resize(columns: Int, rows: Int) -> [UInt8] {
        renderer.resize(columns: columns, screenRows: rows)
        formatter.columns = columns
        formatter.screenRows = rows
        return redraw()
    }

    /// The edit area drawn again from scratch (after the process was continued).
    public func redraw() -> [UInt8] {
        var out: [UInt8] = []
        renderer.draw(view, into: &out)
        statusIsStale = false
        return out
    }

    // MARK: the transcript

    /// Numbers, counts and keeps a message, and returns its lines unless the filter hides it.
    func transcribe(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: TranscriptDirection,
                    isJSON: Bool) -> [UInt8] {
        count(payload, binary: binary, direction: direction, isJSON: isJSON)
        let time = options.clock()
        let number = transcript.add(payload, binary: binary, direction: direction, time: time)
        let reply = direction == .received ? replyNanos : nil
        if direction == .received { replyNanos = nil }
        if let filter, !filter.shows(payload, binary: binary, direction: direction) {
            status.hidden += 1
            staleStatus()
            return []
        }
        return formatter.message(payload, binary: binary, direction: direction, at: time, number: number,
                                 replyNanos: reply)
    }

    private func count(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: TranscriptDirection, isJSON: Bool) {
        switch direction {
        case .received:
            status.received += 1
            guard isJSON else { return }
            if lastReceived == nil { lastReceived = [] }
            lastReceived!.removeAll(keepingCapacity: true)
            lastReceived!.append(contentsOf: payload)
        case .sent:
            status.sent += 1
            lastSent = (Array(payload), binary)
        }
    }

    /// The first text received that is not JSON, while typed lines must be:
    /// one note that -t exists (with --codec, which -t cannot join, that
    /// /text sends text beside the binary messages typed lines become).
    private func textHint() -> [UInt8] {
        guard options.format == .json, !suggestedText else { return [] }
        suggestedText = true
        let how = options.codec == nil
            ? "if it speaks plain text, run wspipe with -t: lines are then sent as typed, and /text TEXT sends one now"
            : "typed lines are sent as \(options.codec!.rawValue) (--codec); /text TEXT sends a text message"
        return formatter.note(.info("the server sent text that is not JSON (shown as text \"...\"); " + how),
                              at: options.clock())
    }

    static func isJSON(_ payload: UnsafeRawBufferPointer) -> Bool {
        if case .valid = JSONScanner.validate(payload) { return true }
        return false
    }

    private func staleStatus() {
        if options.statusLine { statusIsStale = true }
    }

    /// Erases the edit area, leaving the cursor at the start of an empty
    /// row: the last thing written before the terminal is restored.
    public func finish() -> [UInt8] {
        var out: [UInt8] = []
        renderer.erase(into: &out)
        return out
    }

    // MARK: keys

    private func process(_ keys: [Key]) -> Output {
        var output = Output()
        guard !keys.isEmpty else { return output }
        var above: [UInt8] = []
        var drawn = view
        for key in keys {
            if key == .tab && !editor.isSearching {
                complete(above: &above)
                continue
            }
            switch editor.handle(key) {
            case .none: break
            case .submit(let line): submit(line, above: &above, actions: &output.actions)
            case .endOfInput: output.actions.append(.endOfInput)
            case .interrupt: output.actions.append(.interrupt)
            case .suspend: output.actions.append(.suspend)
            case .clearScreen:
                if !above.isEmpty { renderer.printAbove(above, view: view, into: &output.bytes) }
                above = []
                renderer.clearScreen(view, into: &output.bytes)
                drawn = view
            }
        }
        // One drawing for the whole read: a burst of keys is one write.
        if !above.isEmpty {
            renderer.printAbove(above, view: view, into: &output.bytes)
            statusIsStale = false
        } else if view != drawn {
            renderer.draw(view, into: &output.bytes)
            statusIsStale = false
        }
        return output
    }

    private func printAbove(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        renderer.printAbove(bytes, view: view, into: &out)
        statusIsStale = false
        return out
    }

    /// Tab: see TabCompletion.
    private func complete(above: inout [UInt8]) {
        switch completion.complete(String(editor.text[..<editor.cursor])) {
        case .none: break
        case .complete(let text): editor.complete(text)
        case .list(let candidates):
            // File names are not ours: escaped like peer text.
            let names = candidates.map(TerminalEscaping.escaping).joined(separator: "  ")
            above += formatter.note(text: names, at: options.clock())
        }
    }

    // MARK: submitting

    private func submit(_ line: String, above: inout [UInt8], actions: inout [Action]) {
        switch SlashCommand.parse(line) {
        case .message:
            sendTyped(Array(line.utf8), historyLine: line, above: &above, actions: &actions)
        case .escapedMessage(let text):
            sendTyped(Array(text.utf8), historyLine: line, above: &above, actions: &actions)
        case .command(let command):
            run(command, line: line, above: &above, actions: &actions)
        case .error(let message, let offset):
            editor.reject(message, atUTF8Offset: offset)
        }
    }

    /// A line typed as a message: sent, or kept with the error under it.
    private func sendTyped(_ bytes: [UInt8], historyLine: String, above: inout [UInt8], actions: inout [Action]) {
        if options.format == .json && bytes.allSatisfy({ JSONSkipper.isWhitespace($0) }) {
            editor.accept()   // a blank line is skipped, as on stdin
            return
        }
        switch messages(bytes) {
        case .success(let sends):
            for action in sends { send(action, above: &above, actions: &actions) }
            accept(historyLine, above: &above)
        case .failure(let rejection):
            editor.reject(rejection.message, atUTF8Offset: rejection.offset)
        }
    }

    /// Why a message was not sent, and where in it.
    struct Rejection: Error {
        var message: String
        var offset: Int
    }

    /// A message as a stdin line would become: raw with --text and --binary,
    /// else JSON through the same translation (envelopes, compaction).
    func messages(_ bytes: [UInt8]) -> Result<[Action], Rejection> {
        switch options.format {
        case .text: return .success([.sendText(bytes)])
        case .binary: return .success([.sendBinary(bytes)])
        case .json: break
        }
        let validation = bytes.withUnsafeBytes { JSONScanner.validate($0) }
        if let error = validation.error {
            if options.lenient { return .success([.sendText(bytes)]) }
            return .failure(Rejection(message: "invalid JSON at \(error.line):\(error.column): \(error.reason); "
                                      + (options.socketIO ? "not sent" : "not sent (/text sends text as is)"),
                                      offset: error.offset))
        }
        if options.socketIO, let error = bytes.withUnsafeBytes({ SocketIOLineCheck.check($0) }) {
            return .failure(Rejection(message: "not a Socket.IO event line: \(error.reason); not sent",
                                      offset: error.offset))
        }
        var sent: [Action] = []
        let outcome = bytes.withUnsafeBytes { raw in
            translator.translate(raw) { message in
                switch message {
                case .text(let payload): sent.append(.sendText(Array(payload)))
                case .binary(let payload): sent.append(.sendBinary(Array(payload)))
                }
            }
        }
        if case .rejected(let rejection) = outcome {
            return .failure(Rejection(message: rejection.reason + "; not sent",
                                      offset: Self.offset(ofColumn: rejection.column, in: bytes)))
        }
        return .success(sent)
    }

    /// Records a send and echoes it in the transcript as sent.
    func send(_ action: Action, above: inout [UInt8], actions: inout [Action]) {
        actions.append(action)
        if let codecViews {
            // As the line that makes the message: the JSON of a value, a
            // text in its envelope; so /resend makes the same message.
            switch action {
            case .sendBinary(let payload):
                if let json = payload.withUnsafeBytes({ try? Array(codecViews.decode($0)) }) {
                    above += json.withUnsafeBytes { transcribe($0, binary: false, direction: .sent, isJSON: true) }
                    return
                }
            case .sendText(let payload):
                var line = Array(#"{"$text":"#.utf8)
                payload.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &line) }
                line.append(UInt8(ascii: "}"))
                above += line.withUnsafeBytes { transcribe($0, binary: false, direction: .sent, isJSON: true) }
                return
            default:
                break
            }
        }
        switch action {
        case .sendText(let payload):
            above += payload.withUnsafeBytes { transcribe($0, binary: false, direction: .sent, isJSON: false) }
        case .sendBinary(let payload):
            above += payload.withUnsafeBytes { transcribe($0, binary: true, direction: .sent, isJSON: false) }
        default:
            break
        }
    }

    /// The line was handled: into the history (memory and file), and a new
    /// line. A line typed with a leading space stays out of the history, as
    /// with bash's ignorespace (wspipe(1): INTERACTIVE MODE).
    func accept(_ line: String, above: inout [UInt8]) {
        if line.first != " ", editor.history.add(line), var file = historyFile {
            if let warning = file.append(line, entries: editor.history.entries) {
                above += formatter.note(.warning(warning), at: options.clock())
            }
            historyFile = file
        }
        editor.accept()
    }

    func expandingHome(_ path: String) -> String {
        guard path.hasPrefix("~/"), let home = options.home, !home.isEmpty else { return path }
        return home + path.dropFirst()
    }

    /// UTF-8 offset of a 1-based column on the first line, as InputTranslator
    /// counts it for a rejected `$binary` (bytes).
    private static func offset(ofColumn column: Int, in bytes: [UInt8]) -> Int {
        min(max(column - 1, 0), bytes.count)
    }
}
