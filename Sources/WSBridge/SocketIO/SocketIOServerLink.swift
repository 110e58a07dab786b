import WSCore
import WSTransport
import WSSocketIO

/// One client's Socket.IO side on the server (wspipe(1): SOCKET.IO): the
/// open packet it starts with, what the protocol answers by itself (the
/// namespaces' connects) written once the read is over, and the Engine.IO
/// heartbeat, which is the server's in v4: a ping every pingInterval, and a
/// client that does not pong within pingTimeout is gone.
final class SocketIOServerLink {
    enum Phase: Equatable {
        /// Between pings (the timer sends the next one).
        case idle
        /// A ping went; the timer is the pong's deadline.
        case awaitingPong
        case ended
    }

    private(set) var phase = Phase.idle
    private(set) var state: SocketIOServerState
    private let channel: WebSocketChannel
    private let loop: EventLoop
    private let intervalNanos: Int64
    private let timeoutNanos: Int64
    private var timer: EventLoop.TimerID?
    private var outbox: [[UInt8]] = []
    private let onDead: () -> Void
    /// The client connected its first namespace (the script starts then).
    var greeted = false
    /// The namespace was connected in the read being handled: the greeting
    /// (and the client's script, which answers its events) starts when that
    /// read is processed, after the connect's answer.
    var greetingDue = false

    init(channel: WebSocketChannel, sid: String, options: SocketIOOptions, maxMessageSize: Int, loop: EventLoop,
         onDead: @escaping () -> Void) {
        self.channel = channel
        self.loop = loop
        intervalNanos = options.pingIntervalNanos
        timeoutNanos = options.pingTimeoutNanos
        let open = EngineIOOpen(sid: sid, pingIntervalMs: Int(options.pingIntervalNanos / 1_000_000),
                                pingTimeoutMs: Int(options.pingTimeoutNanos / 1_000_000), maxPayload: maxMessageSize)
        state = SocketIOServerState(open: open, namespaces: options.namespaces.isEmpty ? nil : options.namespaces,
                                    maxMessageSize: maxMessageSize)
        self.onDead = onDead
    }

    /// The open packet goes first (after the 101), and the heartbeat starts.
    func start() {
        state.openPacket.withUnsafeBytes { channel.send(.text($0), tag: MessageTag.uncounted) }
        arm(intervalNanos)
    }

    /// A data message from the client: what it means goes to `handle`,
    /// except what the link does by itself (answers, the pong).
    func receive(_ event: ConnectionEvent, _ handle: (SocketIOEvent) -> Void) {
        func step(_ event: SocketIOEvent) {
            switch event {
            case .send(let packet): outbox.append(packet)
            case .ponged: pong()
            default: handle(event)
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

    func stop() {
        phase = .ended
        if let timer { loop.cancel(timer) }
        timer = nil
    }

    private func pong() {
        guard phase == .awaitingPong else { return }
        phase = .idle
        arm(intervalNanos)
    }

    private func timerFired() {
        switch phase {
        case .idle:
            guard channel.isOpen else { return }
            EngineIOPacket.ping.withUnsafeBytes { channel.send(.text($0), tag: MessageTag.uncounted) }
            channel.flush()
            phase = .awaitingPong
            arm(timeoutNanos)
        case .awaitingPong:
            phase = .ended
            onDead()
        case .ended:
            break
        }
    }

    private func arm(_ nanos: Int64) {
        if let timer { loop.cancel(timer) }
        timer = loop.schedule(afterNanos: nanos) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.timerFired()
        }
    }
}
