import WSCore
import WSTransport
import WSTerminal
import WSConnect

/// One accepted client of the server: TLS and HTTP upgrade first, then a
/// WebSocketChannel. The session decides what to do with its messages.
final class ServerClient {
    let id: Int
    let peer: String
    private let loop: EventLoop
    private let stream: ByteStream
    private var tls: TLSStream?
    private var handshake = ServerHandshake()
    private var reader = HandshakeReader(chunkSize: 8 << 10)
    private(set) var channel: WebSocketChannel?
    private var timer: EventLoop.TimerID?
    private let accept: (ServerClient, UpgradeRequest) -> Result<String?, HTTPRefusal>
    private let events: (ServerClient, WebSocketChannel.Event) -> Void
    private let failedUpgrade: (ServerClient, UpgradeFailure) -> Void
    private let opened: (ServerClient) -> Void
    private let maxMessageSize: Int
    /// --compress: accept a permessage-deflate offer (RFC 7692).
    private let compress: Bool
    /// -H, --header-file: more headers in the 101 response.
    private let responseHeaders: [(name: String, value: String)]
    /// --ping-interval: this client's pings, once it is open.
    var keepAlive: KeepAlive?

    /// Where the client is, as the session sees it.
    enum Phase {
        /// TLS and the HTTP upgrade.
        case upgrading
        /// Takes broadcast messages.
        case open
        /// Closing, failed or timed out: takes no more messages.
        case closing
        case ended
    }

    /// Its unsent output went above the high water: stdin waits for it.
    /// `watch` and `timer` look at its progress for --send-timeout.
    struct Stall {
        var watch: SendStall?
        var timer: EventLoop.TimerID?
    }

    var phase = Phase.upgrading
    /// nil while its output is below the high water.
    var stall: Stall?
    /// Its buffers at the last count (`MemoryBudget`).
    var heldBytes = 0
    /// --tag: messages whose own "$client" member was removed.
    var ownTagsRemoved = 0
    /// How the connection ended, for the client_disconnected event.
    var closeInfo: (code: CloseCode, reason: String, clean: Bool)?
    /// --answer, --heartbeat, --replay... on this client (ServerSession+Script.swift).
    var script: ConnectionScript?
    /// --socketio: its Socket.IO side (ServerSession+SocketIO.swift).
    var socketIO: SocketIOServerLink?
    /// What it holds besides its channel: a binary event's attachments so far.
    var heldBesidesChannel: Int { socketIO?.state.heldBytes ?? 0 }

    /// Why a request is refused before the upgrade.
    struct HTTPRefusal: Error {
        var status: Int
        /// The status line's reason phrase.
        var reason: String
        /// Why, when the status alone does not say (a limit of the
        /// server's): in the body the client reads, the `client_refused`
        /// event and the stderr line.
        var detail: String? = nil
        /// Said on stderr without -v too, with this after it: a program
        /// that cannot start, the first refusal at a limit (the next ones
        /// only with -v). nil: only with -v.
        var warning: String? = nil

        /// "503 Service Unavailable: 2 programs running, the --max-programs limit".
        var description: String { "\(status) \(reason)" + (detail.map { ": \($0)" } ?? "") }
    }

    /// Why a connection never became a WebSocket client.
    enum UpgradeFailure: CustomStringConvertible {
        /// Answered with an HTTP error status (404, 403, 503, 400...).
        case refused(HTTPRefusal)
        /// The TLS handshake failed (a client certificate refused, plain
        /// HTTP on a TLS port...).
        case tls(String)
        /// Gone or silent before the upgrade (EOF, error, handshake timeout).
        case abandoned(String)

        var description: String {
            switch self {
            case .refused(let refusal): return refusal.description
            case .tls(let text), .abandoned(let text): return text
            }
        }
    }

