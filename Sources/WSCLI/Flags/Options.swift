/// How raw line mode (`-t`/`-b`) writes incoming binary messages (SPEC §2).
public enum BinaryOutput: String, CaseIterable, Sendable {
    case raw, base64, drop
}

/// What a stdin line becomes and how messages are written (SPEC §2).
public enum LineMode: Sendable, Equatable {
    /// The default: NDJSON both ways, `$text`/`$binary` wrappers.
    case json
    /// `-t`: a line is a text message as is; a message is written plus `\n`.
    case text
    /// `-b`: a line is sent as a binary message.
    case binary
}

/// Everything the command line can say, with the spec's defaults. Filled by
/// `ArgumentParser.parse` from the flag table; each field is written by one
/// flag's `apply` (and the positional URL).
public struct Options: Sendable {
    public var url: String? = nil
    /// `--listen [HOST:]PORT[/PATH]`, raw; split later by the server code.
    public var listen: String? = nil
    /// `-H 'Name: value'`, in order; name validated as an HTTP token, value
    /// with its leading spaces trimmed.
    public var headers: [(name: String, value: String)] = []
    public var headerFile: String? = nil
    public var origin: String? = nil
    /// nil means the default, "wspipe/<version>" (see `effectiveUserAgent`).
    public var userAgent: String? = nil
    public var protocols: [String] = []
    public var connectTimeoutNanos: Int64 = 10_000_000_000
    public var insecure = false
    public var cacert: String? = nil
    public var cert: String? = nil
    public var key: String? = nil
    public var maxMessageSize: Int = 64 << 20
    public var lineMode: LineMode = .json
    /// `-0`: NUL instead of `\n` as the separator in raw line mode.
    public var nulSeparator = false
    public var binaryOutput: BinaryOutput = .raw
    public var lenient = false
    public var strict = false
    /// `-n`: at stdin EOF keep receiving until the server closes.
    public var noClose = false
    /// Incoming messages to accept before exiting; `-1` sets 1.
    public var maxMessages: Int? = nil
    /// `-u`: stdin to socket only.
    public var unidirectional = false
    /// `-U`: socket to stdout only.
    public var reverseUnidirectional = false
    public var closeTimeoutNanos: Int64 = 2_000_000_000
    /// Number of `-v` given.
    public var verbose = 0
    public var quiet = false
    /// `--once` (server mode): serve one client, exit when it leaves.
    public var once = false
    public var showHelp = false
    public var showVersion = false

    public init() {}

    /// The User-Agent header to send: `--user-agent` or "wspipe/<version>".
    public var effectiveUserAgent: String { userAgent ?? defaultUserAgent }
}

/// Sent when `--user-agent` is not given (SPEC §4).
let defaultUserAgent = "wspipe/" + wspipeVersion
