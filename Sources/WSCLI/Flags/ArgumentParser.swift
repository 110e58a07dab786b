/// Turns argv into `Options` by walking `flagTable`.
///
/// Forms accepted (getopt_long style, like ripgrep and curl): `--long`,
/// `--long=value`, `--long value`, `-s value`, `-svalue`, `-s=value`, bundled
/// switches (`-nvq`, where the last letter of a bundle may take a value:
/// `-kH 'X: y'`), `--` ends the flags, and `-` alone is a positional argument.
/// A value is taken from the next argument whatever it looks like (curl does
/// the same: `-H --x` sends a header named "--x", not an option).
public enum ArgumentParser {
    /// Parses argv (without the program name).
    ///
    /// Parsing starts from `defaults`, so a flag not given has the value its
    /// table entry documents.
    ///
    /// `-h/--help`, `-V/--version` and `--generate KIND` win: as soon as one
    /// is met (before `--`), parsing stops and `defaults` with only
    /// `showHelp`, `showVersion` or `generate` set is returned, even if
    /// earlier arguments were wrong (a `--generate` with an unknown KIND is an
    /// ordinary usage error).
    /// Otherwise the first error in argument order is thrown; then the rules
    /// of the flags given, in the order given (`FlagRule`: conflicts such as
    /// `-t`/`-b`, requirements such as `--ping-timeout` needing
    /// `--ping-interval`, server-mode flags needing `--listen`, `--cert`
    /// needing `--key` with `--listen`), exactly one of URL or `--listen`,
    /// and then no flag outside the run's mode (`Flag.modes`): no client
    /// flag (`--ack`, `--origin`, `--backoff`...) with `--listen`, none that
    /// --exec or the interactive mode would ignore. Whether the client is
    /// interactive depends on the terminal: `terminal` says whether stdin and
    /// stdout both are one.
    public static func parse(_ args: [String], terminal: Bool = false) throws(UsageError) -> Options {
        var options = try parse(tokens(args), terminal: terminal)
        options.secretArguments = secretArguments(args)
        return options
    }

    /// Where the passwords (`Flag.secret`) are in argv: the argument's index
    /// and the byte offset of the value in it (`--user=NAME:PW`, `-uNAME:PW`
    /// hold more than the value), for the caller to blank them.
    public static func secretArguments(_ args: [String]) -> [(index: Int, offset: Int)] {
        read(args).secrets
    }

    /// Applies tokens in order: the command line's, or those of the config
    /// files before it (`Invocation`), whose errors name the file and line.
    static func parse(_ tokens: [ArgumentToken], terminal: Bool) throws(UsageError) -> Options {
        var parse = Parse()
        parse.terminal = terminal
        for token in tokens {
            switch token {
            case .flag(let flag, let value, let origin): parse.apply(flag, value, origin: origin)
            case .positional(let arg): parse.positional(arg)
            case .error(let error): parse.fail(error)
            }
            if let special = parse.special { return special }
        }
        return try parse.finish()
    }

    /// The options the tokens give, their mistakes ignored and nothing
    /// checked: enough to tell the run's mode (`Invocation`).
    static func provisional(_ tokens: [ArgumentToken]) -> Options {
        var parse = Parse()
        for case .flag(let flag, let value, _) in tokens { parse.apply(flag, value) }
        return parse.options
    }

    /// argv read as flags with their values and positional arguments, in
    /// order, without applying anything: a mistake is a token of its own,
    /// so that a later --help still wins.
    static func tokens(_ args: [String]) -> [ArgumentToken] {
        read(args).tokens
    }

    private static func read(_ args: [String]) -> TokenReader {
        var reader = TokenReader(args: args)
        while reader.index < args.count {
            let arg = args[reader.index]
            reader.index += 1
            if reader.flagsEnded || arg == "-" || !arg.hasPrefix("-") {
                reader.positional(arg, after: reader.index >= 2 ? args[reader.index - 2] : nil)
            } else if arg == "--" {
                reader.flagsEnded = true
            } else if arg.hasPrefix("--") {
                reader.long(arg.dropFirst(2))
            } else {
                reader.shortBundle(arg.dropFirst())
            }
        }
        return reader
    }

