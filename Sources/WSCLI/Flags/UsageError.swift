import WSBridge

/// A command-line mistake: the message is printed as `wspipe: <message>` on
/// stderr and the program exits with status 2 (wspipe(1): EXIT STATUS).
public struct UsageError: Error, Equatable, CustomStringConvertible {
    /// Ready for the user; names the flag involved, e.g. "missing value for --header".
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

// The wording of every parser error lives here so the texts stay consistent
// (and the tests can quote them exactly).
extension UsageError {
    static func unknownOption(_ spelled: String, suggestion: String?) -> UsageError {
        if let suggestion {
            return UsageError("unknown option '\(spelled)' (did you mean '--\(suggestion)'?)")
        }
        return UsageError("unknown option '\(spelled)'")
    }

    static func missingValue(_ flag: Flag) -> UsageError {
        UsageError("missing value for --\(flag.long)")
    }

    static func unexpectedValue(_ flag: Flag) -> UsageError {
        UsageError("--\(flag.long) does not take a value")
    }

    static func invalidDuration(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): invalid duration '\(value)' (use e.g. 250ms, 2s, 1.5m)")
    }

    static func durationTooLong(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): '\(value)' is longer than \(DurationLimit.text), the longest duration wspipe takes")
    }

    static func invalidSize(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): invalid size '\(value)' (use e.g. 512K, 64M, 1G)")
    }

    static func notPositive(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): expected a positive integer, got '\(value)'")
    }

    static func notNonNegative(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): expected an integer >= 0, got '\(value)'")
    }

    static func notFraction(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): expected a fraction from 0 to 1, got '\(value)'")
    }

    static func invalidKeyPath(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): invalid key path '\(value)' (use keys joined by dots, e.g. meta.seq)")
    }

    static func invalidBackoff(_ long: String, _ value: String) -> UsageError {
        UsageError("--\(long): invalid value '\(value)' (use MIN[:MAX[:FACTOR]], e.g. 500ms:30s:2)")
    }

    static func duplicateCapture(_ long: String, _ name: String) -> UsageError {
        UsageError("--\(long): name '\(name)' given twice")
    }

    static func clientOnly(_ long: String) -> UsageError {
        UsageError("--\(long) is for client mode (not with --listen)")
    }

    /// A flag the run's mode would ignore (`Flag.modes`), named with the mode.
    static func notInMode(_ flag: Flag, _ mode: RunMode) -> UsageError {
        if mode == .check {
            return UsageError("--\(flag.long) does nothing with --check (the recordings say what is sent and expected)")
        }
        if flag.modes == .check { return flag.long == "check" ? conflict("listen", "check") : requires(flag.long, "check") }
        switch mode {
        // (A `where` binds to the one pattern before it: each pattern has its own.)
        case .server where flag.clientOnly, .exec where flag.clientOnly:
            return clientOnly(flag.long)
        case .client where flag.serverOnly, .interactive where flag.serverOnly:
            return requires(flag.long, "listen")
        case .exec:
            return UsageError("--\(flag.long) does nothing with --exec (the programs take the place of stdin and stdout)")
        case .server:
            return UsageError("--\(flag.long) works with --exec only")
        case .interactive:
            return UsageError("--\(flag.long) does nothing in interactive mode (stdin and stdout are a terminal, or -i)")
        case .client:
            return UsageError("--\(flag.long) works in interactive mode only (stdin and stdout a terminal, or -i)")
        case .check:
            return UsageError("--\(flag.long) does nothing with --check")
        }
    }

    static func invalidChoice(_ long: String, _ value: String, choices: [String]) -> UsageError {
        UsageError("--\(long): invalid value '\(value)' (choose one of: \(choices.joined(separator: ", ")))")
    }

    static func conflict(_ first: String, _ second: String) -> UsageError {
        UsageError("--\(first) and --\(second) cannot be used together")
    }

    static func requires(_ flag: String, _ other: String) -> UsageError {
        UsageError("--\(flag) requires --\(other)")
    }

    static func requiresInServerMode(_ flag: String, _ other: String) -> UsageError {
        UsageError("--\(flag) requires --\(other) with --listen")
    }

    static let missingURL = UsageError("missing URL (see 'wspipe --help')")
    static let urlAndListen = UsageError("give either a URL or --listen, not both")

    static func listenNotURL(_ arg: String, address: String) -> UsageError {
        UsageError("'\(arg)' is websocat's way to listen (did you mean '--listen \(address.isEmpty ? "PORT" : address)'?)")
    }

    static func badURL(_ url: String) -> UsageError {
        UsageError("URL must start with ws:// or wss:// (got '\(url)')")
    }

    /// `-u user:pass`: curl's -u is --user here; wspipe's -u is websocat's.
    static func userAfterShortU(_ arg: String) -> UsageError {
        let user = arg.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
        return UsageError("'-u \(user):…': -u is websocat's --unidirectional here, not curl's -u; "
            + "write --user \(user):PASSWORD (or --user-file FILE, which keeps the password out of ps)")
    }

    static func extraArgument(_ arg: String) -> UsageError {
        UsageError("unexpected argument '\(arg)' (only one URL is allowed)")
    }
}
