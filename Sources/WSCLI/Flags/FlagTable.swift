/// Every flag wspipe accepts, in the order `--help` lists them within each
/// category. This list is the single source of the parser, `--help`, the man
/// page and the shell completions: adding a flag is adding an entry here.
public let flagTable: [Flag] = [
    // MARK: Connection (wspipe(1): OPTIONS, Connection)
    Flag(long: "header", short: "H", valueName: "NAME: VALUE",
         help: "Send this header with the handshake request; repeat for more headers.",
         category: .connection, repeatable: true,
         apply: { o, v throws(UsageError) in o.headers.append(try FlagValue.header("header", v)) }),
    Flag(long: "header-file", valueName: "FILE",
         help: "Read handshake headers from FILE, one 'Name: value' a line (keeps secrets out of ps).",
         category: .connection, completion: .file,
         apply: { o, v throws(UsageError) in o.headerFile = try FlagValue.nonEmpty("header-file", v) }),
    Flag(long: "origin", valueName: "URL",
         help: "Send this Origin header.",
         category: .connection,
         apply: { o, v throws(UsageError) in o.origin = try FlagValue.nonEmpty("origin", v) }),
    Flag(long: "user-agent", valueName: "STRING",
         help: "Send this User-Agent header.",
         category: .connection, defaultValue: defaultUserAgent,
         apply: { o, v in o.userAgent = v }),
    Flag(long: "protocol", valueName: "NAME",
         help: "Offer this subprotocol (Sec-WebSocket-Protocol); repeat to offer several.",
         category: .connection, repeatable: true,
         apply: { o, v throws(UsageError) in
             guard FlagValue.isToken(v) else {
                 throw UsageError("--protocol: invalid subprotocol name '\(v)'")
             }
             o.protocols.append(v)
         }),
    Flag(long: "connect-timeout", valueName: "DURATION",
         help: "Give up connecting (TCP, TLS and handshake) after this long.",
         category: .connection, defaultValue: "10s",
         apply: { o, v throws(UsageError) in o.connectTimeoutNanos = try FlagValue.duration("connect-timeout", v) }),
    Flag(long: "max-message-size", valueName: "SIZE",
         help: "Close the connection with 1009 when an incoming message is larger than this.",
         category: .connection, defaultValue: "64M",
         apply: { o, v throws(UsageError) in o.maxMessageSize = try FlagValue.size("max-message-size", v) }),
    .toggle("compress", nil, .connection,
            help: "Negotiate permessage-deflate compression (RFC 7692), with --listen too; "
                + "--max-message-size counts the decompressed size.",
            apply: { $0.compress = true }),

    // MARK: TLS (wspipe(1): OPTIONS, Connection)
    .toggle("insecure", "k", .tls,
            help: "Skip TLS certificate and hostname verification.",
            apply: { $0.insecure = true }),
    Flag(long: "cacert", valueName: "FILE",
         help: "Trust the CA certificates in FILE (PEM) instead of the system store.",
         category: .tls, completion: .file,
         apply: { o, v throws(UsageError) in o.cacert = try FlagValue.nonEmpty("cacert", v) }),
    Flag(long: "cert", valueName: "FILE",
         help: "Certificate (PEM) to present: the client's, or the server's with --listen.",
         category: .tls, completion: .file,
         apply: { o, v throws(UsageError) in o.cert = try FlagValue.nonEmpty("cert", v) }),
    Flag(long: "key", valueName: "FILE",
         help: "Private key (PEM) for --cert.",
         category: .tls, completion: .file,
         apply: { o, v throws(UsageError) in o.key = try FlagValue.nonEmpty("key", v) }),

    // MARK: Lines and messages (wspipe(1): LINES AND MESSAGES)
    .toggle("text", "t", .dataMode,
            help: "Raw line mode: each line is a text message and each message a line, no JSON.",
            conflicts: ["binary"],
            apply: { $0.lineMode = .text }),
    .toggle("binary", "b", .dataMode,
            help: "Raw line mode sending each line as a binary message.",
            conflicts: ["text"],
            apply: { $0.lineMode = .binary }),
    .toggle("nul", "0", .dataMode,
            help: "Separate lines with NUL instead of newline in raw line mode.",
            apply: { $0.nulSeparator = true }),
    Flag(long: "binary-output", valueName: "raw|base64|drop",
         help: "How raw line mode writes incoming binary messages.",
         category: .dataMode, completion: .choices(BinaryOutput.allCases.map(\.rawValue)),
         defaultValue: BinaryOutput.raw.rawValue,
         apply: { o, v throws(UsageError) in
             guard let mode = BinaryOutput(rawValue: v) else {
                 throw .invalidChoice("binary-output", v, choices: BinaryOutput.allCases.map(\.rawValue))
             }
             o.binaryOutput = mode
         }),
    .toggle("lenient", nil, .dataMode,
            help: "Send lines that are not valid JSON as raw text instead of rejecting them.",
            conflicts: ["strict"],
            apply: { $0.lenient = true }),
    .toggle("strict", nil, .dataMode,
            help: "Stop at the first line that is not valid JSON.",
            conflicts: ["lenient"],
            apply: { $0.strict = true }),

    // MARK: Routing (wspipe(1): ROUTING)
    Flag(long: "type-key", valueName: "KEYPATH",
         help: "Read the type that --route matches at this dotted key path of incoming JSON messages.",
         category: .routing, defaultValue: "type",
         apply: { o, v throws(UsageError) in o.typeKey = try FlagValue.keyPath("type-key", v) }),
    Flag(long: "route", valueName: "VALUE=DEST",
         help: "Write messages of type VALUE ($binary, $text, $event, * for the rest) to DEST: "
             + "stdout, stderr, drop, fd:N, a file, or |COMMAND; repeat for more routes.",
         category: .routing, repeatable: true,
         apply: { o, v throws(UsageError) in
             let route = try FlagValue.route("route", v)
             guard !o.routes.contains(where: { $0.value == route.value }) else {
                 throw UsageError("--route: VALUE '\(route.value)' given twice")
             }
             o.routes.append(route)
         }),
    Flag(long: "route-errors", valueName: RouteErrors.allCases.map(\.rawValue).joined(separator: "|"),
         help: "Whether a failing route destination (full disk, exited command) is reported on stderr.",
         category: .routing, completion: .choices(RouteErrors.allCases.map(\.rawValue)),
         defaultValue: RouteErrors.report.rawValue,
         apply: { o, v throws(UsageError) in
             guard let mode = RouteErrors(rawValue: v) else {
                 throw .invalidChoice("route-errors", v, choices: RouteErrors.allCases.map(\.rawValue))
             }
             o.routeErrorsIgnored = mode == .ignore
         }),

    // MARK: Ending (wspipe(1): OPTIONS, Ending)
    .toggle("no-close", "n", .ending,
            help: "At stdin EOF keep receiving until the server closes.",
            apply: { $0.noClose = true }),
    .toggle("one-message", "1", .ending,
            help: "Exit after one incoming message (same as --max-messages 1).",
            apply: { $0.maxMessages = 1 }),
    Flag(long: "max-messages", valueName: "N",
         help: "Exit after N incoming messages.",
         category: .ending,
         apply: { o, v throws(UsageError) in o.maxMessages = try FlagValue.positiveInteger("max-messages", v) }),
    .toggle("unidirectional", "u", .ending,
            help: "Only send stdin to the socket; ignore incoming messages.",
            conflicts: ["unidirectional-reverse"],
            apply: { $0.unidirectional = true }),
    .toggle("unidirectional-reverse", "U", .ending,
            help: "Only write incoming messages to stdout; do not read stdin.",
            conflicts: ["unidirectional"],
            apply: { $0.reverseUnidirectional = true }),
    Flag(long: "close-timeout", valueName: "DURATION",
         help: "At the end, wait this long for the peer's Close.",
         category: .ending, defaultValue: "2s",
         apply: { o, v throws(UsageError) in o.closeTimeoutNanos = try FlagValue.duration("close-timeout", v) }),

    // MARK: Keepalive, reconnect and replay (wspipe(1): RECONNECT AND REPLAY)
    Flag(long: "ping-interval", valueName: "DURATION",
         help: "Send a ping this often to keep the connection alive.",
         category: .reconnect, defaultValue: "off",
         apply: { o, v throws(UsageError) in o.pingIntervalNanos = try FlagValue.positiveDuration("ping-interval", v) }),
    Flag(long: "ping-timeout", valueName: "DURATION",
         help: "Drop the connection as dead when no pong to our ping comes back within this time.",
         category: .reconnect, defaultValue: "the ping interval", requires: ["ping-interval"],
         apply: { o, v throws(UsageError) in o.pingTimeoutNanos = try FlagValue.positiveDuration("ping-timeout", v) }),
    Flag(long: "backoff", valueName: "MIN[:MAX[:FACTOR]]",
         help: "Wait MIN before reconnecting, then FACTOR times longer after each failure, up to MAX.",
         category: .reconnect, defaultValue: BackoffValue.defaultText, clientOnly: true,
         apply: { o, v throws(UsageError) in
             let backoff = try BackoffValue.parse("backoff", v)
             o.backoffMinNanos = backoff.minNanos
             o.backoffMaxNanos = backoff.maxNanos
             o.backoffFactor = backoff.factor
         }),
    Flag(long: "jitter", valueName: "FRACTION",
         help: "Vary each reconnect delay at random by up to this fraction either way.",
         category: .reconnect, defaultValue: "0.2",
         apply: { o, v throws(UsageError) in o.jitter = try FlagValue.fraction("jitter", v) }),
    Flag(long: "max-retries", valueName: "N",
         help: "Give up with exit status 3 after N failed connection attempts in a row.",
         category: .reconnect, defaultValue: "unlimited", clientOnly: true,
         apply: { o, v throws(UsageError) in o.maxRetries = try FlagValue.nonNegativeInteger("max-retries", v) }),
    .toggle("no-reconnect", nil, .reconnect,
            help: "Exit when the connection ends instead of reconnecting.",
            clientOnly: true,
            apply: { $0.noReconnect = true }),
    .toggle("wait", nil, .reconnect,
            help: "Retry the first connection too, with the same backoff, instead of exiting with status 3.",
            clientOnly: true,
            apply: { $0.wait = true }),
    Flag(long: "queue-limit", valueName: "SIZE",
         help: "Hold at most this much of stdin while disconnected, then stop reading it.",
         category: .reconnect, defaultValue: "16M",
         apply: { o, v throws(UsageError) in o.queueLimit = try FlagValue.size("queue-limit", v) }),
    Flag(long: "on-connect", valueName: "MSG",
         help: "Send MSG first on each connection, ${NAME} replaced by its --capture; repeat for more.",
         category: .reconnect, repeatable: true, clientOnly: true,
         apply: { o, v throws(UsageError) in o.onConnect.append(try FlagValue.nonEmpty("on-connect", v)) }),
    Flag(long: "on-connect-file", valueName: "FILE",
         help: "Send the messages in FILE, one a line, first on each connection.",
         category: .reconnect, completion: .file, clientOnly: true,
         apply: { o, v throws(UsageError) in o.onConnectFile = try FlagValue.nonEmpty("on-connect-file", v) }),
    Flag(long: "on-reconnect", valueName: "MSG",
         help: "Send MSG instead of the on-connect messages when reconnecting; repeat for more.",
         category: .reconnect, repeatable: true, clientOnly: true,
         apply: { o, v throws(UsageError) in o.onReconnect.append(try FlagValue.nonEmpty("on-reconnect", v)) }),
    Flag(long: "capture", valueName: "NAME=KEYPATH",
         help: "Keep the latest value at KEYPATH in incoming JSON as ${NAME}; repeat for more names.",
         category: .reconnect, repeatable: true, clientOnly: true,
         apply: { o, v throws(UsageError) in
             let capture = try FlagValue.capture("capture", v)
             guard !o.captures.contains(where: { $0.name == capture.name }) else {
                 throw .duplicateCapture("capture", capture.name)
             }
             o.captures.append(capture)
         }),
    Flag(long: "ack", valueName: "KEYPATH",
         help: "Hold each sent message with a value at KEYPATH until a reply has the same value there; resend held ones on reconnect.",
         category: .reconnect, clientOnly: true,
         apply: { o, v throws(UsageError) in o.ackPath = try FlagValue.keyPath("ack", v) }),
    Flag(long: "ack-timeout", valueName: "DURATION",
         help: "At stdin EOF, wait this long for the outstanding acks.",
         category: .reconnect, defaultValue: "10s", requires: ["ack"],
         apply: { o, v throws(UsageError) in o.ackTimeoutNanos = try FlagValue.duration("ack-timeout", v) }),

    // MARK: Server mode (wspipe(1): OPTIONS, Server mode)
    Flag(long: "listen", valueName: "[HOST:]PORT[/PATH]",
         help: "Accept WebSocket clients on this address instead of connecting to a URL.",
         category: .server,
         apply: { o, v throws(UsageError) in o.listen = try FlagValue.nonEmpty("listen", v) }),
    .toggle("once", nil, .server,
            help: "Serve one client and exit when it leaves.",
            requires: ["listen"],
            apply: { $0.once = true }),
    .toggle("tag", nil, .server,
            help: "Add \"$client\":N to each JSON object line from client N, and send a stdin line "
                + "carrying \"$client\":N to that client only.",
            requires: ["listen"],
            apply: { $0.tag = true }),
    Flag(long: "send-timeout", valueName: "DURATION",
         help: "Disconnect a client that has taken no data for this long instead of holding back the others.",
         category: .server, defaultValue: "off", requires: ["listen"],
         apply: { o, v throws(UsageError) in o.sendTimeoutNanos = try FlagValue.positiveDuration("send-timeout", v) }),

    // MARK: Diagnostics (wspipe(1): OPTIONS, Diagnostics)
    .toggle("events", nil, .output,
            help: "Write lifecycle events (connected, reconnecting, ...) as {\"$event\":...} JSON lines on stderr.",
            apply: { $0.events = true }),
    .toggle("stats", nil, .output,
            help: "At exit, write a JSON summary on stderr: messages and bytes each way, reconnects, unacked.",
            apply: { $0.stats = true }),

    // MARK: General (wspipe(1): SYNOPSIS; OPTIONS, Diagnostics)
    .toggle("help", "h", .general,
            help: "Print this help and exit.",
            apply: { $0.showHelp = true }),
    .toggle("version", "V", .general,
            help: "Print the version and exit.",
            apply: { $0.showVersion = true }),
    Flag(long: "generate", valueName: DocGenerator.kinds.joined(separator: "|"),
         help: "Print the man page or the completion script for this shell and exit.",
         category: .general, completion: .choices(DocGenerator.kinds),
         apply: { o, v throws(UsageError) in
             guard DocGenerator.kinds.contains(v) else {
                 throw .invalidChoice("generate", v, choices: DocGenerator.kinds)
             }
             o.generate = v
         }),
    .toggle("verbose", "v", .general,
            help: "Print lifecycle notices on stderr; repeat for more detail.",
            repeatable: true,
            apply: { $0.verbose += 1 }),
    .toggle("quiet", "q", .general,
            help: "Print nothing on stderr but fatal errors.",
            apply: { $0.quiet = true }),
]

