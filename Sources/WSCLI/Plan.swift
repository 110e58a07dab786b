import WSBridge
import WSCore
import WSConsole
import WSConnect

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
    case check(CheckOptions, BridgeOptions)

    /// A URL, `--listen` address or `--route` destination that does not
    /// parse, or a file that cannot be read, is a usage error.
    static func resolve(_ o: Options, _ environment: Environment) throws(UsageError) -> Plan {
        if o.showHelp { return .print(HelpRenderer.render(width: 80, topic: o.helpTopic)) }
        if o.showVersion { return .print(wspipeVersionLine + "\n") }
        if let kind = o.generate {
            guard let text = DocGenerator.render(kind) else { throw UsageError("--generate: unknown kind '\(kind)'") }
            return .print(text)
        }
        var bridge = try bridgeOptions(o, environment)
        bridge.script = try scriptOptions(o, server: o.listen != nil)
        bridge.socketIO = try socketIOOptions(o)
        try OptionFiles.checkReadable(["cacert": o.cacert, "cert": o.cert, "key": o.key])
        if let listen = o.listen {
            var server = try serverOptions(o, listen: listen)
            server.keyLogFile = o.keylog ?? environment.keyLogFile
            if server.exec != nil { try execOnly(&bridge) }
            return .server(server, bridge)
        }
        if !o.checks.isEmpty { return .check(try checkOptions(o, environment), bridge) }
        var client = try clientOptions(o, environment, recorded: try replayedRequest(o, bridge.script.replay))
        var policy = try sessionPolicy(o)
        policy.interactive = try interactiveSettings(o, environment)
        if policy.interactive != nil { interactiveOnly(&bridge) }
        return .client(client, policy, bridge)
    }

    /// What the line editor does not read (it takes typed lines in place of
    /// stdin): cleared, so that the plan holds exactly what the mode uses,
    /// which the flag table's modes must agree with (FlagModesTests).
    static func interactiveOnly(_ b: inout BridgeOptions) {
        b.strict = false
        b.rateIntervalNanos = nil
    }

    /// With --exec the programs take the place of stdin and stdout: what
    /// only stdin and stdout use is cleared (FlagModesTests), and a route can
    /// only be for events, the one thing still written.
    static func execOnly(_ b: inout BridgeOptions) throws(UsageError) {
        b.noClose = false
        b.strict = false
        b.rateIntervalNanos = nil
        b.typeKey = []
        if let route = b.routes.first(where: { $0.match != .event }) {
            throw UsageError("--route \(route.match): with --exec, messages go to the programs; only $event can be routed")
        }
    }

    /// The interactive mode (wspipe(1): INTERACTIVE MODE): with stdin and
    /// stdout both a terminal, or -i with stdin one; never in a pipe, and not
    /// with -U, which reads no stdin.
    static func interactiveSettings(_ o: Options, _ environment: Environment) throws(UsageError) -> InteractiveSettings? {
        let mode = RunMode.of(o, stdinIsTerminal: environment.stdinIsTerminal, stdoutIsTerminal: environment.stdoutIsTerminal)
        guard mode == .interactive else { return nil }
        guard environment.stdinIsTerminal else { throw UsageError("--interactive: stdin is not a terminal") }
        let terminal: Int32
        if environment.stdoutIsTerminal { terminal = 1 }
        else if environment.stderrIsTerminal { terminal = 2 }
        else { throw UsageError("--interactive: neither stdout nor stderr is a terminal to draw on") }
        return InteractiveSettings(
            terminalFD: terminal, colors: !environment.noColor, historyPath: historyPath(environment),
            home: environment.home,
            savedMessagesPath: InteractiveConsole.Options.savedMessagesPath(configHome: environment.configHome,
                                                                           home: environment.home),
            transcriptBytes: o.historySize, statusLine: !o.noStatusLine && !environment.plain)
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
        b.codec = o.codec
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
        // A Socket.IO line has no "type": the event's name is its type.
        b.typeKey = o.socketIO && o.typeKey == ["type"] ? ["event"] : o.typeKey
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
        s.responseHeaders = try responseHeaders(o)
        // With --socketio they are Engine.IO's heartbeat (`socketIOOptions`).
        s.pingIntervalNanos = o.socketIO ? nil : o.pingIntervalNanos
        s.pingTimeoutNanos = o.socketIO ? nil : o.pingTimeoutNanos
        s.once = o.once
        s.protocols = o.protocols
        s.certFile = o.cert
        s.keyFile = o.key
        s.tag = o.tag
        s.compress = o.compress
        // An --exec client holds back only its own program, never the others.
        s.sendTimeoutNanos = o.exec == nil ? o.sendTimeoutNanos : nil
        s.clientCAFile = o.cacert
        s.allowedOrigins = o.allowedOrigins
        s.maxClients = o.maxClients
        s.relay = o.relay
        s.exec = o.exec
        s.maxPrograms = o.maxPrograms
        s.onConnect = try onConnectTemplates(o, server: true)
        return s
    }

    /// -H and --header-file in server mode: headers of the 101 response,
    /// except those the handshake writes itself (or that a 101 may not carry).
    static func responseHeaders(_ o: Options) throws(UsageError) -> [(name: String, value: String)] {
        var headers = o.headers
        if let file = o.headerFile { headers += try OptionFiles.headers(fromFile: file) }
        let owned = ["upgrade", "connection", "sec-websocket-accept", "sec-websocket-protocol",
                     "sec-websocket-extensions", "content-length", "transfer-encoding"]
        if let header = headers.first(where: { owned.contains($0.name.lowercased()) }) {
            let instead = header.name.lowercased() == "sec-websocket-protocol" ? " (use --protocol)"
                : header.name.lowercased() == "sec-websocket-extensions" ? " (use --compress)" : ""
            throw UsageError("--header: the 101 response writes \(header.name) itself\(instead)")
        }
        return headers
    }

    /// `recorded`: how the recording played (--replay, --check) says the
    /// connection was opened; the URL and what a HAR request holds are
    /// taken from it where the command line does not say.
    static func clientOptions(_ o: Options, _ environment: Environment,
                              recorded: RecordedRequest? = nil) throws(UsageError) -> ClientOptions {
        let url = try webSocketURL(o.url ?? recorded?.url ?? "", recorded: o.url == nil && recorded?.url != nil)
        var c = ClientOptions(url: o.socketIO ? url.socketIO() : url)
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
        c.tls.keyLogFile = o.keylog ?? environment.keyLogFile
        c.route = try ProxySelection.route(for: url, o, credentials: try proxyCredentials(o), environment: environment.variable)
        c.compress = o.compress
        try curlHabits(o, environment, &c)
        if let recorded { adopt(recorded, into: &c, o) }
        return c
    }

    static func webSocketURL(_ text: String, recorded: Bool) throws(UsageError) -> WebSocketURL {
        do {
            return try WebSocketURL(parsing: text)
        } catch {
            throw UsageError("\(error) (got '\(text)'\(recorded ? ", the recording's" : ""))")
        }
    }

    static func proxyCredentials(_ o: Options) throws(UsageError) -> (user: String, password: String)? {
        if let file = o.proxyUserFile { return try OptionFiles.proxyUser(fromFile: file) }
        return o.proxyUser
    }

    /// -L, cookies, --user and -4/-6 (wspipe(1): OPTIONS, Connection and
    /// Diagnostics): the files they name are read here.
    static func curlHabits(_ o: Options, _ environment: Environment, _ c: inout ClientOptions) throws(UsageError) {
        c.redirects.follow = o.location
        c.redirects.maxRedirects = o.maxRedirects
        c.redirects.allowDowngrade = o.locationDowngrade
        // A redirect to another scheme or host may need another proxy (or none).
        c.routeForRedirect = { target in
            do throws(UsageError) {
                return .success(try ProxySelection.route(for: target, o, environment: environment.variable))
            } catch {
                return .failure(RouteChoiceError(error.message))
            }
        }
        c.basicAuth = o.user
        if let file = o.userFile { c.basicAuth = try OptionFiles.credentials(fromFile: file) }
        // --cookie DATA is a header; --cookie FILE and -c turn the cookie engine on.
        let cookieData = o.cookie.flatMap { $0.contains("=") ? $0 : nil }
        c.cookieData = cookieData
        if o.cookieJar != nil || (o.cookie != nil && cookieData == nil) {
            var text: String? = nil
            if let file = o.cookie, cookieData == nil, !file.isEmpty { text = try OptionFiles.cookies(fromFile: file) }
            c.cookies = CookieJar(fileText: text, url: c.url, savePath: o.cookieJar)
        }
        c.family = o.family ?? .any
    }

    /// -w FORMAT, or @FILE's content.
    static func writeOutFormat(_ argument: String) throws(UsageError) -> WriteOutFormat {
        var format = argument
        // curl's @- reads the format from stdin; wspipe's stdin holds the messages.
        if argument == "@-" {
            throw UsageError("--write-out: @- would read the format from stdin, which holds the messages; "
                             + "write it in a file and give @FILE")
        }
        if argument.hasPrefix("@") { format = try OptionFiles.text(flag: "write-out", path: String(argument.dropFirst())) }
        do throws(WriteOutFormat.ParseError) {
            return try WriteOutFormat(parsing: format)
        } catch {
            throw UsageError("--write-out: \(error.message)")
        }
    }

    static func sessionPolicy(_ o: Options) throws(UsageError) -> SessionPolicy {
        var p = SessionPolicy()
        if let format = o.writeOut { p.writeOut = try writeOutFormat(format) }
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
        p.onConnect = try onConnectTemplates(o, server: false)
        for text in o.onReconnect { p.onReconnect.append(try template("on-reconnect", text, scope: .captures, o)) }
        p.captures = o.captures
        p.ackPath = o.ackPath
        p.ackTimeoutNanos = o.ackTimeoutNanos
        p.until = o.until.map { UntilCondition(path: $0.path, value: $0.value) }
        p.idleTimeoutNanos = o.idleTimeoutNanos
        p.lingerNanos = o.lingerNanos
        p.replyPath = o.replyPath
        p.replyMatch = o.replyMatch.map { UntilCondition(path: $0.path, value: $0.value) }
        p.maxReplyP99Nanos = o.maxReplyP99Nanos
        return p
    }
}

extension Plan {
    /// --socketio, --namespace, --sio-auth (wspipe(1): SOCKET.IO). With
    /// --listen, --ping-interval and --ping-timeout are the Engine.IO
    /// heartbeat the server announces and keeps (25 s and 20 s without them).
    static func socketIOOptions(_ o: Options) throws(UsageError) -> SocketIOOptions? {
        guard o.socketIO else { return nil }
        var s = SocketIOOptions()
        s.namespaces = o.namespaces
        if let auth = o.sioAuth {
            guard auth.drop(while: { $0 == " " || $0 == "\t" }).first == "{" else {
                throw UsageError("--sio-auth: '\(auth)' is not a JSON object")
            }
            s.auth = try template("sio-auth", auth, scope: .captures, o)
        }
        if o.listen != nil, let interval = o.pingIntervalNanos {
            guard interval >= 1_000_000, (o.pingTimeoutNanos ?? interval) >= 1_000_000 else {
                throw UsageError("--ping-interval: Engine.IO counts its heartbeat in milliseconds; 1ms at least")
            }
            s.pingIntervalNanos = interval
            s.pingTimeoutNanos = o.pingTimeoutNanos ?? interval
        }
        return s
    }
}
