import WSCore
import WSTransport
import WSTerminal

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
    /// The interactive mode's settings; nil when the client is not interactive.
    public var interactive: InteractiveSettings? = nil
    /// --header-command: run before each attempt; its output lines are more headers.
    public var headerCommand: String? = nil

    public init(url: WebSocketURL) { self.url = url }
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

    public var description: String {
        switch self {
        case .unreachable(let text), .tls(let text): return text
        case .rejected: return disconnect.description
        case .invalidHandshake(let text): return "invalid handshake response: \(text)"
        }
    }

    var disconnect: Disconnect {
        switch self {
        case .unreachable(let text): return .unreachable(text)
        case .tls(let text): return .tlsFailed(text)
        case .rejected(let status, let line, let body): return .handshakeRejected(status: status, statusLine: line, body: body)
        case .invalidHandshake(let text): return .invalidHandshake(text)
        }
    }
}

/// The result of a successful opening handshake.
struct OpenedConnection {
    var stream: ByteStream
    var leftover: [UInt8]
    var subprotocol: String?
    /// The 101 response, for -v and the interactive mode.
    var response: HTTPHead
    /// From the request's last byte to the response's: the server's
    /// round trip, which says how soon a reply can come (`ReplyTracker`).
    var roundTripNanos: Int64
    /// permessage-deflate as the server accepted it; nil: not in use.
    var compression: DeflateParameters?
}

/// Opens one connection: TCP connect (or a proxy tunnel, or a Unix socket),
/// TLS handshake for wss://, then the HTTP upgrade (RFC 6455 §4.1), all
/// under one deadline (--connect-timeout). No
/// WebSocket frame can be sent before `completion` reports success.
final class ClientConnector {
    private let options: ClientOptions
    private let tlsContext: TLSContext?
    private let loop: EventLoop
    private var dialer: Dialer?
    private var stream: ByteStream?
    private var tlsStream: TLSStream?
    private var handshake: ClientHandshake
    private var request: ByteBuffer
    private var reader = HandshakeReader(chunkSize: 16 << 10)
    private var requestSentAt: Int64?
    private var timer: EventLoop.TimerID?
    private var completion: ((Result<OpenedConnection, ConnectFailure>) -> Void)?
    private let log: Diagnostics
    private var headerCommand: HeaderCommand?
    /// Where --header-command's stderr goes when it cannot share wspipe's.
    private let childErrors: () -> Destination?

    init(options: ClientOptions, tlsContext: TLSContext?, loop: EventLoop, log: Diagnostics,
         childErrors: @escaping () -> Destination? = { nil }) {
        self.options = options
        self.tlsContext = tlsContext
        self.loop = loop
        self.log = log
        self.childErrors = childErrors
        (handshake, request) = Self.request(options, extraHeaders: [])
    }

    /// The upgrade request: -H and --header-file headers, then `extraHeaders`
    /// (--header-command's), then Basic auth from the URL unless some header
    /// already authorizes.
    private static func request(_ options: ClientOptions, extraHeaders: [(name: String, value: String)])
        -> (ClientHandshake, ByteBuffer) {
        var entropy = EntropyPool()
        var headers = options.headers + extraHeaders
        if let user = options.url.userInfo, !headers.contains(where: { $0.name.lowercased() == "authorization" }) {
            headers.append((name: "Authorization", value: "Basic " + Base64.encode(Array(user.utf8))))
        }
        let handshake = ClientHandshake(host: options.url.hostHeader, path: options.url.target, headers: headers,
                                        protocols: options.protocols, origin: options.origin,
                                        userAgent: options.userAgent, offersCompression: options.compress,
                                        entropy: &entropy)
        var request = ByteBuffer()
        request.append(contentsOf: handshake.requestBytes)
        return (handshake, request)
    }

    func start(_ completion: @escaping (Result<OpenedConnection, ConnectFailure>) -> Void) {
        self.completion = completion
        let url = options.url
        timer = loop.schedule(afterNanos: options.connectTimeoutNanos) { [weak self] in
            self?.fail(.unreachable("timed out connecting to \(url.display) after \(Self.seconds(self?.options.connectTimeoutNanos ?? 0))"))
        }
        guard let command = options.headerCommand else { return dial() }
        runHeaderCommand(command)
    }

