import WSMessages
/// Where a flag is listed in `--help` and the man page.
public enum FlagCategory: String, CaseIterable, Sendable {
    // The order of the sections in `--help` and the man page.
    case connection, tls, dataMode, routing, ending, reconnect, scripting, check, server, output, general

    /// Section heading in `--help` (and the man page).
    public var heading: String {
        switch self {
        case .connection: return "Connection"
        case .tls: return "TLS"
        case .dataMode: return "Lines and messages"
        case .routing: return "Routing"
        case .ending: return "Ending"
        case .reconnect: return "Keepalive, reconnect and replay"
        case .scripting: return "Scripted peer"
        case .check: return "Checking a server"
        case .output: return "Diagnostics"
        case .server: return "Server mode"
        case .general: return "General"
        }
    }

    /// The word `--help CATEGORY` takes.
    public var name: String {
        switch self {
        case .connection: return "connection"
        case .tls: return "tls"
        case .dataMode: return "lines"
        case .routing: return "routing"
        case .ending: return "ending"
        case .reconnect: return "reconnect"
        case .scripting: return "peer"
        case .check: return "check"
        case .output: return "diagnostics"
        case .server: return "server"
        case .general: return "general"
        }
    }
}

/// What shell completion offers for a flag's value.
public enum CompletionKind: Equatable, Sendable {
    case none
    case file
    case choices([String])
    /// The `[NAME]` sections of the config files (the default one and those
    /// of -K on the command line), read when completing.
    case profiles
}

/// The ways wspipe runs, as a set: each flag names those it works in
/// (`Flag.modes`), and the parser refuses it in the others (exit 2, naming
/// the mode), so that no flag is ever accepted and then ignored.
public struct FlagModes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Connected to a URL, stdin and stdout pipes or files.
    public static let client = FlagModes(rawValue: 1)
    /// Connected to a URL with the line editor (wspipe(1): INTERACTIVE MODE):
    /// stdin and stdout a terminal, or -i.
    public static let interactive = FlagModes(rawValue: 2)
    /// --listen: stdin goes to the clients, their messages to stdout.
    public static let server = FlagModes(rawValue: 4)
    /// --listen --exec: each client talks to a program instead of stdin and stdout.
    public static let exec = FlagModes(rawValue: 8)
    /// --check: recordings are played to a server and what comes back is
    /// compared (wspipe(1): CHECKING A SERVER); stdin and stdout are not used.
    public static let check = FlagModes(rawValue: 16)

    /// Both ways of connecting to a URL: the default of a flag.
    public static let clients: FlagModes = [.client, .interactive]
    /// Both ways of serving.
    public static let servers: FlagModes = [.server, .exec]
    /// The modes that move stdin and stdout (not --check, which a flag names
    /// itself when it works there).
    public static let all: FlagModes = [.client, .interactive, .server, .exec]
}

/// The one mode a run is in, decided by --listen, --exec, --check, -i and
/// whether stdin and stdout are a terminal.
public enum RunMode: CaseIterable, Sendable {
    case client, interactive, server, exec, check

    public var flagMode: FlagModes {
        switch self {
        case .client: return .client
        case .interactive: return .interactive
        case .server: return .server
        case .exec: return .exec
        case .check: return .check
        }
    }

    /// The client is interactive with -i, or when stdin and stdout are both a
    /// terminal and -U does not leave stdin unread, nor --wrap or --replay
    /// take it as lines or in its place (wspipe(1): INTERACTIVE MODE).
    static func of(_ o: Options, stdinIsTerminal: Bool, stdoutIsTerminal: Bool) -> RunMode {
        if o.listen != nil { return o.exec == nil ? .server : .exec }
        if !o.checks.isEmpty { return .check }
        let linesOfTheirOwn = o.reverseUnidirectional || o.wrap != nil || o.replay != nil
        if o.interactive || (stdinIsTerminal && stdoutIsTerminal && !linesOfTheirOwn) { return .interactive }
        return .client
    }
}

/// How a flag combines with the others: data the parser checks once the
/// whole command line is read (a usage error naming both flags) and the man
/// page states.
public enum FlagRule: Equatable, Sendable {
    /// Refused together with this flag (list the rule on both flags).
    case conflicts(String)
    /// Refused without this flag.
    case requires(String)
    /// With `--listen`, refused without this flag: `--cert` needs `--key` in
    /// server mode, while a client reads the key from the certificate file.
    case requiresInServerMode(String)
    /// Modes `.clients` (the default): refused with `--listen`. Kept so that
    /// an entry can say it in words; `modes` says the same.
    case clientOnly
    /// Modes `.servers`: refused without `--listen`.
    case serverOnly
}

