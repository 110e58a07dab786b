import WSBridge
import WSTransport
import WSConnect

/// The --check part of the plan (wspipe(1): CHECKING A SERVER): the patterns
/// expanded, every recording read and prepared (a usage error naming the
/// file and line of what is wrong), and each recorded connection given the
/// options it is opened with.
extension Plan {
    static func checkOptions(_ o: Options, _ environment: Environment) throws(UsageError) -> CheckOptions {
        var c = CheckOptions()
        // A Socket.IO line's type is its event's name, as in client mode.
        let typeKey = o.socketIO && o.typeKey == ["type"] ? ["event"] : o.typeKey
        for path in try checkFiles(o.checks) {
            // Read as JSON lines: --codec encodes them as they are sent (`CheckScript`).
            let recording = try RecordingFile.read(path, flag: "check")
            if o.socketIO && recording.format == .har {
                throw UsageError("--check \(path): a HAR file holds the Engine.IO packets of the page, not event lines; "
                                 + "--socketio checks a recording made with --socketio --record")
            }
            do {
                c.scripts.append(try CheckScript(path: path, recording: recording, allowExtra: o.allowExtra,
                                                 typeKey: typeKey, codec: o.codec, socketIO: o.socketIO))
            } catch {
                throw RecordingFile.problem("check", path, error)
            }
        }
        if o.harCredentials && !c.scripts.contains(where: { $0.format == .har }) {
            throw UsageError("--har-credentials: none of the --check files is a HAR file")
        }
        for script in c.scripts where o.url == nil && script.requests.contains(where: { $0?.url == nil }) {
            throw UsageError("--check \(script.path): the recording holds no URL (no connected event); give the server's URL")
        }
        // One cookie jar for the run: the options of the first
        // connection, made again for every other one's URL and request.
        let base = try clientOptions(o, environment, recorded: c.scripts.first?.requests.first ?? nil)
        for script in c.scripts {
            var connections: [ClientOptions] = []
            for request in script.requests { connections.append(try retarget(base, to: request, o, environment)) }
            c.connections.append(connections)
        }
        if let format = o.writeOut { c.writeOut = try writeOutFormat(format) }
        c.timeoutNanos = o.checkTimeoutNanos
        c.settleNanos = o.checkSettleNanos
        c.anyOrder = o.checkOrderAny
        c.ignores = o.ignores.map { KeyPathPattern($0) }
        c.allowExtra = o.allowExtra
        c.junitPath = o.junit
        c.repeats = o.repeats
        c.maxReplyP99Nanos = o.maxReplyP99Nanos
        c.waitForFirstConnection = o.wait
        c.backoff.minNanos = o.backoffMinNanos
        c.backoff.maxNanos = o.backoffMaxNanos
        c.backoff.factor = o.backoffFactor
        c.backoff.jitter = o.jitter
        c.maxRetries = o.maxRetries
        return c
    }

    /// The files of the --check arguments, each pattern's in name order; a
    /// pattern that matches nothing is a usage error (as a file that is not there).
    static func checkFiles(_ patterns: [String]) throws(UsageError) -> [String] {
        var paths: [String] = []
        for pattern in patterns {
            let found = FileSystem.glob(pattern)
            guard !found.isEmpty else { throw UsageError("--check \(pattern): no file matches") }
            paths += found
        }
        return paths
    }

    /// `base` for a connection the recording opened as `request` says: its
    /// URL (unless one is given), the proxy for that URL, and a HAR request's
    /// headers.
    static func retarget(_ base: ClientOptions, to request: RecordedRequest?, _ o: Options,
                         _ environment: Environment) throws(UsageError) -> ClientOptions {
        var c = base
        c.headers = o.headers
        if let file = o.headerFile { c.headers += try OptionFiles.headers(fromFile: file) }
        c.protocols = o.protocols
        c.origin = o.origin
        if o.url == nil, let text = request?.url {
            let url = try webSocketURL(text, recorded: true)
            c.url = o.socketIO ? url.socketIO() : url
            c.route = try ProxySelection.route(for: c.url, o, credentials: try proxyCredentials(o),
                                               environment: environment.variable)
        }
        if let request { adopt(request, into: &c, o) }
        return c
    }

    /// What a HAR request lends a connection: its subprotocols and Origin
    /// unless given, and its headers but those given (by name) and, without
    /// --har-credentials, those that carry credentials; its User-Agent
    /// unless --user-agent is given.
    static func adopt(_ request: RecordedRequest, into c: inout ClientOptions, _ o: Options) {
        if c.protocols.isEmpty { c.protocols = request.protocols }
        if c.origin == nil { c.origin = request.origin }
        let userAgentGiven = o.userAgent != ArgumentParser.defaults.userAgent
        var given = Set(c.headers.map { $0.name.lowercased() })
        if userAgentGiven { given.insert("user-agent") }
        let lent = request.headers + (o.harCredentials ? request.credentials : [])
        c.headers = lent.filter { !given.contains($0.name.lowercased()) } + c.headers
    }

    /// --replay FILE in client mode: the request of its first connection,
    /// when the URL is to come from it or it is a HAR file.
    static func replayedRequest(_ o: Options, _ recording: Recording?) throws(UsageError) -> RecordedRequest? {
        if o.harCredentials && recording?.format != .har {
            throw UsageError("--har-credentials: the --replay file is not a HAR file")
        }
        guard let recording, let first = recording.connectionNumbers.first else { return nil }
        let request = recording.requests[first]
        if o.url == nil && request?.url == nil {
            throw UsageError("--replay \(o.replay ?? ""): the recording holds no URL (no connected event); give the server's URL")
        }
        return recording.format == .har || o.url == nil ? request : nil
    }
}