    /// `Options()` with every flag's `defaultValue` applied through its own
    /// `apply`: what a command line without flags means. A default the flag
    /// itself refuses is a bug in the table (a unit test parses each one).
    public static let defaults: Options = {
        var options = Options()
        for flag in flagTable {
            guard let value = flag.defaultValue else { continue }
            do throws(UsageError) {
                try flag.apply(&options, value)
            } catch {
                preconditionFailure("flag table: the default of --\(flag.long) is refused: \(error.message)")
            }
        }
        return options
    }()
}

/// One argument as the parser reads it, before it is applied.
enum ArgumentToken {
    /// A flag and its value ("" for a switch); `origin` is nil on the
    /// command line, "FILE:LINE" for a config file's line.
    case flag(Flag, String, origin: String?)
    case positional(String)
    case error(UsageError)
}

/// Cuts argv into tokens (the forms `ArgumentParser` lists).
private struct TokenReader {
    let args: [String]
    var index = 0
    var flagsEnded = false
    var tokens: [ArgumentToken] = []
    /// Where the values of `Flag.secret` flags are (`ArgumentParser.secretArguments`).
    var secrets: [(index: Int, offset: Int)] = []

    init(args: [String]) { self.args = args }

    /// A positional argument; `previous` is the argument before it. websocat's
    /// and curl's habits meet at `-u`: `-u user:pass` is websocat's
    /// --unidirectional followed by what looks like a URL, so say --user.
    mutating func positional(_ arg: String, after previous: String?) {
        if let previous, previous.hasPrefix("-"), !previous.hasPrefix("--"), previous.last == "u",
           previous.dropFirst().allSatisfy({ FlagTable.flag(short: $0)?.takesValue == false }),
           arg.contains(":"), !arg.lowercased().hasPrefix("ws://"), !arg.lowercased().hasPrefix("wss://") {
            return tokens.append(.error(.userAfterShortU(arg)))
        }
        tokens.append(.positional(arg))
    }

    /// `--name`, `--name=value` or `--name value` (`body` is without the dashes).
    mutating func long(_ body: Substring) {
        let equals = body.firstIndex(of: "=")
        let name = equals.map { body[..<$0] } ?? body
        let inline = equals.map { String(body[body.index(after: $0)...]) }
        guard let flag = FlagTable.flag(long: name) else {
            let suggestion = Suggestion.closest(to: String(name), among: flagTable.map(\.long))
            tokens.append(.error(.unknownOption("--" + name, suggestion: suggestion)))
            return
        }
        if !flag.takesValue {
            if let inline, !flag.optionalValues.isEmpty { return take(flag, inline) }
            if inline != nil { return tokens.append(.error(.unexpectedValue(flag))) }
            take(flag, optionalValue(flag))
        } else if let inline, let equals {
            if flag.secret {
                let whole = body.base
                secrets.append((index - 1, whole.utf8.distance(from: whole.startIndex, to: body.index(after: equals))))
            }
            take(flag, inline)
        } else if index < args.count {
            if flag.secret { secrets.append((index, 0)) }
            take(flag, args[index])
            index += 1
        } else {
            tokens.append(.error(.missingValue(flag)))
        }
    }

    /// `-abc`, `-H value`, `-Hvalue`, `-H=value`, `-kH value` (`letters` is
    /// without the dash). An unknown letter ends the bundle: what follows it
    /// might have been its value.
    mutating func shortBundle(_ letters: Substring) {
        var rest = letters
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let flag = FlagTable.flag(short: letter) else {
                tokens.append(.error(.unknownOption("-\(letter)", suggestion: Suggestion.forWebsocatShort(letter))))
                return
            }
            if !flag.takesValue {
                if rest.first == "=" { return tokens.append(.error(.unexpectedValue(flag))) }
                take(flag, rest.isEmpty ? optionalValue(flag) : "")
                continue
            }
            if rest.first == "=" { rest = rest.dropFirst() }
            if !rest.isEmpty || letters.last == "=" {
                if flag.secret {
                    let whole = rest.base
                    secrets.append((index - 1, whole.utf8.distance(from: whole.startIndex, to: rest.startIndex)))
                }
                take(flag, String(rest))
            } else if index < args.count {
                if flag.secret { secrets.append((index, 0)) }
                take(flag, args[index])
                index += 1
            } else {
                tokens.append(.error(.missingValue(flag)))
            }
            return
        }
    }

    mutating func take(_ flag: Flag, _ value: String) {
        tokens.append(.flag(flag, value, origin: nil))
    }

    /// The next argument when it is a word that can only be the switch's
    /// optional value (`--help tls`; not a flag, not a URL), taken for the
    /// flag to check; "" otherwise.
    mutating func optionalValue(_ flag: Flag) -> String {
        guard !flag.optionalValues.isEmpty, index < args.count else { return "" }
        let next = args[index]
        guard flag.optionalValues.contains(next) || (!next.hasPrefix("-") && !next.contains("://")) else { return "" }
        index += 1
        return next
    }
}

