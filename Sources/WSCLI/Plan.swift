import WSBridge
import WSCore

/// What one run of wspipe does: the end of the options pipeline, argv →
/// `Options` (the flag table, defaults included) → `Plan` (files read, the
/// environment consulted) → a session.
///
/// Every field of the bridge's option structs that a flag controls is set
/// here from `Options`, so the structs' own defaults never decide what the
/// program does (PlanTests checks that each field is set).
enum Plan {
    /// `--help`, `--version`, `--generate`: print this on stdout and exit 0.
    case print(String)
    case client(ClientOptions, SessionPolicy, BridgeOptions)
    case server(ServerOptions, BridgeOptions)

    /// A URL, `--listen` address or `--route` destination that does not
    /// parse, or a file that cannot be read, is a usage error.
    static func resolve(_ o: Options, _ environment: Environment) throws(UsageError) -> Plan {
        if o.showHelp { return .print(HelpRenderer.render(width: 80)) }
        if o.showVersion { return .print(wspipeVersionLine + "\n") }
        if let kind = o.generate {
            guard let text = DocGenerator.render(kind) else { throw UsageError("--generate: unknown kind '\(kind)'") }
            return .print(text)
        }
        let bridge = try bridgeOptions(o, environment)
        if let listen = o.listen { return .server(try serverOptions(o, listen: listen), bridge) }
        var client = try clientOptions(o, environment)
        client.interactive = try interactiveSettings(o, environment)
        return .client(client, try sessionPolicy(o), bridge)
    }

    /// The interactive mode (wspipe(1): INTERACTIVE MODE): with stdin and
    /// stdout both a terminal, or -i with stdin one; never in a pipe, and not
    /// with -U, which reads no stdin.
    static func interactiveSettings(_ o: Options, _ environment: Environment) throws(UsageError) -> InteractiveSettings? {
        let automatic = environment.stdinIsTerminal && environment.stdoutIsTerminal && !o.reverseUnidirectional
        guard o.interactive || automatic else { return nil }
        guard environment.stdinIsTerminal else { throw UsageError("--interactive: stdin is not a terminal") }
        let terminal: Int32
        if environment.stdoutIsTerminal { terminal = 1 }
        else if environment.stderrIsTerminal { terminal = 2 }
        else { throw UsageError("--interactive: neither stdout nor stderr is a terminal to draw on") }
        return InteractiveSettings(terminalFD: terminal, colors: !environment.noColor,
                                   historyPath: historyPath(environment), home: environment.home)
    }

    /// WSPIPE_HISTFILE when set (empty: no history file at all), else the
    /// XDG default (wspipe(1): ENVIRONMENT).
    static func historyPath(_ environment: Environment) -> String? {
        if let file = environment.historyFile { return file.isEmpty ? nil : file }
        return InteractiveConsole.Options.historyPath(stateHome: environment.stateHome, home: environment.home)
    }

    static func bridgeOptions(_ o: Options, _ environment: Environment) throws(UsageError) -> BridgeOptions {
        var b = BridgeOptions()
        b.format = o.noLine && o.lineFormat == .json ? .text : o.lineFormat
        b.separator = o.noLine ? nil : o.nulSeparator ? 0 : 10
        b.binaryOutput = o.binaryOutput
        b.lenient = o.lenient
        b.strict = o.strict
        b.noClose = o.noClose
        b.maxMessages = o.maxMessages
        b.sendOnly = o.unidirectional
        b.receiveOnly = o.reverseUnidirectional
        b.closeTimeoutNanos = o.closeTimeoutNanos
        b.maxMessageSize = o.maxMessageSize
        b.stats = o.stats
        b.trace = o.trace
        b.routes = try o.routes.map { route throws(UsageError) in
            switch RouteSpec.parse("\(route.value)=\(route.destination)") {
            case .success(let spec): return spec
            case .failure(let error): throw UsageError("--route: \(error.message)")
            }
        }
        b.typeKey = o.typeKey
        b.routeErrorsIgnored = o.routeErrorsIgnored
        b.closeCode = CloseCode(rawValue: UInt16(o.closeCode))
        b.closeReason = o.closeReason
        b.rateIntervalNanos = o.rateIntervalNanos
        // Colour only for a person at a terminal; NO_COLOR wins (wspipe(1): ENVIRONMENT).
        b.colorize = environment.stdoutIsTerminal && !environment.noColor
        return b
    }

    static func serverOptions(_ o: Options, listen: String) throws(UsageError) -> ServerOptions {
        guard let address = ListenAddress(parsing: listen) else {
            throw UsageError("--listen: expected [HOST:]PORT[/PATH] or unix:PATH, got '\(listen)'")
        }
        var s = ServerOptions(address: address)
        s.once = o.once
        s.protocols = o.protocols
        s.certFile = o.cert
        s.keyFile = o.key
        s.tag = o.tag
        s.compress = o.compress
        s.sendTimeoutNanos = o.sendTimeoutNanos
        s.clientCAFile = o.cacert
        s.allowedOrigins = o.allowedOrigins
        s.maxClients = o.maxClients
        s.relay = o.relay
        s.exec = o.exec
        return s
    }

    static func clientOptions(_ o: Options, _ environment: Environment) throws(UsageError) -> ClientOptions {
        let url: WebSocketURL
        do {
            url = try WebSocketURL(parsing: o.url ?? "")
        } catch {
            throw UsageError("\(error) (got '\(o.url ?? "")')")
        }
        var c = ClientOptions(url: url)
        c.headers = o.headers
        if let file = o.headerFile { c.headers += try OptionFiles.headers(fromFile: file) }
        c.headerCommand = o.headerCommand
        c.protocols = o.protocols
        c.origin = o.origin
        c.userAgent = o.userAgent
        c.connectTimeoutNanos = o.connectTimeoutNanos
        c.tls.insecure = o.insecure
        c.tls.caFile = o.cacert
        c.tls.certFile = o.cert
        c.tls.keyFile = o.key
        c.route = try ProxySelection.route(for: url, o, environment: environment.variable)
        c.compress = o.compress
        return c
    }

    static func sessionPolicy(_ o: Options) throws(UsageError) -> SessionPolicy {
        var p = SessionPolicy()
        p.reconnect = !o.noReconnect
        p.waitForFirstConnection = o.wait
        p.backoff.minNanos = o.backoffMinNanos
        p.backoff.maxNanos = o.backoffMaxNanos
        p.backoff.factor = o.backoffFactor
        p.backoff.jitter = o.jitter
        p.maxRetries = o.maxRetries
        p.pingIntervalNanos = o.pingIntervalNanos
        p.pingTimeoutNanos = o.pingTimeoutNanos
        p.queueLimit = o.queueLimit
        p.onConnect = o.onConnect
        if let file = o.onConnectFile { p.onConnect += try OptionFiles.messages(fromFile: file) }
        p.onReconnect = o.onReconnect
        p.captures = o.captures
        p.ackPath = o.ackPath
        p.ackTimeoutNanos = o.ackTimeoutNanos
        p.until = o.until.map { UntilCondition(path: $0.path, value: $0.value) }
        p.idleTimeoutNanos = o.idleTimeoutNanos
        p.lingerNanos = o.lingerNanos
        return p
    }
}
