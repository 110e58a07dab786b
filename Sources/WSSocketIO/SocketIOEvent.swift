import WSJSON

/// What a Socket.IO peer's message means, for the session that reads it
/// (`SocketIOClientState`, `SocketIOServerState`). Buffers are valid only
/// during the call they are handed to.
public enum SocketIOEvent {
    /// A packet of the protocol's own to send now (a pong, a namespace's
    /// connect or its answer): not a line, and not counted as one.
    case send([UInt8])
    /// Client: the Engine.IO session is open (its heartbeat's timings).
    case opened(EngineIOOpen)
    /// Client: the server's ping came (and was answered): it is alive.
    case pinged
    /// Server: the client's pong came.
    case ponged
    /// Client: the server accepted the namespace. Server: the client
    /// connected to it, with its auth object (JSON), if it sent one.
    case namespaceConnected(String, auth: [UInt8]?)
    /// Client: every namespace is connected; events may go out.
    case ready
    /// Client: the server refused the namespace (connect_error), with its message.
    case rejected(namespace: String, message: String)
    /// The peer left the namespace (a server that disconnects the client from it).
    case namespaceClosed(String)
    /// The peer closed the Engine.IO session.
    case engineClosed
    /// An event or an ack, as a JSON line.
    case line(UnsafeRawBufferPointer)
    /// The message is not Socket.IO as expected: shown as it is, with why.
    case unreadable(String)
}

/// Events and acks to lines, binary ones once their attachments are in.
/// Memory is bounded: a binary packet's attachments may hold at most
/// `maxBytes` together, and at most `SocketIOPacket.maxAttachments` of them.
struct SocketIOEventDecoder {
    private var pending: (packet: SocketIOPacket, text: [UInt8], attachments: [[UInt8]], bytes: Int)?
    private var line: [UInt8] = []
    let maxBytes: Int

    init(maxBytes: Int) { self.maxBytes = maxBytes }

    /// What the binary event waiting for its attachments holds.
    var heldBytes: Int { pending.map { $0.text.count + $0.bytes } ?? 0 }

    /// An event or ack packet (`text`: the whole message).
    mutating func packet(_ packet: SocketIOPacket, _ text: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        if pending != nil {
            pending = nil
            emit(.unreadable("a binary event's attachments were cut short by another packet; it is lost"))
        }
        if packet.kind.hasAttachments && packet.attachments > 0 {
            pending = (packet, Array(text), [], 0)
            return
        }
        write(packet, text, attachments: [], emit)
    }

    /// A binary message: the next attachment of the pending packet.
    mutating func binary(_ bytes: UnsafeRawBufferPointer, _ emit: (SocketIOEvent) -> Void) {
        guard var current = pending else {
            return emit(.unreadable("a binary message that no binary event announced"))
        }
        current.bytes += bytes.count
        guard current.bytes <= maxBytes else {
            pending = nil
            return emit(.unreadable("a binary event's attachments exceed \(maxBytes) bytes; it is lost"))
        }
        current.attachments.append(Array(bytes))
        guard current.attachments.count == current.packet.attachments else {
            pending = current
            return
        }
        pending = nil
        current.text.withUnsafeBytes { write(current.packet, $0, attachments: current.attachments, emit) }
    }

    private mutating func write(_ packet: SocketIOPacket, _ text: UnsafeRawBufferPointer, attachments: [[UInt8]],
                                _ emit: (SocketIOEvent) -> Void) {
        line.removeAll(keepingCapacity: true)
        do {
            try SocketIOLine.write(packet, of: text, attachments: attachments, into: &line)
        } catch {
            return emit(.unreadable("\(error)"))
        }
        line.withUnsafeBytes { emit(.line($0)) }
    }
}

extension SocketIOEvent {
    /// The message of a connect_error's data: `{"message":"…"}` (or a bare string).
    static func message(of json: UnsafeRawBufferPointer) -> String {
        let start = JSONWalk.skipWhitespace(json, 0)
        guard start < json.count else { return "" }
        var found: Range<Int>?
        if json[start] == 0x22 {
            found = start ..< JSONWalk.skipString(json, start)
        } else if json[start] == UInt8(ascii: "{") {
            JSONWalk.forEachMember(json, objectAt: start) { key, value in
                if JSONWalk.token(json, key, is: "message"), json[value.lowerBound] == 0x22 { found = value; return false }
                return true
            }
        }
        guard let found else { return String(decoding: json, as: UTF8.self) }
        var text: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[found]), into: &text)
        return String(decoding: text, as: UTF8.self)
    }
}
