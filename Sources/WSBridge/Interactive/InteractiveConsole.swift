import WSCore
import WSJSON
import WSTerminal
import WSTransport

/// The interactive mode's terminal side (wspipe(1): INTERACTIVE MODE), for
/// the client session to drive: a line editor with history, a transcript of
/// messages and lifecycle notes printed above the prompt, and the slash
/// commands. Pure: it never reads or writes a file descriptor (apart from the
/// history file); every method returns the bytes to write to the terminal.
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
/// - A message received: write `console.showMessage(payload, binary:, direction: .received)`.
///   A message the session sends on its own (--on-connect, replay, the file of
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

        public init() {}

        /// `$XDG_STATE_HOME/wspipe/history`, else `~/.local/state/wspipe/history`
        /// (the caller reads the two variables: nothing here reads the environment).
        public static func historyPath(stateHome: String?, home: String?) -> String? {
            HistoryFile.defaultPath(stateHome: stateHome, home: home)
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

    private let options: Options
    private var decoder = KeyDecoder()
    private var editor: LineEditor
    private var renderer: EditorRenderer
    private let formatter: TranscriptFormatter
    private var historyFile: HistoryFile?
    private var translator: InputTranslator
    /// Shown above the prompt by `start()` (a history file that could not be read).
    private var startupWarning: String?

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
        formatter = TranscriptFormatter(colors: options.colors)
        translator = InputTranslator(format: options.format, lenient: options.lenient,
                                     maxPendingBytes: options.maxMessageSize)
    }

    /// The history as loaded and added to, oldest first.
    public var history: [String] { editor.history.entries }

    /// The first drawing of the prompt.
    public func start() -> [UInt8] {
        var above: [UInt8] = []
        if let warning = startupWarning { above = formatter.note(.warning(warning), at: options.clock()) }
        startupWarning = nil
        var out: [UInt8] = []
        renderer.printAbove(above, view: editor.view, into: &out)
        return out
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

    /// A message, printed above the prompt.
    public func showMessage(_ payload: UnsafeRawBufferPointer, binary: Bool,
                            direction: TranscriptDirection) -> [UInt8] {
        printAbove(formatter.message(payload, binary: binary, direction: direction, at: options.clock()))
    }

    /// A lifecycle note, printed above the prompt.
    public func show(_ note: ConsoleNote) -> [UInt8] {
        printAbove(formatter.note(note, at: options.clock()))
    }

    /// The terminal's new size; returns the redrawn edit area.
    public func resize(columns: Int, rows: Int) -> [UInt8] {
        renderer.resize(columns: columns, screenRows: rows)
        return redraw()
    }

    /// The edit area drawn again from scratch (after the process was continued).
    public func redraw() -> [UInt8] {
        var out: [UInt8] = []
        renderer.draw(editor.view, into: &out)
        return out
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
        var drawn = editor.view
        for key in keys {
            switch editor.handle(key) {
            case .none: break
            case .submit(let line): submit(line, above: &above, actions: &output.actions)
            case .endOfInput: output.actions.append(.endOfInput)
            case .interrupt: output.actions.append(.interrupt)
            case .suspend: output.actions.append(.suspend)
            case .clearScreen:
                if !above.isEmpty { renderer.printAbove(above, view: editor.view, into: &output.bytes) }
                above = []
                renderer.clearScreen(editor.view, into: &output.bytes)
                drawn = editor.view
            }
        }
        // One drawing for the whole read: a burst of keys is one write.
        if !above.isEmpty {
            renderer.printAbove(above, view: editor.view, into: &output.bytes)
        } else if editor.view != drawn {
            renderer.draw(editor.view, into: &output.bytes)
        }
        return output
    }

    private func printAbove(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        renderer.printAbove(bytes, view: editor.view, into: &out)
        return out
    }

    // MARK: submitting

    private func submit(_ line: String, above: inout [UInt8], actions: inout [Action]) {
        switch SlashCommand.parse(line) {
        case .message:
            sendMessage(line, historyLine: line, above: &above, actions: &actions)
        case .escapedMessage(let text):
            sendMessage(text, historyLine: line, above: &above, actions: &actions)
        case .command(let command):
            run(command, line: line, above: &above, actions: &actions)
        case .error(let message, let offset):
            editor.reject(message, atUTF8Offset: offset)
        }
    }

    private func run(_ command: SlashCommand, line: String, above: inout [UInt8], actions: inout [Action]) {
        switch command {
        case .ping(let text): actions.append(.ping(Array(text.utf8)))
        case .close(let code, let reason): actions.append(.close(code: code, reason: reason))
        case .binary(let path): actions.append(.sendFile(path: expandingHome(path)))
        case .text(let text): send(.sendText(Array(text.utf8)), above: &above, actions: &actions)
        case .reconnect: actions.append(.reconnect)
        case .quit: actions.append(.quit)
        case .help: above += formatter.note(text: SlashCommand.helpText, at: options.clock())
        }
        accept(line, above: &above)
    }

    private func sendMessage(_ text: String, historyLine: String, above: inout [UInt8], actions: inout [Action]) {
        let bytes = Array(text.utf8)
        switch options.format {
        case .text: send(.sendText(bytes), above: &above, actions: &actions)
        case .binary: send(.sendBinary(bytes), above: &above, actions: &actions)
        case .json:
            guard translateJSON(bytes, above: &above, actions: &actions) else { return }
        }
        accept(historyLine, above: &above)
    }

    /// A typed JSON value through the same translation as stdin lines
    /// (envelopes, compaction). False when it was not sent: the editor keeps
    /// it, with the error under it and the cursor on the offending byte.
    private func translateJSON(_ bytes: [UInt8], above: inout [UInt8], actions: inout [Action]) -> Bool {
        if bytes.allSatisfy({ JSONSkipper.isWhitespace($0) }) {
            editor.accept()   // a blank line is skipped, as on stdin
            return false
        }
        let validation = bytes.withUnsafeBytes { JSONScanner.validate($0) }
        if let error = validation.error {
            if options.lenient {
                send(.sendText(bytes), above: &above, actions: &actions)
                return true
            }
            editor.reject("invalid JSON at \(error.line):\(error.column): \(error.reason); not sent (/text sends text as is)",
                          atUTF8Offset: error.offset)
            return false
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
            editor.reject(rejection.reason + "; not sent", atUTF8Offset: Self.offset(ofColumn: rejection.column, in: bytes))
            return false
        }
        for action in sent { send(action, above: &above, actions: &actions) }
        return true
    }

    /// Records a send and echoes it in the transcript as sent.
    private func send(_ action: Action, above: inout [UInt8], actions: inout [Action]) {
        actions.append(action)
        switch action {
        case .sendText(let payload):
            above += payload.withUnsafeBytes { formatter.message($0, binary: false, direction: .sent, at: options.clock()) }
        case .sendBinary(let payload):
            above += payload.withUnsafeBytes { formatter.message($0, binary: true, direction: .sent, at: options.clock()) }
        default:
            break
        }
    }

    /// The line was handled: into the history (memory and file), and a new
    /// line. A line typed with a leading space stays out of the history, as
    /// with bash's ignorespace (wspipe(1): INTERACTIVE MODE).
    private func accept(_ line: String, above: inout [UInt8]) {
        if line.first != " ", editor.history.add(line), var file = historyFile {
            if let warning = file.append(line, entries: editor.history.entries) {
                above += formatter.note(.warning(warning), at: options.clock())
            }
            historyFile = file
        }
        editor.accept()
    }

    private func expandingHome(_ path: String) -> String {
        guard path.hasPrefix("~/"), let home = options.home, !home.isEmpty else { return path }
        return home + path.dropFirst()
    }

    /// UTF-8 offset of a 1-based column on the first line, as InputTranslator
    /// counts it for a rejected `$binary` (bytes).
    private static func offset(ofColumn column: Int, in bytes: [UInt8]) -> Int {
        min(max(column - 1, 0), bytes.count)
    }
}
