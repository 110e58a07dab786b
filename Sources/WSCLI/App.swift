import WSBridge
import WSTransport
import WSTerminal
import WSMessages

/// The program: read the config files and the flags, plan the run (files,
/// environment), then print or run the client or the server, and exit with
/// its status. `wspipe curl ...` first turns a curl command into flags.
public enum App {
    public static func main() -> Never {
        let status = run(Array(CommandLine.arguments.dropFirst()), blankingSecrets: true)
        ProcessEnvironment.exit(status.rawValue)
    }

    /// `blankingSecrets`: the arguments are this process's own, whose
    /// passwords (`Flag.secret`, curl's -u and -U) are blanked as soon as
    /// they are read, as curl does, so that ps(1) stops showing them.
    static func run(_ args: [String], blankingSecrets: Bool = false) -> ExitStatus {
        if args.first == "curl" {
            let curlArgs = Array(args.dropFirst())
            if blankingSecrets { blank(CurlCommand.secretArguments(curlArgs), argumentsBefore: 2) }
            return CurlCommand.run(curlArgs)
        }
        return run(args, notes: [], blankingSecrets: blankingSecrets)
    }

    /// Blanks each secret: its argument's index among the arguments read,
    /// which come after `argumentsBefore` others in argv (the program's name...).
    static func blank(_ secrets: [(index: Int, offset: Int)], argumentsBefore: Int) {
        for secret in secrets { ProcessEnvironment.blankArgument(secret.index + argumentsBefore, from: secret.offset) }
    }

    /// `notes`: what `wspipe curl` made of its command, said with -v like
    /// the config files read.
    static func run(_ args: [String], notes: [String], blankingSecrets: Bool = false) -> ExitStatus {
        let options: Options
        let plan: Plan
        let invocation: Invocation
        do {
            let environment = Environment.current()
            let terminal = environment.stdinIsTerminal && environment.stdoutIsTerminal
            invocation = try Invocation.assemble(args, environment, terminal: terminal)
            options = try ArgumentParser.parse(invocation.tokens, terminal: terminal)
            if blankingSecrets { blank(ArgumentParser.secretArguments(args), argumentsBefore: 1) }
            plan = try Plan.resolve(options, environment)
        } catch {
            return usageError(error.message)
        }
        let log = log(options)
        for note in notes + invocation.notes { log.info(note) }
        switch plan {
        case .print(let text):
            writeFD(1, text)
            return .success
        case .client(let client, let policy, let bridge):
            // A redirect may lead to wss:// (-L): the secrets would be logged then.
            let mayUseTLS = client.url.secure || client.redirects.follow
            if let path = client.tls.keyLogFile, mayUseTLS, !startKeyLog(path, log) { return .runtimeError }
            return ClientSession(client: client, bridge: bridge, policy: policy,
                                 log: log, events: EventSink(enabled: options.events)).run()
        case .check(let check, let bridge):
            let connections = check.connections.joined()
            if let path = connections.first?.tls.keyLogFile,
               connections.contains(where: { $0.url.secure || $0.redirects.follow }),
               !startKeyLog(path, log) { return .runtimeError }
            return CheckSession(options: check, bridge: bridge,
                                log: log, events: EventSink(enabled: options.events)).run()
        case .server(let server, let bridge):
            if let path = server.keyLogFile, server.certFile != nil, !startKeyLog(path, log) { return .runtimeError }
            return ServerSession(options: server, bridge: bridge,
                                 log: log, events: EventSink(enabled: options.events)).run()
        }
    }

    /// Opens the TLS key log and says so: a file that decrypts the run's
    /// connections must never be written unnoticed (curl says nothing, and
    /// SSLKEYLOGFILE set long ago in a shell profile is easily forgotten).
    static func startKeyLog(_ path: String, _ log: Diagnostics) -> Bool {
        if let error = TLSKeyLog.open(path) {
            log.fatal("--keylog \(path): \(error.reason)")
            return false
        }
        log.warning("TLS secrets are logged to \(path) (--keylog or SSLKEYLOGFILE): "
                    + "anyone who can read it can decrypt these connections")
        return true
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
