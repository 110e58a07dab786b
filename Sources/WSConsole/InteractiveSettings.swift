/// How the client runs its interactive mode (wspipe(1): INTERACTIVE MODE),
/// as the command line and the environment decided it. The session reads
/// nothing from the environment itself.
public struct InteractiveSettings: Equatable, Sendable {
    /// The terminal the edit area and the transcript are drawn on: stdout,
    /// or stderr when -i was given with stdout redirected.
    public var terminalFD: Int32
    /// ANSI colours (never with NO_COLOR).
    public var colors: Bool
    /// The history file; nil keeps the history in memory only.
    public var historyPath: String?
    /// $HOME, for "~/" in /binary paths.
    public var home: String?
    /// The saved messages' file (/save, /send); nil when there is no home for it.
    public var savedMessagesPath: String?
    /// Bytes of messages the transcript keeps for /find, /show, /resend (--history-size).
    public var transcriptBytes: Int
    /// The status row (off with --no-status-line or WSPIPE_PLAIN=1).
    public var statusLine: Bool

    public init(terminalFD: Int32 = 1, colors: Bool = false, historyPath: String? = nil, home: String? = nil,
                savedMessagesPath: String? = nil, transcriptBytes: Int = 0, statusLine: Bool = false) {
        self.terminalFD = terminalFD
        self.colors = colors
        self.historyPath = historyPath
        self.home = home
        self.savedMessagesPath = savedMessagesPath
        self.transcriptBytes = transcriptBytes
        self.statusLine = statusLine
    }
}
