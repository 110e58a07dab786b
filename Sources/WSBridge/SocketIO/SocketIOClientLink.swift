import WSCore
import WSTransport
import WSSocketIO
import WSConnect

/// One connection's Socket.IO client side (wspipe(1): SOCKET.IO), between
/// its channel and the session. It feeds `SocketIOClientState`, writes what
/// the protocol answers by itself (the namespaces' connects, the pongs) once
/// the read that asked for it is over (a connection takes no send while it
/// is read), keeps the events that came before the last namespace was
/// connected, and holds the one timer of its phase.
final class SocketIOClientLink {
    enum Phase: Equatable {
        /// The open packet and the namespaces' answers are awaited, within
        /// --connect-timeout; then, if it failed, the Close's answer.
        case handshaking
        /// Every namespace answered during the read: the session opens the
        /// connection once the read is over.
        case connected
        /// Events flow; a dead-peer deadline (pingInterval + pingTimeout
        /// of the open packet) that every Engine.IO ping moves.
        case open
        case ended
    }

    private(set) var phase = Phase.handshaking
    let channel: WebSocketChannel
    /// The WebSocket the handshake runs on, until the connection opens.
    let connection: OpenedConnection
    private var state: SocketIOClientState
    private let loop: EventLoop
    private var timer: EventLoop.TimerID?
    private let handshakeNanos: Int64
    private var deadPeerNanos = Int64(EngineIOOpen.defaultPingIntervalMs + EngineIOOpen.defaultPingTimeoutMs) * 1_000_000
    private let onTimeout: (Phase) -> Void
    /// Written once the read is over (`processed`).
    private var outbox: [[UInt8]] = []
    /// Event lines that came before the last namespace was connected, and their size.
    private var early: [[UInt8]] = []
    private var earlyBytes = 0
    private let maxEarlyBytes: Int
    /// Why the handshake failed, once known: what the attempt reports when the channel ends.
    var failure: Disconnect?
    /// The Engine.IO session opened (the server speaks Engine.IO).
    private(set) var sawOpen = false
    /// The lifecycle gave the attempt up (an end, a /reconnect): its end is no failure to report.
    var cancelled = false

    init(connection: OpenedConnection, channel: WebSocketChannel, namespaces: [String], auth: [UInt8]?, loop: EventLoop,
         maxMessageSize: Int, handshakeNanos: Int64, onTimeout: @escaping (Phase) -> Void) {
        self.connection = connection
        self.channel = channel
        state = SocketIOClientState(namespaces: namespaces, auth: auth, maxMessageSize: maxMessageSize)
        self.loop = loop
        self.handshakeNanos = handshakeNanos
        maxEarlyBytes = maxMessageSize
        self.onTimeout = onTimeout
    }

    var isHandshaking: Bool { phase == .handshaking || phase == .connected }

    /// Starts reading the channel, within the handshake's deadline.
    func start() {
        arm(handshakeNanos)
        channel.start(leftover: connection.leftover)
    }

    /// A data message: what it means goes to `handle`, except what the link
    /// does by itself (sending, the heartbeat's deadline).
    func receive(_ event: ConnectionEvent, _ handle: (SocketIOEvent) -> Void) {
        func step(_ event: SocketIOEvent) {
            switch event {
            case .send(let packet):
                outbox.append(packet)
            case .opened(let open):
                sawOpen = true
                deadPeerNanos = Int64(open.pingIntervalMs + open.pingTimeoutMs) * 1_000_000
                handle(event)
            case .pinged:
                if phase == .open { arm(deadPeerNanos) }
            case .ready:
                if phase == .handshaking { phase = .connected }
                handle(event)
            default:
                handle(event)
            }
        }
        switch event {
        case .text(let payload, _): state.receive(text: payload, step)
        case .binary(let payload): state.receive(binary: payload, step)
        default: break
        }
    }

    /// The read is over: what the protocol answered goes out.
    func processed() {
        guard !outbox.isEmpty, channel.isOpen else { return }
        for packet in outbox { packet.withUnsafeBytes { channel.send(.text($0), tag: MessageTag.uncounted) } }
        outbox.removeAll()
        channel.flush()
    }

    /// An event line that came before the connection opened: kept for it,
    /// up to --max-message-size in all (false: no room).
    func keepEarly(_ line: UnsafeRawBufferPointer) -> Bool {
        earlyBytes += line.count
        guard earlyBytes <= maxEarlyBytes else { return false }
        early.append(Array(line))
        return true
    }

    /// The server disconnected `namespace`: true when none is left.
    func namespaceClosed(_ namespace: String) -> Bool {
        closedNamespaces.insert(namespace)
        return state.namespaces.allSatisfy { closedNamespaces.contains($0) }
    }

    private var closedNamespaces = Set<String>()

    func takeEarly() -> [[UInt8]] {
        defer { early = []; earlyBytes = 0 }
        return early
    }

    /// The handshake failed: the connection is closed, and dropped if the
    /// server does not answer the Close within `closeNanos`.
    func fail(_ cause: Disconnect, closeNanos: Int64) {
        guard failure == nil else { return }
        failure = cause
        arm(closeNanos)
        channel.close(code: .normal)
    }

    /// The connection opened: the dead-peer deadline starts.
    func opened() {
        phase = .open
        arm(deadPeerNanos)
    }

    func stop() {
        phase = .ended
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    /// How long the server may stay silent: pingInterval + pingTimeout.
    var deadPeerSeconds: Int64 { deadPeerNanos / 1_000_000_000 }

    private func arm(_ nanos: Int64) {
        if let timer { loop.cancel(timer) }
        timer = loop.schedule(afterNanos: nanos) { [unowned self] in
            self.timer = nil
            self.onTimeout(self.phase)
        }
    }
}