/// Lookups and integrity checks over `flagTable`.
public enum FlagTable {
    /// The flag with this long name (no dashes).
    public static func flag(long: some StringProtocol) -> Flag? {
        flagTable.first { $0.long == long }
    }

    /// The flag with this short name.
    public static func flag(short: Character) -> Flag? {
        flagTable.first { $0.short == short }
    }

    /// Problems with the table, empty when it is sound: duplicate long or short
    /// names, long names that are not lowercase words joined by '-', a value
    /// flag without a value name or a switch with one, empty help or help not
    /// ending in '.', help writing its own "(default: ...)", a repeatable flag
    /// whose help does not say so, a default
    /// or completion on a switch, a choices completion the value name does not
    /// list, conflicts/requires naming unknown flags or not listed both ways.
    public static func validate(_ table: [Flag] = flagTable) -> [String] {
        var problems: [String] = []
        var longs: Set<String> = []
        var shorts: Set<Character> = []
        for flag in table {
            let name = "--" + flag.long
            if !longs.insert(flag.long).inserted { problems.append("\(name): duplicate long name") }
            if let short = flag.short, !shorts.insert(short).inserted {
                problems.append("\(name): duplicate short name -\(short)")
            }
            if !isWellFormedLongName(flag.long) { problems.append("\(name): malformed long name") }
            if let short = flag.short, short == "-" || short == "=" || !short.isASCII || short.isWhitespace {
                problems.append("\(name): unusable short name")
            }
            if let valueName = flag.valueName, valueName.isEmpty { problems.append("\(name): empty value name") }
            if flag.help.isEmpty { problems.append("\(name): empty help") }
            if !flag.help.isEmpty && !flag.help.hasSuffix(".") { problems.append("\(name): help must end with '.'") }
            if flag.help.lowercased().contains("(default") {
                problems.append("\(name): help states a default (set defaultValue instead)")
            }
            if flag.repeatable && !flag.help.lowercased().contains("repeat") {
                problems.append("\(name): repeatable but the help does not say so")
            }
            if !flag.takesValue {
                if flag.defaultValue != nil { problems.append("\(name): switch with a default value") }
                if flag.completion != .none { problems.append("\(name): switch with a completion") }
            }
            if case .choices(let choices) = flag.completion {
                if choices.isEmpty { problems.append("\(name): empty choices") }
                if flag.valueName != choices.joined(separator: "|") {
                    problems.append("\(name): value name must list the choices")
                }
                if let defaultValue = flag.defaultValue, !choices.contains(defaultValue) {
                    problems.append("\(name): default is not one of the choices")
                }
            }
            for other in flag.conflicts {
                guard let target = table.first(where: { $0.long == other }) else {
                    problems.append("\(name): conflicts with unknown flag --\(other)")
                    continue
                }
                if !target.conflicts.contains(flag.long) {
                    problems.append("\(name): conflict with --\(other) not listed both ways")
                }
            }
            for other in flag.requires where !table.contains(where: { $0.long == other }) {
                problems.append("\(name): requires unknown flag --\(other)")
            }
        }
        return problems
    }

    private static func isWellFormedLongName(_ long: String) -> Bool {
        guard let first = long.first, first.isLetter, first.isLowercase, long.last != "-" else { return false }
        return !long.contains("--") && long.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
    }
}
