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
        var parse = Parse()
        parse.terminal = terminal
        var index = 0
        var flagsEnded = false
        while index < args.count {
            let arg = args[index]
            index += 1
            if flagsEnded || arg == "-" || !arg.hasPrefix("-") {
                parse.positional(arg, after: index >= 2 ? args[index - 2] : nil)
            } else if arg == "--" {
                flagsEnded = true
            } else if arg.hasPrefix("--") {
                parse.long(arg.dropFirst(2), args, &index)
            } else {
                parse.shortBundle(arg.dropFirst(), args, &index)
            }
            if let special = parse.special { return special }
        }
        return try parse.finish()
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
        result.showVersion = options.showVersion
        result.generate = options.generate
        return result
    }

    mutating func fail(_ error: UsageError) {
        if firstError == nil { firstError = error }
    }

    mutating func apply(_ flag: Flag, _ value: String) {
        if !seen.contains(flag.long) { seen.append(flag.long) }
        do {
            try flag.apply(&options, value)
        } catch {
            fail(error)
        }
    }

    /// `--name`, `--name=value` or `--name value` (`body` is without the dashes).
    mutating func long(_ body: Substring, _ args: [String], _ index: inout Int) {
        let equals = body.firstIndex(of: "=")
        let name = equals.map { body[..<$0] } ?? body
        let inline = equals.map { String(body[body.index(after: $0)...]) }
        guard let flag = FlagTable.flag(long: name) else {
            let suggestion = Suggestion.closest(to: String(name), among: flagTable.map(\.long))
            fail(.unknownOption("--" + name, suggestion: suggestion))
            return
        }
        if !flag.takesValue {
            if inline != nil { fail(.unexpectedValue(flag)); return }
            apply(flag, "")
        } else if let inline {
            if flag.secret, let equals {
                let whole = body.base
                noteSecret(at: index - 1, offset: whole.utf8.distance(from: whole.startIndex, to: body.index(after: equals)))
            }
            apply(flag, inline)
        } else if index < args.count {
            if flag.secret { noteSecret(at: index, offset: 0) }
            apply(flag, args[index])
            index += 1
        } else {
            fail(.missingValue(flag))
        }
    }

    mutating func noteSecret(at index: Int, offset: Int) {
        options.secretArguments.append((index, offset))
    }

    /// `-abc`, `-H value`, `-Hvalue`, `-H=value`, `-kH value` (`letters` is
    /// without the dash). An unknown letter ends the bundle: what follows it
    /// might have been its value.
    mutating func shortBundle(_ letters: Substring, _ args: [String], _ index: inout Int) {
        var rest = letters
        while let letter = rest.first {
            rest = rest.dropFirst()
            guard let flag = FlagTable.flag(short: letter) else {
                fail(.unknownOption("-\(letter)", suggestion: Suggestion.forWebsocatShort(letter)))
                return
            }
            if !flag.takesValue {
                if rest.first == "=" { fail(.unexpectedValue(flag)); return }
                apply(flag, "")
                continue
            }
            if rest.first == "=" { rest = rest.dropFirst() }
            if !rest.isEmpty || letters.last == "=" {
                if flag.secret {
                    let whole = rest.base
                    noteSecret(at: index - 1, offset: whole.utf8.distance(from: whole.startIndex, to: rest.startIndex))
                }
                apply(flag, String(rest))
            } else if index < args.count {
                if flag.secret { noteSecret(at: index, offset: 0) }
                apply(flag, args[index])
                index += 1
            } else {
                fail(.missingValue(flag))
            }
            return
        }
    }

    /// `previous`: the argument before it, for curl's `-u user:pass`, which
    /// here is websocat's -u and a stray argument.
    mutating func positional(_ arg: String, after previous: String? = nil) {
        if let previous, previous.hasPrefix("-"), !previous.hasPrefix("--"), previous.last == "u",
           previous.dropFirst().allSatisfy({ FlagTable.flag(short: $0)?.takesValue == false }),
           arg.contains(":"), !arg.lowercased().hasPrefix("ws://"), !arg.lowercased().hasPrefix("wss://") {
            fail(.userAfterShortU(arg))
            return
        }
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
        } else if options.url == nil {
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
