import WSCore
import WSJSON
import WSCodecs
import WSMessages

/// How the bridge moves lines and messages and when it stops (wspipe(1): LINES AND MESSAGES; OPTIONS, Ending),
/// shared by the client and the server.
///
/// The defaults of the flags are the flag table's (Sources/WSCLI/Flags/FlagTable.swift),
/// which `Plan` sets here: a field a flag controls starts out zero, empty or
/// nil, never with a second copy of its default.
public struct BridgeOptions: Sendable {
    public var format: LineFormat = .json
    /// Raw line mode separator: '\n', NUL with -0, none with --no-line.
    public var separator: UInt8? = 10
    public var binaryOutput: BinaryOutputMode = .raw
    public var lenient = false
    public var strict = false
    /// -n: at stdin EOF keep receiving until the peer closes.
    public var noClose = false
    /// -1 / --max-messages: stop after this many incoming messages.
    public var maxMessages: Int? = nil
    /// -u: only stdin to socket.
    public var sendOnly = false
    /// -U: only socket to stdout.
    public var receiveOnly = false
    public var closeTimeoutNanos: Int64 = 0
    public var maxMessageSize = 0
    /// --stats: a final JSON summary on stderr.
    public var stats = false
    /// --trace: every frame both ways on stderr.
    public var trace = false
    /// --route VALUE=DEST and --type-key (wspipe(1): ROUTING).
    public var routes: [RouteSpec] = []
    public var typeKey: [String] = []
    /// --route-errors ignore: a failed destination does not change the exit status.
    public var routeErrorsIgnored = false
    /// --close-code CODE[:REASON]: the Close sent when the run ends on its
    /// own (stdin EOF, --max-messages, --until, --idle-timeout).
    public var closeCode: CloseCode = .normal
    public var closeReason = ""
    /// --rate: stdin messages go out this far apart; nil = as fast as they come.
    public var rateIntervalNanos: Int64? = nil
    /// Colour JSON on stdout (set when stdout is a terminal and NO_COLOR is unset).
    public var colorize = false
    /// --answer, --heartbeat, --wrap, --record, --replay (wspipe(1): SCRIPTED PEER).
    public var script = ScriptOptions()
    /// --socketio (wspipe(1): SOCKET.IO): Socket.IO events as lines; nil: plain WebSocket messages.
    public var socketIO: SocketIOOptions? = nil
    /// --codec: binary messages are MessagePack or CBOR, read and written as
    /// JSON lines (wspipe(1): BINARY CODECS); nil: binary is `$binary`.
    public var codec: BinaryFormat? = nil

    public init() {}

    var stdinSettings: StdinPump.Settings {
        // --wrap takes each line as raw text (checked as UTF-8), whatever the format of the output.
        StdinPump.Settings(format: script.wrap == nil ? format : .text, separator: separator, lenient: lenient,
                           strict: strict, maxPendingBytes: maxMessageSize, rateIntervalNanos: rateIntervalNanos,
                           wrapping: script.wrap != nil, socketIOLines: socketIO != nil && script.wrap == nil,
                           codec: codec)
    }

    /// Formatters for the lines of incoming messages: escapes only ever go to
    /// a terminal, colours only to stdout at a terminal, never into a pipe, a
    /// routed file or a command. `anyTerminal`: some destination is one.
    func formatters(anyTerminal: Bool) -> LineFormatters {
        let plain = OutputFormatter(format: format, binaryOutput: binaryOutput, separator: separator)
        var terminal = plain
        terminal.escapesForTerminal = true
        var stdoutTerminal = terminal
        stdoutTerminal.colorize = colorize
        return LineFormatters(plain: plain, terminal: terminal, stdoutTerminal: stdoutTerminal, anyTerminal: anyTerminal)
    }
}
