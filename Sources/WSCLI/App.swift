import WSBridge
import WSCore
import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The program: parse the flags, resolve what needs files or the
/// environment, run the client or the server, exit with its status.
public enum App {
    public static func main() -> Never {
        let status = run(Array(CommandLine.arguments.dropFirst()))
        exit(status.rawValue)
    }

    static func run(_ args: [String]) -> ExitStatus {
        let options: Options
        do {
            options = try ArgumentParser.parse(args)
        } catch {
            return usageError(error.message)
        }
        if options.showHelp { writeStdout(HelpRenderer.render(width: 80)); return .success }
        if options.showVersion { writeStdout("wspipe \(wspipeVersion)\n"); return .success }
        if let kind = options.generate {
            guard let text = DocGenerator.render(kind) else { return usageError("--generate: unknown kind '\(kind)'") }
            writeStdout(text)
            return .success
        }
        let log = Diagnostics(verbosity: options.verbose, quiet: options.quiet)
        let events = EventSink(enabled: options.events)
        var bridge = bridgeOptions(options)
        for (value, destination) in options.routes {
            switch RouteSpec.parse("\(value)=\(destination)") {
            case .success(let route): bridge.routes.append(route)
            case .failure(let error): return usageError("--route: \(error.message)")
            }
        }
        if let listen = options.listen {
            guard let address = ListenAddress(parsing: listen) else {
                return usageError("--listen: expected [HOST:]PORT[/PATH], got '\(listen)'")
            }
            var server = ServerOptions(address: address)
            server.once = options.once
            server.protocols = options.protocols
            server.compress = options.compress
            server.certFile = options.cert
            server.keyFile = options.key
            server.tag = options.tag
            server.sendTimeoutNanos = options.sendTimeoutNanos
            if (options.cert == nil) != (options.key == nil) {
                return usageError("--listen with TLS needs both --cert and --key")
            }
            return ServerSession(options: server, bridge: bridge, log: log, events: events).run()
        }
        do {
            let client = try clientOptions(options)
            let policy = try sessionPolicy(options)
            return ClientSession(client: client, bridge: bridge, policy: policy, log: log, events: events).run()
        } catch {
            return usageError(error.message)
        }
    }

    static func bridgeOptions(_ o: Options) -> BridgeOptions {
        var b = BridgeOptions()
        switch o.lineMode {
        case .json: b.format = .json
        case .text: b.format = .text
        case .binary: b.format = .binary
        }
        b.separator = o.nulSeparator ? 0 : 10
        switch o.binaryOutput {
        case .raw: b.binaryOutput = .raw
        case .base64: b.binaryOutput = .base64
        case .drop: b.binaryOutput = .drop
        }
        b.lenient = o.lenient
        b.strict = o.strict
        b.noClose = o.noClose
        b.maxMessages = o.maxMessages
        b.sendOnly = o.unidirectional
        b.receiveOnly = o.reverseUnidirectional
        b.closeTimeoutNanos = o.closeTimeoutNanos
        b.maxMessageSize = o.maxMessageSize
        b.stats = o.stats
        b.typeKey = o.typeKey
        b.routeErrorsIgnored = o.routeErrorsIgnored
        // Colour only for a person at a terminal (issue 5); NO_COLOR wins (no-color.org).
        b.colorize = StdioMode.isTerminal(1) && getenv("NO_COLOR").map({ $0.pointee == 0 }) ?? true
        return b
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
        if let file = o.onConnectFile { p.onConnect += try messages(fromFile: file) }
        p.onReconnect = o.onReconnect
        p.captures = o.captures
        p.ackPath = o.ackPath
        p.ackTimeoutNanos = o.ackTimeoutNanos
        return p
    }

    /// --on-connect-file: one message a line; blank lines skipped.
    static func messages(fromFile path: String) throws(UsageError) -> [String] {
        let text: String
        do { text = try TextFile.read(path) } catch { throw UsageError("--on-connect-file \(path): \(error)") }
        return text.split(separator: "\n").map { $0.last == "\r" ? String($0.dropLast()) : String($0) }
            .filter { !$0.allSatisfy { $0 == " " || $0 == "\t" } }
    }

    static func clientOptions(_ o: Options) throws(UsageError) -> ClientOptions {
        let url: WebSocketURL
        do {
            url = try WebSocketURL(parsing: o.url ?? "")
        } catch {
            throw UsageError("\(error) (got '\(o.url ?? "")')")
        }
        var c = ClientOptions(url: url)
        c.headers = o.headers
        if let file = o.headerFile { c.headers += try headers(fromFile: file) }
        c.protocols = o.protocols
        c.origin = o.origin
        c.userAgent = o.userAgent ?? "wspipe/\(wspipeVersion)"
        c.connectTimeoutNanos = o.connectTimeoutNanos
        c.compress = o.compress
        c.tls.insecure = o.insecure
        c.tls.caFile = o.cacert
        c.tls.certFile = o.cert
        c.tls.keyFile = o.key
        return c
    }

    /// --header-file: one "Name: value" a line; blank lines and '#' comments skipped.
    static func headers(fromFile path: String) throws(UsageError) -> [(name: String, value: String)] {
        let text: String
        do { text = try TextFile.read(path) } catch { throw UsageError("--header-file \(path): \(error)") }
        var result: [(name: String, value: String)] = []
        var number = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            var line = Substring(raw)
            if line.last == "\r" { line = line.dropLast() }
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) || line.first == "#" { continue }
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex,
                  !line[..<colon].contains(where: { $0 == " " || $0 == "\t" }) else {
                throw UsageError("--header-file \(path):\(number): expected 'Name: value'")
            }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            result.append((name: String(line[..<colon]), value: String(value)))
        }
        return result
    }

    static func usageError(_ message: String) -> ExitStatus {
        let text = "wspipe: \(message)\nTry 'wspipe --help' for more information.\n"
        writeFD(2, text)
        return .usage
    }

    static func writeStdout(_ text: String) { writeFD(1, text) }

    static func writeFD(_ fd: Int32, _ text: String) {
        Array(text.utf8).withUnsafeBytes { Diagnostics.writeAll(fd, $0) }
    }
}