    init(id: Int, fd: Int32, peer: String, tlsContext: TLSContext?, loop: EventLoop, maxMessageSize: Int,
         compress: Bool = false, responseHeaders: [(name: String, value: String)] = [], handshakeTimeoutNanos: Int64,
         accept: @escaping (ServerClient, UpgradeRequest) -> Result<String?, HTTPRefusal>,
         events: @escaping (ServerClient, WebSocketChannel.Event) -> Void,
         opened: @escaping (ServerClient) -> Void,
         failedUpgrade: @escaping (ServerClient, UpgradeFailure) -> Void) throws {
        self.id = id
        self.peer = peer
        self.loop = loop
        self.accept = accept
        self.events = events
        self.failedUpgrade = failedUpgrade
        self.opened = opened
        self.maxMessageSize = maxMessageSize
        self.compress = compress
        self.responseHeaders = responseHeaders
        if let tlsContext {
            let t = try TLSStream(fd: fd, context: tlsContext, serverName: nil)
            tls = t
            stream = t
        } else {
            stream = TCPStream(fd: fd)
        }
        timer = loop.schedule(afterNanos: handshakeTimeoutNanos) { [weak self] in
            self?.abandon(.abandoned("no WebSocket upgrade request in time"))
        }
        loop.watch(fd, .read) { [weak self] _ in self?.step() }
    }

    private func step() {
        if let t = tls {
            switch t.handshake() {
            case .done: tls = nil
            case .wantRead: loop.setInterest(stream.fd, .read); return
            case .wantWrite: loop.setInterest(stream.fd, .write); return
            case .failed(let text): abandon(.tls(text)); return
            }
        }
        readRequest()
    }

    private func readRequest() {
        var outcome: ServerHandshakeResult = .needMoreData
        let step = reader.read(from: stream) { bytes in
            outcome = handshake.receive(bytes)
            if case .needMoreData = outcome { return false }
            return true
        }
        switch step {
        case .decided:
            switch outcome {
            case .needMoreData: break
            case .request(let request, let leftover): upgrade(request, leftover: leftover)
            case .invalid(let status, let reason): refuse(HTTPRefusal(status: status, reason: reason))
            }
        case .wouldBlock: loop.setInterest(stream.fd, HandshakeReader.interest(of: stream))
        case .eof: abandon(.abandoned("closed before the upgrade"))
        case .failed(let text): abandon(.abandoned(text))
        }
    }

    private func upgrade(_ request: UpgradeRequest, leftover: [UInt8]) {
        switch accept(self, request) {
        case .failure(let refusal):
            refuse(refusal)
        case .success(let subprotocol):
            cancelTimer()
            loop.unwatch(stream.fd)
            let compression = compress
                ? DeflateNegotiation.serverChoice(offers: request.headerValues("Sec-WebSocket-Extensions")) : nil
            let channel = WebSocketChannel(stream: stream, role: .server, maxMessageSize: maxMessageSize,
                                           compression: compression, leftover: leftover,
                                           loop: loop) { [unowned self] event in self.events(self, event) }
            self.channel = channel
            channel.sendFirst(ServerHandshake.acceptResponse(key: request.key, protocol: subprotocol,
                                                             extensions: compression?.headerValue,
                                                             headers: responseHeaders))
            opened(self)
            channel.start()
        }
    }

    private func refuse(_ refusal: HTTPRefusal) {
        // The reason may quote the request (its method): no control byte goes back in the status line.
        let reason = TerminalEscaping.escaping(refusal.reason)
        // A 503 is temporary (RFC 9110 §15.6.4): its body says so, after why.
        let later = refusal.status == 503 && refusal.detail != nil ? "; try again later" : ""
        let said = refusal.detail.map { ": " + TerminalEscaping.escaping($0) + later } ?? ""
        let response = ServerHandshake.errorResponse(status: refusal.status, reason: reason,
                                                     body: "\(refusal.status) \(reason)\(said)\n")
        _ = response.withUnsafeBytes { stream.write($0) }   // best effort: a few hundred bytes
        abandon(.refused(refusal))
    }

    /// Drop a client whose upgrade is still in progress (server shutdown).
    func cancel() {
        cancelTimer()
        loop.unwatch(stream.fd)
        stream.close()
    }

    private func abandon(_ why: UpgradeFailure) {
        cancelTimer()
        loop.unwatch(stream.fd)
        stream.close()
        failedUpgrade(self, why)
    }

    private func cancelTimer() {
        if let timer { loop.cancel(timer); self.timer = nil }
    }
}
