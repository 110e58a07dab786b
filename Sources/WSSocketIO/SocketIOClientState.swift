import WSJSON

/// A Socket.IO client's side of one connection, without I/O (events in,
/// `SocketIOEvent`s out): the Engine.IO open packet, the namespaces'
/// connects (`40/ns,{auth}`) and their answers, the pings answered, then
/// events and acks as lines.
public struct SocketIOClientState {
    public enum Phase: Equatable {
        /// Waiting for the Engine.IO open packet.
        case awaitingOpen
        /// The namespaces' connects went; these have not been answered.
        case connecting(pending: [String])
        /// Every namespace is connected.
        case open
    }

    public private(set) var phase = Phase.awaitingOpen
    public let namespaces: [String]
    /// The auth object (JSON) every namespace's connect carries.
    private let auth: [UInt8]?
    private var decoder: SocketIOEventDecoder

    /// `namespaces`: in the order they are connected (at least one).
    public init(namespaces: [String], auth: [UInt8]?, maxMessageSize: Int) {
        self.namespaces = namespaces.isEmpty ? ["/"] : namespaces
        self.auth = auth
        decoder = SocketIOEventDecoder(maxBytes: maxMessageSize)
    }

    /// The connect packet of `namespace`: `40`, `40{auth}`, `40/chat,{auth}`.
    public func connectPacket(_ namespace: String) -> [UInt8] {
        let packet = SocketIOPacket(kind: .connect, namespace: namespace)
        return (auth ?? []).withUnsafeBytes { packet.encoded(json: $0) }
    }

    public mutating func receive(text: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        guard let type = EngineIOPacketType(of: text) else {
            return emit(.unreadable(text.isEmpty ? "an empty message" : "not an Engine.IO packet"))
        }
        switch type {
        case .open:
            guard phase == .awaitingOpen else { return emit(.unreadable("a second Engine.IO open packet")) }
            do {
                let open = try EngineIOOpen.parse(text)
                emit(.opened(open))
            } catch {
                return emit(.unreadable("\(error)"))
            }
            phase = .connecting(pending: namespaces)
            for namespace in namespaces { emit(.send(connectPacket(namespace))) }
        case .ping:
            // A probe's data comes back with its pong.
            var pong = EngineIOPacket.pong
            pong.append(contentsOf: text[1...])
            emit(.send(pong))
            emit(.pinged)
        case .close:
            emit(.engineClosed)
        case .noop, .pong:
            break
        case .upgrade:
            emit(.unreadable("an Engine.IO upgrade packet over the WebSocket transport"))
        case .message:
            message(text, emit)
        }
    }

    public mutating func receive(binary: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        decoder.binary(binary, emit)
    }

    private mutating func message(_ text: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        let packet: SocketIOPacket
        do { packet = try SocketIOPacket.parse(text) } catch { return emit(.unreadable("\(error)")) }
        let payload = UnsafeRawBufferPointer(rebasing: text[packet.payload])
        switch packet.kind {
        case .connect:
            guard case .connecting(var pending) = phase, let index = pending.firstIndex(of: packet.namespace) else {
                return   // an answer to a connect already answered: nothing to do
            }
            pending.remove(at: index)
            phase = pending.isEmpty ? .open : .connecting(pending: pending)
            emit(.namespaceConnected(packet.namespace, auth: payload.isEmpty ? nil : Array(payload)))
            if pending.isEmpty { emit(.ready) }
        case .connectError:
            emit(.rejected(namespace: packet.namespace, message: SocketIOEvent.message(of: payload)))
        case .disconnect:
            emit(.namespaceClosed(packet.namespace))
        case .event, .ack, .binaryEvent, .binaryAck:
            decoder.packet(packet, text, emit)
        }
    }
}