/// The state of one parse: the options so far, the flags met in order, and
/// the first error (kept rather than thrown so a later --help still wins).
private struct Parse {
    var options = ArgumentParser.defaults
    var seen: [String] = []
    var firstError: UsageError? = nil
    var positionalCount = 0
    /// stdin and stdout are both a terminal (the interactive mode, unless -U).
    var terminal = false

    /// Set once --help, --version or a valid --generate has been applied.
    var special: Options? {
        guard options.showHelp || options.showVersion || options.generate != nil else { return nil }
        var result = ArgumentParser.defaults
        result.showHelp = options.showHelp
        result.helpTopic = options.helpTopic
        result.showVersion = options.showVersion
        result.generate = options.generate
        return result
    }

    mutating func fail(_ error: UsageError) {
        if firstError == nil { firstError = error }
    }

    /// A config file's line is named in front of its error.
    mutating func apply(_ flag: Flag, _ value: String, origin: String? = nil) {
        if !seen.contains(flag.long) { seen.append(flag.long) }
        do {
            try flag.apply(&options, value)
        } catch {
            fail(origin.map { UsageError("\($0): \(error.message)") } ?? error)
        }
    }

    mutating func positional(_ arg: String) {
        positionalCount += 1
        if positionalCount > 1 { fail(.extraArgument(arg)); return }
        let lower = arg.lowercased()
        // URL schemes are case-insensitive (RFC 3986 §3.1).
        guard lower.hasPrefix("ws://") || lower.hasPrefix("wss://") else {
            fail(Suggestion.websocatListen(arg).map { .listenNotURL(arg, address: $0) } ?? .badURL(arg))
            return
        }
        options.url = arg
    }

    /// The checks that need the whole command line.
    func finish() throws(UsageError) -> Options {
        if let firstError { throw firstError }
        for (position, long) in seen.enumerated() {
            guard let flag = FlagTable.flag(long: long) else { continue }
            for rule in flag.rules { try check(rule, of: long, at: position) }
            // A server flag without --listen is told what it needs, in argument order.
            if options.listen == nil && flag.serverOnly { throw .requires(long, "listen") }
        }
        if options.listen != nil {
            if positionalCount > 0 { throw .urlAndListen }
        } else if options.url == nil && options.checks.isEmpty && options.replay == nil {
            // A recording may hold the URL (--check, --replay): the plan looks there.
            throw .missingURL
        }
        let mode = RunMode.of(options, stdinIsTerminal: terminal, stdoutIsTerminal: terminal)
        if let refused = seen.lazy.compactMap(FlagTable.flag(long:)).first(where: { !$0.modes.contains(mode.flagMode) }) {
            throw .notInMode(refused, mode)
        }
        return options
    }

    /// One rule of the flag given `position`-th (client-only flags are
    /// checked last, once it is known that both a URL and --listen are not given).
    func check(_ rule: FlagRule, of long: String, at position: Int) throws(UsageError) {
        switch rule {
        case .conflicts(let other):
            // Only against flags given before: each pair is reported once, in the user's order.
            if seen[..<position].contains(other) { throw .conflict(other, long) }
        case .requires(let other):
            if !seen.contains(other) { throw .requires(long, other) }
        case .requiresInServerMode(let other):
            if options.listen != nil && !seen.contains(other) { throw .requiresInServerMode(long, other) }
        case .clientOnly, .serverOnly:
            break
        }
    }
}
