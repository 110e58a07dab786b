import WSBridge
import WSTransport
import WSTerminal

/// The program: parse the flags, plan the run (files, environment), then
/// print or run the client or the server, and exit with its status.
public enum App {
    public static func main() -> Never {
        let status = run(Array(CommandLine.arguments.dropFirst()), blankingSecrets: true)
        ProcessEnvironment.exit(status.rawValue)
    }

    /// `blankingSecrets`: the arguments are this process's own, whose
    /// passwords (`Flag.secret`) are blanked as soon as they are parsed.
    static func run(_ args: [String], blankingSecrets: Bool = false) -> ExitStatus {
        let options: Options
        let plan: Plan
        do {
            let environment = Environment.current()
            options = try ArgumentParser.parse(args, terminal: environment.stdinIsTerminal && environment.stdoutIsTerminal)
            if blankingSecrets {
                for secret in options.secretArguments { ProcessEnvironment.blankArgument(secret.index + 1, from: secret.offset) }
            }
            plan = try Plan.resolve(options, environment)
        } catch {
            return usageError(error.message)
        }
        switch plan {
        case .print(let text):
            writeFD(1, text)
            return .success
        case .client(let client, let policy, let bridge):
            return ClientSession(client: client, bridge: bridge, policy: policy,
                                 log: log(options), events: EventSink(enabled: options.events)).run()
        case .server(let server, let bridge):
            return ServerSession(options: server, bridge: bridge,
                                 log: log(options), events: EventSink(enabled: options.events)).run()
        }
    }

    static func log(_ options: Options) -> Diagnostics {
        Diagnostics(verbosity: options.verbose, quiet: options.quiet)
    }

    /// The message may quote an argument or a file: escaped like every diagnostic.
    static func usageError(_ message: String) -> ExitStatus {
        writeFD(2, "wspipe: \(TerminalEscaping.escaping(message))\nTry 'wspipe --help' for more information.\n")
        return .usage
    }

    static func writeFD(_ fd: Int32, _ text: String) {
        Array(text.utf8).withUnsafeBytes { Diagnostics.writeAll(fd, $0) }
    }
}
