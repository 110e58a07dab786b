/// Every flag wspipe accepts, in the order `--help` lists them within each
/// category. This list is the single source of the parser, `--help`, the man
/// page and the shell completions: adding a flag is adding an entry here.
public let flagTable: [Flag] = [
    // MARK: Connection (SPEC §4)
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

    // MARK: TLS (SPEC §4)
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

    // MARK: Lines and messages (SPEC §2)
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

    // MARK: Ending (SPEC §6)
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

    // MARK: Server mode (SPEC §9)
    Flag(long: "listen", valueName: "[HOST:]PORT[/PATH]",
         help: "Accept WebSocket clients on this address instead of connecting to a URL.",
         category: .server,
         apply: { o, v throws(UsageError) in o.listen = try FlagValue.nonEmpty("listen", v) }),
    .toggle("once", nil, .server,
            help: "Serve one client and exit when it leaves.",
            requires: ["listen"],
            apply: { $0.once = true }),

    // MARK: General (SPEC §1, §7)
    .toggle("help", "h", .general,
            help: "Print this help and exit.",
            apply: { $0.showHelp = true }),
    .toggle("version", "V", .general,
            help: "Print the version and exit.",
            apply: { $0.showVersion = true }),
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
    /// ending in '.', a repeatable flag whose help does not say so, a default
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
