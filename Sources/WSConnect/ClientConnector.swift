import WSCore
import WSTransport
import WSTerminal
import WSMessages

/// What the client needs to open a connection (wspipe(1): OPTIONS, Connection).
/// The defaults of the flags are the flag table's, which `Plan` sets here.
public struct ClientOptions {
    public var url: WebSocketURL
    public var headers: [(name: String, value: String)] = []
    public var protocols: [String] = []
    public var origin: String? = nil
    public var userAgent: String? = nil
    public var connectTimeoutNanos: Int64 = 0
    public var tls = TLSClientOptions()
    /// Direct, a Unix socket, or a proxy (wspipe(1): OPTIONS, Connection).
    public var route = DialRoute.direct
    /// --compress: offer permessage-deflate (RFC 7692).
    public var compress = false
    /// --header-command: run before each attempt; its output lines are more headers.
    public var headerCommand: String? = nil
    /// -L, --max-redirs, --location-downgrade.
    public var redirects = RedirectOptions()
    /// The route to a URL a redirect leads to (the proxy variables depend on
    /// the scheme and the host); nil: `route` for every URL.
    public var routeForRedirect: ((WebSocketURL) -> Result<DialRoute, RouteChoiceError>)? = nil
    /// --user USER:PASSWORD (or --user-file's): Basic authorization.
    public var basicAuth: String? = nil
    /// --cookie DATA: "name=value; ..." sent as it is.
    public var cookieData: String? = nil
    /// The cookie engine (--cookie FILE, --cookie-jar); nil when off.
    public var cookies: CookieJar? = nil
    /// -4, -6: one address family only; otherwise both, raced.
    public var family = AddressFamily.any

    public init(url: WebSocketURL) { self.url = url }
}

/// A proxy setting that cannot be read, for the URL a redirect led to.
public struct RouteChoiceError: Error {
    public let message: String
    public init(_ message: String) { self.message = message }
}

/// Why a connection attempt failed.
public enum ConnectFailure: Error, CustomStringConvertible {
    /// DNS, TCP or the connect timeout.
    case unreachable(String)
    /// Certificate verification or the TLS handshake.
    case tls(String)
    /// The server answered with another HTTP status than 101; `body` is the
    /// start of its body, escaped.
    case rejected(status: Int, statusLine: String, body: String)
    /// The server's answer broke RFC 6455 §4.2.2.
    case invalidHandshake(String)
    /// A 3xx answer -L does not follow (--max-redirs, a downgrade to ws://, no Location).
    case redirectRefused(status: Int, reason: String)

    public var description: String {
        switch self {
        case .unreachable(let text), .tls(let text): return text
        case .rejected: return disconnect.description
        case .invalidHandshake(let text): return "invalid handshake response: \(text)"
        case .redirectRefused(_, let reason): return reason
        }
    }

    package var disconnect: Disconnect {
        switch self {
        case .unreachable(let text): return .unreachable(text)
        case .tls(let text): return .tlsFailed(text)
        case .rejected(let status, let line, let body): return .handshakeRejected(status: status, statusLine: line, body: body)
        case .invalidHandshake(let text): return .invalidHandshake(text)
        case .redirectRefused(let status, let reason): return .redirectRefused(status: status, reason: reason)
        }
    }
}

/// The result of a successful opening handshake.
package struct OpenedConnection {
    package var stream: ByteStream
    package var leftover: [UInt8]
    package var subprotocol: String?
    /// The 101 response, for -v and the interactive mode.
    package var response: HTTPHead
    /// From the request's last byte to the response's: the server's
    /// round trip, which says how soon a reply can come (`ReplyTracker`).
    package var roundTripNanos: Int64
    /// permessage-deflate as the server accepted it; nil: not in use.
    package var compression: DeflateParameters?
    /// Through a proxy (its TCP, not the server's, acknowledges what is sent).
    package var tunneled = false
    /// Where the connection is: the URL given, or where redirects led.
    package var url: WebSocketURL
    package var redirects: Int
    package var timings: HandshakeTimings
}

