import WSJSON

/// A Socket.IO server's side of one client's connection, without I/O: the
/// open packet it starts with, the namespaces the client connects to
/// (answered `40/ns,{"sid":…}`, or `44` for one not served), the client's
/// pongs, then events and acks as lines. The pings are the session's to send
/// (`EngineIOPacket.ping`), on its timer.
public struct SocketIOServerState {
    public let open: EngineIOOpen
    /// The namespaces served; nil: any.
    private let served: [String]?
    /// The namespaces the client is connected to, in the order it joined.
    public private(set) var joined: [String] = []
    private var decoder: SocketIOEventDecoder

    public init(open: EngineIOOpen, namespaces: [String]?, maxMessageSize: Int) {
        self.open = open
        served = namespaces
        decoder = SocketIOEventDecoder(maxBytes: maxMessageSize)
    }

    /// What a binary event waiting for its attachments holds (memory the
    /// server counts against its budget for this client).
    public var heldBytes: Int { decoder.heldBytes }

    /// The first message to the client.
    public var openPacket: [UInt8] { open.packet() }

    public mutating func receive(text: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        guard let type = EngineIOPacketType(of: text) else {
            return emit(.unreadable(text.isEmpty ? "an empty message" : "not an Engine.IO packet"))
        }
        switch type {
        case .pong:
            emit(.ponged)
        case .ping:
            // Engine.IO v3 clients ping: answered, as a v4 server would not need to.
            var pong = EngineIOPacket.pong
            pong.append(contentsOf: text[1...])
            emit(.send(pong))
        case .close:
            emit(.engineClosed)
        case .noop:
            break
        case .open, .upgrade:
            emit(.unreadable("a client's Engine.IO \(type == .open ? "open" : "upgrade") packet"))
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
            connect(packet.namespace, auth: payload, emit)
        case .disconnect:
            joined.removeAll { $0 == packet.namespace }
            emit(.namespaceClosed(packet.namespace))
        case .connectError:
            emit(.unreadable("a connect_error from a client"))
        case .event, .ack, .binaryEvent, .binaryAck:
            decoder.packet(packet, text, emit)
        }
    }

    private mutating func connect(_ namespace: String, auth: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        var answer = SocketIOPacket(kind: .connect, namespace: namespace)
        if let served, !served.contains(namespace) {
            answer.kind = .connectError
            return emit(.send(answer.header() + Array("{\"message\":\"Invalid namespace\"}".utf8)))
        }
        if !auth.isEmpty, !JSONScanner.validate(auth).isValid {
            answer.kind = .connectError
            return emit(.send(answer.header() + Array("{\"message\":\"the auth data is not JSON\"}".utf8)))
        }
        var sid: [UInt8] = Array("{\"sid\":".utf8)
        Array("\(open.sid)\(namespace == "/" ? "" : namespace)".utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &sid) }
        sid.append(UInt8(ascii: "}"))
        emit(.send(answer.header() + sid))
        if !joined.contains(namespace) { joined.append(namespace) }
        emit(.namespaceConnected(namespace, auth: auth.isEmpty ? nil : Array(auth)))
    }
}