/// One command-line flag. A single definition drives parsing, `--help`, the
/// man page and the shell completions (as ripgrep's flag definitions do):
/// adding a flag is adding one entry to `flagTable`, with its one-line
/// `help`, its `defaultValue`, its `rules`, for the man page its `doc`, and
/// for its mode test its `example`.
public struct Flag: Sendable {
    /// Long name without dashes, e.g. "header".
    public let long: String
    /// Short name, e.g. "H"; nil when the flag has none.
    public let short: Character?
    /// Placeholder for the value in help ("NAME: VALUE"); nil = a switch.
    public let valueName: String?
    /// One sentence. The default is appended from `defaultValue`; never write
    /// it here (see `fullHelp`).
    public let help: String
    public let category: FlagCategory
    public let completion: CompletionKind
    /// The value the flag has when it is not given, written as a user would
    /// write it ("10s"): the parser applies it through `apply` before reading
    /// the command line, and help and the man page show it. This is the one
    /// place a default is written. nil = none.
    public let defaultValue: String?
    /// A default that is not a value of the flag ("the ping interval"): shown
    /// like `defaultValue`, never applied. Only where no value could say it.
    public let defaultNote: String?
    /// May be given several times with each value kept (or counted, for `-v`).
    /// Non-repeatable value flags given twice: the last one wins (like curl).
    public let repeatable: Bool
    /// How the flag combines with others (see `FlagRule`); empty for most.
    public let rules: [FlagRule]
    /// The modes the flag works in; it is refused (exit 2) in the others.
    /// When an entry does not say, `.serverOnly` means `.servers` and
    /// anything else the safe default, `.clients`: a new flag is refused
    /// with --listen until its entry says that the server uses it (and a
    /// test fails for a mode that would accept it and not use it).
    public let modes: FlagModes
    /// The man page's text after `help`: what a reader needs beyond one
    /// sentence (the values, the details, how it works with other flags).
    /// Empty for flags whose help says it all.
    public let doc: [DocBlock]
    /// A switch that may take one of these values as its next argument
    /// (`--help tls`, `--help=all`), shown as `[NAME]`; nil for the others.
    public let optionalValue: (name: String, choices: [String])?
    /// The value is a password: wspipe blanks it in its own argument vector
    /// once it is parsed, as curl does, so that ps(1) stops showing it.
    public let secret: Bool
    /// A value other than the default, which the flag's mode test gives it
    /// (FlagModesTests: the flag changes the run in each of its modes and is
    /// refused in the others), after the samples of the flags it requires.
    /// nil for a switch (its example is itself) and for a value the test
    /// must make first (a file to read), which the test's own list holds.
    public let example: String?
    /// Validates the value and stores it ("" for switches). Only validates and
    /// stores: checks needing several flags run after parsing.
    let apply: @Sendable (inout Options, String) throws(UsageError) -> Void

    init(long: String, short: Character? = nil, valueName: String? = nil,
         help: String, category: FlagCategory, completion: CompletionKind = .none,
         defaultValue: String? = nil, defaultNote: String? = nil, repeatable: Bool = false,
         rules: [FlagRule] = [], modes: FlagModes? = nil, secret: Bool = false, doc: [DocBlock] = [],
         optionalValue: (name: String, choices: [String])? = nil, example: String? = nil,
         apply: @escaping @Sendable (inout Options, String) throws(UsageError) -> Void) {
        self.long = long
        self.short = short
        self.valueName = valueName
        self.help = help
        self.category = category
        self.completion = completion
        self.defaultValue = defaultValue
        self.defaultNote = defaultNote
        self.repeatable = repeatable
        self.rules = rules
        self.modes = modes ?? (rules.contains(.serverOnly) ? .servers : .clients)
        self.explicitModes = modes != nil
        self.secret = secret
        self.doc = doc
        self.optionalValue = optionalValue
        self.example = example
        self.apply = apply
    }

    /// Whether the entry gave `modes` itself (FlagTable.validate wants it
    /// said once: not also as `.clientOnly` or `.serverOnly`).
    let explicitModes: Bool

    /// A flag without a value.
    static func toggle(_ long: String, _ short: Character?, _ category: FlagCategory,
                       help: String, repeatable: Bool = false, rules: [FlagRule] = [], modes: FlagModes? = nil,
                       doc: [DocBlock] = [], apply: @escaping @Sendable (inout Options) -> Void) -> Flag {
        Flag(long: long, short: short, help: help, category: category,
             repeatable: repeatable, rules: rules, modes: modes, doc: doc, apply: { options, _ in apply(&options) })
    }

    /// The values `optionalValue` allows (none for most switches).
    var optionalValues: [String] { optionalValue?.choices ?? [] }

    /// Long names of the flags this one may not be given with.
    public var conflicts: [String] {
        rules.compactMap { if case .conflicts(let other) = $0 { other } else { nil } }
    }

    /// Works with a URL (client or interactive mode) and is refused with --listen.
    public var clientOnly: Bool { !modes.isDisjoint(with: .clients) && modes.isDisjoint(with: .servers) }
    /// Refused without --listen.
    public var serverOnly: Bool { modes.isSubset(of: .servers) }

    /// True when the flag takes a value (`--flag VALUE`).
    public var takesValue: Bool { valueName != nil }

    /// The flag as written in help: "-H, --header <NAME: VALUE>" or
    /// "--origin <URL>" (callers indent flags without a short name).
    public var synopsis: String {
        var text = ""
        if let short { text += "-\(short), " }
        text += "--" + long
        if let valueName { text += " <\(valueName)>" }
        if let optionalValue { text += " [\(optionalValue.name)]" }
        return text
    }

    /// The default as help shows it: `defaultValue` or `defaultNote`.
    public var shownDefault: String? { defaultValue ?? defaultNote }

    /// `help` with "(default: X)" added before its final period, derived from
    /// `shownDefault` so the two can never disagree.
    public var fullHelp: String {
        guard let shownDefault else { return help }
        var sentence = Substring(help)
        if sentence.hasSuffix(".") { sentence = sentence.dropLast() }
        return "\(sentence) (default: \(shownDefault))."
    }
}

extension Flag {
    /// "a|b|c": a value name listing the choices. (Not `joined(separator:)`:
    /// the flag table is built at every start, and the generic `joined`
    /// looked its associated types up at run time there, 100,000
    /// instructions of a one-echo run, callgrind.)
    static func alternatives(_ choices: [String]) -> String {
        var text = ""
        for index in 0 ..< choices.count {
            if index > 0 { text += "|" }
            text += choices[index]
        }
        return text
    }
}