/// Opens one connection: TCP connect (or a proxy tunnel, or a Unix socket),
/// TLS handshake for wss://, then the HTTP upgrade (RFC 6455 §4.1), and,
/// with -L, the same again for each redirect (`Redirect`), all under one
/// deadline (--connect-timeout). No WebSocket frame can be sent before
/// `completion` reports success. Every attempt starts from the URL given.
/// Where the attempt is, is one enum (`ConnectorPhases`), which this class
/// feeds with what its dialer, streams and timer report and whose actions it
/// performs.
package final class ClientConnector {
    private let options: ClientOptions
    private let tls: TLSContextSource
    private let loop: EventLoop
    /// The URL of the request in progress, and how many redirects led there.
    private var hop: WebSocketURL
    private var redirects = 0
    /// With --max-redirs -1, each request of this attempt (its URL and the
    /// cookies it carried): a redirect back to one of them is a loop, which
    /// would otherwise run for ever (10,409 requests in 3 s).
    private var requested: Set<String> = []
    /// --header-command's headers, for every request of this attempt.
    private var commandHeaders: [(name: String, value: String)] = []
    private var phases = ConnectorPhases()
    private var dialer: Dialer?
    /// The current hop goes through a proxy (`OpenedConnection.tunneled`).
    private var tunneled = false
    /// The current hop's connection (a `TLSStream` for wss://), from
    /// `tls` on, until it is handed over or closed.
    private var stream: ByteStream?
    private var handshake: ClientHandshake
    private var request: ByteBuffer
    private var reader = HandshakeReader(chunkSize: 16 << 10)
    private var requestSentAt: Int64?
    /// A redirect to follow once the read that brought it has returned
    /// (the reader and the handshake are in use until then).
    private var redirectDue: (status: Int, location: String?)?
    private var timings = HandshakeTimings()
    private var timer: EventLoop.TimerID?
    private var completion: ((Result<OpenedConnection, ConnectFailure>) -> Void)?
    private let log: Diagnostics
    private var headerCommand: HeaderCommand?
    /// Each redirect followed: its status, from where, to where.
    package var onRedirect: ((Int, WebSocketURL, WebSocketURL) -> Void)?
    /// The status of each HTTP response, as it comes (-w's http_code).
    package var onResponse: ((Int) -> Void)?
    /// Copies --header-command's stderr when it cannot share wspipe's.
    private let childErrors: (Subprocess) -> ChildErrorCopy?

    package init(options: ClientOptions, tls: TLSContextSource, loop: EventLoop, log: Diagnostics,
         childErrors: @escaping (Subprocess) -> ChildErrorCopy? = { _ in nil }) {
        self.options = options
        self.tls = tls
        self.loop = loop
        self.log = log
        self.childErrors = childErrors
        hop = options.url
        (handshake, request) = Self.request(options, to: options.url, extraHeaders: [])
        if options.redirects.maxRedirects == Int.max { requested.insert(Self.requestKey(options, options.url)) }
    }

    /// What makes two requests of an attempt the same: the URL and the
    /// cookies the jar gives it (a login that sets one, then sends back to
    /// where it started, is no loop).
    private static func requestKey(_ options: ClientOptions, _ url: WebSocketURL) -> String {
        url.display + "\n" + (options.cookies?.header(for: url, now: wallClockSeconds()) ?? "")
    }

    /// The upgrade request to `url` (`RequestHeaders` chooses the headers).
    private static func request(_ options: ClientOptions, to url: WebSocketURL,
                                extraHeaders: [(name: String, value: String)]) -> (ClientHandshake, ByteBuffer) {
        var entropy = EntropyPool()
        let rules = RequestHeaders(given: options.headers + extraHeaders, original: options.url,
                                   basicAuth: options.basicAuth, cookieData: options.cookieData)
        let headers = rules.headers(for: url, jarCookies: options.cookies?.header(for: url, now: wallClockSeconds()))
        let handshake = ClientHandshake(host: url.hostHeader, path: url.target, headers: headers,
                                        protocols: options.protocols, origin: options.origin,
                                        userAgent: options.userAgent, offersCompression: options.compress,
                                        entropy: &entropy)
        var request = ByteBuffer()
        request.append(contentsOf: handshake.requestBytes)
        return (handshake, request)
    }

    var phase: ConnectorPhases.Phase { phases.phase }

    package func start(_ completion: @escaping (Result<OpenedConnection, ConnectFailure>) -> Void) {
        self.completion = completion
        timings.requestStarted = loop.nowNanos
        handle(.start(headerCommand: options.headerCommand != nil))
    }

    /// Feeds the phase machine and performs its actions; `opened` and
    /// `failure` are what `.accepted` and `.failed` carry to them.
    private func handle(_ event: ConnectorPhases.Event, opened: OpenedConnection? = nil,
                        failure: ConnectFailure? = nil) {
        for action in phases.handle(event) {
            switch action {
            case .armDeadline: armDeadline()
            case .runHeaderCommand: if let command = options.headerCommand { runHeaderCommand(command) }
            case .dial: dial()
            case .startTLS: stepTLS()
            case .sendRequest, .awaitResponse:
                if let stream { watch(stream.fd, action == .sendRequest ? .write : .read) }
            case .closeStream: closeStream()
            case .teardown: teardown()
            case .succeed: if let opened { succeed(opened) }
            case .reportFailure: if let failure { report(failure) }
            }
        }
    }

    private func armDeadline() {
        let url = options.url
        let nanos = options.connectTimeoutNanos
        timer = loop.schedule(afterNanos: nanos) { [weak self] in
            self?.timer = nil
            self?.handle(.timedOut, failure: .unreachable("timed out connecting to \(url.display) after \(Self.seconds(nanos))"))
        }
    }

    /// --header-command first, under the same deadline; its headers go into
    /// this attempt's requests. A failing command fails the attempt.
    private func runHeaderCommand(_ command: String) {
        log.info("running --header-command")
        let runner = HeaderCommand(command: command, loop: loop, errors: childErrors)
        headerCommand = runner
        runner.start { [weak self] result in
            guard let self else { return }
            self.headerCommand = nil
            switch result {
            case .success(let headers):
                self.log.info("--header-command: " + (headers.isEmpty ? "no headers" : headers.map(\.name).joined(separator: ", ")))
                self.commandHeaders = headers
                (self.handshake, self.request) = Self.request(self.options, to: self.hop, extraHeaders: headers)
                self.handle(.headersReady)
            case .failure(let failure):
                self.fail(.unreachable(failure.description))
            }
        }
    }

    private func dial() {
        let route: DialRoute
        switch hop == options.url ? .success(options.route) : options.routeForRedirect?(hop) ?? .success(options.route) {
        case .success(let chosen): route = chosen
        case .failure(let error): return fail(.unreachable(error.message))
        }
        if case .proxy = route { tunneled = true } else { tunneled = false }
        let dialer = Dialer(host: hop.host, port: hop.port, route: route, family: options.family, loop: loop)
        self.dialer = dialer
        dialer.start { [weak self] result in
            guard let self else { return }
            self.timings.resolved = dialer.resolvedAt ?? self.loop.nowNanos
            self.timings.connected = dialer.connectedAt ?? self.loop.nowNanos
            self.timings.remoteHost = dialer.connectedAddress?.host ?? ""
            self.timings.remotePort = Int(dialer.connectedAddress?.port ?? 0)
            switch result {
            case .success(let fd): self.connected(fd)
            case .failure(let error): self.fail(.unreachable(error.message))
            }
        }
    }

    /// Abandon the attempt (SIGINT while connecting); completion is not called.
    package func cancel() {
        completion = nil
        handle(.cancel)
    }

    private func connected(_ fd: Int32) {
        dialer = nil
        log.debug("TCP connected to \(hop.host):\(hop.port)")
        if hop.secure {
            do {
                stream = try TLSStream(fd: fd, context: try self.tls.context(), serverName: hop.host)
            } catch {
                closeFD(fd)
                return fail(.tls("\(error)"))
            }
        } else {
            stream = TCPStream(fd: fd)
        }
        handle(.connected(secure: hop.secure))
    }

    private func stepTLS() {
        guard let tls = stream as? TLSStream else { return }
        switch tls.handshake() {
        case .done:
            timings.tlsDone = loop.nowNanos
            log.debug("TLS handshake with \(hop.host) done")
            handle(.tlsDone)
        case .wantRead:
            watch(tls.fd, .read)
        case .wantWrite:
            watch(tls.fd, .write)
        case .failed(let text):
            fail(.tls(text))
        }
    }

    private func watch(_ fd: Int32, _ interest: EventLoop.Interest) {
        loop.watch(fd, interest) { [weak self] _ in self?.step() }
    }

    /// The connection is ready for what the phase waits for.
    private func step() {
        guard let stream else { return }
        switch phases.phase {
        case .tls: stepTLS()
        case .upgrading(.sending): sendRequest(stream)
        case .upgrading(.reading): readResponse(stream)
        case .idle, .headerCommand, .dialing, .done: return
        }
    }

    private func sendRequest(_ stream: ByteStream) {
        while !request.isEmpty {
            switch request.withReadableBytes({ stream.write($0) }) {
            case .bytes(let n): request.consume(n)
            case .wouldBlock: watch(stream.fd, stream.wants.isEmpty ? .write : stream.wants); return
            case .eof: fail(.unreachable("connection closed by \(hop.hostHeader) during the handshake")); return
            case .error(let error): fail(.unreachable("sending the handshake to \(hop.hostHeader): \(error)")); return
            }
        }
        requestSentAt = loop.nowNanos
        handle(.requestSent)
    }

    private func readResponse(_ stream: ByteStream) {
        switch reader.read(from: stream, { handle(handshake.receive($0), stream) }) {
        case .decided:
            if let due = redirectDue {
                redirectDue = nil
                redirect(due.status, location: due.location)
            }
        case .wouldBlock: watch(stream.fd, HandshakeReader.interest(of: stream))
        case .eof: fail(.invalidHandshake("connection closed before the server answered the upgrade"))
        case .failed(let text): fail(.unreachable("reading the handshake from \(hop.hostHeader): \(text)"))
        }
    }

    /// True when the handshake is decided.
    private func handle(_ outcome: ClientHandshakeResult, _ stream: ByteStream) -> Bool {
        switch outcome {
        case .needMoreData:
            return false
        case .accepted(let subprotocol, _, let headers, let leftover):
            onResponse?(101)
            keepCookies(headers)
            timings.upgraded = loop.nowNanos
            let head = handshake.response?.head ?? HTTPHead(startLine: "HTTP/1.1 101", headers: [])
            let opened = OpenedConnection(stream: stream, leftover: leftover, subprotocol: subprotocol, response: head,
                                          roundTripNanos: loop.nowNanos - (requestSentAt ?? loop.nowNanos),
                                          compression: handshake.compression, tunneled: tunneled, url: hop,
                                          redirects: redirects, timings: timings)
            handle(.accepted, opened: opened)
        case .rejected(let status, let statusLine, let headers):
            onResponse?(status)
            keepCookies(headers)
            challenge = HTTPHead(startLine: statusLine, headers: headers).value("WWW-Authenticate")
            if options.redirects.follow && Redirect.statuses.contains(status) {
                redirectDue = (status, HTTPHead(startLine: statusLine, headers: headers).value("Location"))
            } else {
                fail(.rejected(status: status, statusLine: statusLine, body: rejectionBody(stream)))
            }
        case .invalid(let reason):
            fail(.invalidHandshake(reason))
        }
        return true
    }

    /// -L: the next request goes where the Location says, on a new
    /// connection, unless `Redirect` refuses it.
    private func redirect(_ status: Int, location: String?) {
        switch Redirect.decide(status: status, location: location, from: hop, redirectsSoFar: redirects,
                               options: options.redirects) {
        case .refuse(let reason):
            fail(.redirectRefused(status: status, reason: reason))
        case .follow(let next):
            if options.redirects.maxRedirects == Int.max, !requested.insert(Self.requestKey(options, next)).inserted {
                fail(.redirectRefused(status: status, reason: "a redirect loop: \(hop.display) leads back to "
                    + "\(next.display), already requested with the same cookies (--max-redirs -1 stops loops)"))
                return
            }
            log.info("redirected (\(status)) from \(hop.display) to \(next.display)")
            onRedirect?(status, hop, next)
            redirects += 1
            hop = next
            timings = HandshakeTimings(requestStarted: loop.nowNanos)
            requestSentAt = nil
            (handshake, request) = Self.request(options, to: next, extraHeaders: commandHeaders)
            handle(.redirect)
        }
    }

    /// The cookie engine keeps what every response sets; with
    /// --cookie-jar the file is rewritten when that changed something.
    private func keepCookies(_ headers: [(name: String, value: String)]) {
        guard let jar = options.cookies else { return }
        let now = wallClockSeconds()
        guard jar.receive(headers, from: hop, now: now) else { return }
        log.debug("cookies set by \(hop.hostHeader)")
        if let problem = jar.save(now: now) { log.warning(problem) }
    }

    /// The first bytes of a rejection's body, where servers say why: what
    /// came with the head, plus what one more read finds, cut at about 200
    /// bytes. Its line breaks (CR LF or LF) stay line breaks; every other
    /// control character is escaped, line by line.
    private func rejectionBody(_ stream: ByteStream) -> String {
        var body = handshake.response?.rest ?? []
        if body.count < Self.bodyExcerpt {
            var more = [UInt8](repeating: 0, count: Self.bodyExcerpt)
            if case .bytes(let n) = more.withUnsafeMutableBytes({ stream.read(into: $0) }) { body += more[..<n] }
        }
        var text = String(decoding: body.prefix(Self.bodyExcerpt), as: UTF8.self)
        while text.last?.isWhitespace == true { text.removeLast() }
        if body.count > Self.bodyExcerpt { text += "..." }
        // "\r\n" is one Character in Swift.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        return lines.map { TerminalEscaping.escaping(String($0)) }.joined(separator: "\n")
    }

    /// The WWW-Authenticate header of the last refusal, for the hint of a
    /// 401 (RFC 9110 §11.6.1): Basic asks for --user, Bearer for a token.
    package private(set) var challenge: String?

    /// Whether this attempt's request carried a credential (-H, --header-file,
    /// --header-command, --user, the URL's user): a 401 then says it was refused.
    /// (Asked after every attempt. A byte search: lowercasing the request as
    /// a String and `contains` cost 200,000 instructions, an eighth of a
    /// one-echo run, callgrind.)
    package var sentAuthorization: Bool {
        let head = handshake.requestBytes
        let needle = Self.authorizationLine
        guard head.count >= needle.count else { return false }
        return (0...(head.count - needle.count)).contains { start in
            (0..<needle.count).allSatisfy { k in
                let byte = head[start + k]
                return (byte &- 0x41 < 26 ? byte | 0x20 : byte) == needle[k]   // ASCII lowercase
            }
        }
    }

    private static let authorizationLine = Array("\r\nauthorization:".utf8)

    private static let bodyExcerpt = 200

    private func succeed(_ opened: OpenedConnection) {
        if let timer { loop.cancel(timer) }
        loop.unwatch(opened.stream.fd)
        stream = nil
        let done = completion
        completion = nil
        done?(.success(opened))
    }

    private func fail(_ failure: ConnectFailure) {
        handle(.failed, failure: failure)
    }

    private func report(_ failure: ConnectFailure) {
        let done = completion
        completion = nil
        done?(.failure(failure))
    }

    private func teardown() {
        dialer?.cancel()
        dialer = nil
        if let timer { loop.cancel(timer); self.timer = nil }
        headerCommand?.cancel()
        headerCommand = nil
        closeStream()
    }

    /// Closes the connection of the request in progress.
    private func closeStream() {
        if let stream {
            loop.unwatch(stream.fd)
            stream.close()
            self.stream = nil
        }
    }

    private func closeFD(_ fd: Int32) { TCPStream(fd: fd).close() }

    /// "10s", "250ms", "1.5s": whole milliseconds, seconds from 1 s on.
    package static func seconds(_ nanos: Int64) -> String {
        let ms = nanos / 1_000_000
        if ms < 1000 { return "\(ms)ms" }
        if ms % 1000 == 0 { return "\(ms / 1000)s" }
        let tenths = (ms + 50) / 100
        return tenths % 10 == 0 ? "\(tenths / 10)s" : "\(tenths / 10).\(tenths % 10)s"
    }
}