    /// --header-command first, under the same deadline; its headers go into
    /// this attempt's request. A failing command fails the attempt.
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
                (self.handshake, self.request) = Self.request(self.options, extraHeaders: headers)
                self.dial()
            case .failure(let failure):
                self.fail(.unreachable(failure.description))
            }
        }
    }

    private func dial() {
        let url = options.url
        let dialer = Dialer(host: url.host, port: url.port, route: options.route, loop: loop)
        self.dialer = dialer
        dialer.start { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let fd): self.connected(fd)
            case .failure(let error): self.fail(.unreachable(error.message))
            }
        }
    }

    /// Abandon the attempt (SIGINT while connecting); completion is not called.
    func cancel() {
        completion = nil
        dialer?.cancel()
        teardown()
    }

    private func connected(_ fd: Int32) {
        dialer = nil
        log.debug("TCP connected to \(options.url.host):\(options.url.port)")
        guard let context = tlsContext else {
            let plain = TCPStream(fd: fd)
            stream = plain
            watch(plain.fd, .write)
            return
        }
        do {
            let tls = try TLSStream(fd: fd, context: context, serverName: options.url.host)
            tlsStream = tls
            stream = tls
            stepTLS()
        } catch {
            closeFD(fd)
            fail(.tls("\(error)"))
        }
    }

    private func stepTLS() {
        guard let tls = tlsStream else { return }
        switch tls.handshake() {
        case .done:
            tlsStream = nil
            log.debug("TLS handshake with \(options.url.host) done")
            watch(tls.fd, .write)
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

    private func step() {
        if tlsStream != nil { stepTLS(); return }
        guard let stream else { return }
        if !request.isEmpty { sendRequest(stream) } else { readResponse(stream) }
    }

    private func sendRequest(_ stream: ByteStream) {
        while !request.isEmpty {
            switch request.withReadableBytes({ stream.write($0) }) {
            case .bytes(let n): request.consume(n)
            case .wouldBlock: watch(stream.fd, stream.wants.isEmpty ? .write : stream.wants); return
            case .eof: fail(.unreachable("connection closed by \(options.url.hostHeader) during the handshake")); return
            case .error(let error): fail(.unreachable("sending the handshake to \(options.url.hostHeader): \(error)")); return
            }
        }
        requestSentAt = monotonicNanos()
        watch(stream.fd, .read)
    }

    private func readResponse(_ stream: ByteStream) {
        switch reader.read(from: stream, { handle(handshake.receive($0), stream) }) {
        case .decided: return
        case .wouldBlock: watch(stream.fd, HandshakeReader.interest(of: stream))
        case .eof: fail(.invalidHandshake("connection closed before the server answered the upgrade"))
        case .failed(let text): fail(.unreachable("reading the handshake from \(options.url.hostHeader): \(text)"))
        }
    }

    /// True when the handshake is decided.
    private func handle(_ outcome: ClientHandshakeResult, _ stream: ByteStream) -> Bool {
        switch outcome {
        case .needMoreData:
            return false
        case .accepted(let subprotocol, _, _, let leftover):
            let head = handshake.response?.head ?? HTTPHead(startLine: "HTTP/1.1 101", headers: [])
            succeed(OpenedConnection(stream: stream, leftover: leftover, subprotocol: subprotocol, response: head,
                                     roundTripNanos: monotonicNanos() - (requestSentAt ?? monotonicNanos()),
                                     compression: handshake.compression))
        case .rejected(let status, let statusLine, _):
            fail(.rejected(status: status, statusLine: statusLine, body: rejectionBody(stream)))
        case .invalid(let reason):
            fail(.invalidHandshake(reason))
        }
        return true
    }

    /// The first bytes of a rejection's body, where servers say why: what
    /// came with the head, plus what one more read finds. Control
    /// characters escaped, cut at about 200 bytes.
    private func rejectionBody(_ stream: ByteStream) -> String {
        var body = handshake.response?.rest ?? []
        if body.count < Self.bodyExcerpt {
            var more = [UInt8](repeating: 0, count: Self.bodyExcerpt)
            if case .bytes(let n) = more.withUnsafeMutableBytes({ stream.read(into: $0) }) { body += more[..<n] }
        }
        var text = String(decoding: body.prefix(Self.bodyExcerpt), as: UTF8.self)
        while text.last?.isWhitespace == true { text.removeLast() }
        if body.count > Self.bodyExcerpt { text += "..." }
        return TerminalText.escapingControls(text)
    }

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
        dialer?.cancel()
        teardown()
        let done = completion
        completion = nil
        done?(.failure(failure))
    }

    private func teardown() {
        if let timer { loop.cancel(timer); self.timer = nil }
        headerCommand?.cancel()
        headerCommand = nil
        if let stream {
            loop.unwatch(stream.fd)
            stream.close()
            self.stream = nil
        }
        tlsStream = nil
    }

    private func closeFD(_ fd: Int32) { TCPStream(fd: fd).close() }

    static func seconds(_ nanos: Int64) -> String {
        if nanos % 1_000_000_000 == 0 { return "\(nanos / 1_000_000_000)s" }
        return "\(nanos / 1_000_000)ms"
    }
}
