/// Where a flag is listed in `--help` and the man page.
public enum FlagCategory: String, CaseIterable, Sendable {
    // The order of the sections in `--help` and the man page.
    case connection, tls, dataMode, routing, ending, reconnect, server, output, general

    /// Section heading in `--help` (and the man page).
    public var heading: String {
        switch self {
        case .connection: return "Connection"
        case .tls: return "TLS"
        case .dataMode: return "Lines and messages"
        case .routing: return "Routing"
        case .ending: return "Ending"
        case .reconnect: return "Keepalive, reconnect and replay"
        case .output: return "Diagnostics"
        case .server: return "Server mode"
        case .general: return "General"
        }
    }
}

/// What shell completion offers for a flag's value.
public enum CompletionKind: Equatable, Sendable {
    case none
    case file
    case choices([String])
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
    /// Only meaningful when connecting to a URL: refused with `--listen`.
    case clientOnly
    /// Only meaningful with `--listen`: refused without it.
    case serverOnly
}

/// One command-line flag. A single definition drives parsing, `--help`, the
/// man page and the shell completions (as ripgrep's flag definitions do):
/// adding a flag is adding one entry to `flagTable`, with its one-line
/// `help`, its `defaultValue`, its `rules` and, for the man page, its `doc`.
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
    /// The man page's text after `help`: what a reader needs beyond one
    /// sentence (the values, the details, how it works with other flags).
    /// Empty for flags whose help says it all.
    public let doc: [DocBlock]
    /// Validates the value and stores it ("" for switches). Only validates and
    /// stores: checks needing several flags run after parsing.
    let apply: @Sendable (inout Options, String) throws(UsageError) -> Void

    init(long: String, short: Character? = nil, valueName: String? = nil,
         help: String, category: FlagCategory, completion: CompletionKind = .none,
         defaultValue: String? = nil, defaultNote: String? = nil, repeatable: Bool = false,
         rules: [FlagRule] = [], doc: [DocBlock] = [],
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
        self.doc = doc
        self.apply = apply
    }

    /// A flag without a value.
    static func toggle(_ long: String, _ short: Character?, _ category: FlagCategory,
                       help: String, repeatable: Bool = false, rules: [FlagRule] = [], doc: [DocBlock] = [],
                       apply: @escaping @Sendable (inout Options) -> Void) -> Flag {
        Flag(long: long, short: short, help: help, category: category,
             repeatable: repeatable, rules: rules, doc: doc, apply: { options, _ in apply(&options) })
    }

    /// Long names of the flags this one may not be given with.
    public var conflicts: [String] {
        rules.compactMap { if case .conflicts(let other) = $0 { other } else { nil } }
    }

    public var clientOnly: Bool { rules.contains(.clientOnly) }
    public var serverOnly: Bool { rules.contains(.serverOnly) }

    /// True when the flag takes a value (`--flag VALUE`).
    public var takesValue: Bool { valueName != nil }

    /// The flag as written in help: "-H, --header <NAME: VALUE>" or
    /// "--origin <URL>" (callers indent flags without a short name).
    public var synopsis: String {
        var text = ""
        if let short { text += "-\(short), " }
        text += "--" + long
        if let valueName { text += " <\(valueName)>" }
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
