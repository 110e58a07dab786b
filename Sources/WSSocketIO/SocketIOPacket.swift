/// A Socket.IO v5 packet's header (https://socket.io/docs/v4/socket-io-protocol/),
/// as it follows the Engine.IO message type `4` in a text message:
/// `<type>[<attachments>-][<namespace>,][<ack id>][<JSON>]`, for example
/// `2/chat,17["message",{"text":"hi"}]` or `51-["file",{"_placeholder":true,"num":0}]`.
public struct SocketIOPacket: Equatable, Sendable {
    public enum Kind: UInt8, Sendable {
        case connect = 0x30, disconnect, event, ack, connectError, binaryEvent, binaryAck

        /// Its data is followed by binary messages (`attachments` of them).
        public var hasAttachments: Bool { self == .binaryEvent || self == .binaryAck }
    }

    public var kind: Kind
    public var attachments: Int
    /// "/" when the packet names none.
    public var namespace: String
    public var ackID: Int?
    /// The JSON that ends the packet (may be empty), as offsets into the text parsed.
    public var payload: Range<Int>

    /// More attachments than this in one packet are refused: each is a
    /// message held until the last arrives.
    public static let maxAttachments = 1024
    /// Ack ids beyond this are refused (JavaScript's safe integers hold them all).
    public static let maxAckID = 999_999_999_999_999

    public init(kind: Kind, attachments: Int = 0, namespace: String = "/", ackID: Int? = nil, payload: Range<Int> = 0 ..< 0) {
        self.kind = kind
        self.attachments = attachments
        self.namespace = namespace
        self.ackID = ackID
        self.payload = payload
    }

    /// Reads the header of the whole text message `text` (`4…`).
    public static func parse(_ text: UnsafeRawBufferPointer) throws -> SocketIOPacket {
        guard text.count >= 2, text[0] == EngineIOPacketType.message.rawValue else {
            throw SocketIOError("not a Socket.IO packet")
        }
        guard let kind = Kind(rawValue: text[1]) else {
            throw SocketIOError("unknown Socket.IO packet type \(String(decoding: text[1 ..< 2], as: UTF8.self))", at: 1)
        }
        var packet = SocketIOPacket(kind: kind)
        var i = 2
        if kind.hasAttachments {
            let start = i
            while i < text.count, isDigit(text[i]) { i += 1 }
            guard i > start, i < text.count, text[i] == UInt8(ascii: "-"), i - start <= 6 else {
                throw SocketIOError("a binary packet without its attachment count", at: start)
            }
            packet.attachments = Int(String(decoding: text[start ..< i], as: UTF8.self))!
            guard packet.attachments <= maxAttachments else {
                throw SocketIOError("\(packet.attachments) attachments (at most \(maxAttachments))", at: start)
            }
            i += 1
        }
        if i < text.count, text[i] == UInt8(ascii: "/") {
            let start = i
            while i < text.count, text[i] != UInt8(ascii: ",") { i += 1 }
            packet.namespace = String(decoding: text[start ..< i], as: UTF8.self)
            if i < text.count { i += 1 }
        }
        let idStart = i
        while i < text.count, isDigit(text[i]) { i += 1 }
        if i > idStart {
            guard i - idStart <= 15 else { throw SocketIOError("an ack id too large", at: idStart) }
            packet.ackID = Int(String(decoding: text[idStart ..< i], as: UTF8.self))!
        }
        packet.payload = i ..< text.count
        return packet
    }

    /// The text message for this packet with `json` as its data: `4`, the
    /// type, the attachment count, the namespace and ack id when they are
    /// not the defaults, then the JSON.
    public func encoded(json: UnsafeRawBufferPointer) -> [UInt8] {
        var out = header()
        out.append(contentsOf: json)
        return out
    }

    public func header() -> [UInt8] {
        var out: [UInt8] = [EngineIOPacketType.message.rawValue, kind.rawValue]
        if kind.hasAttachments { out += Array("\(attachments)-".utf8) }
        if namespace != "/" { out += Array(namespace.utf8); out.append(UInt8(ascii: ",")) }
        if let ackID { out += Array(String(ackID).utf8) }
        return out
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// A namespace as a line may name it: it starts with "/" and holds no
    /// comma (which would end it inside the packet) nor control character.
    public static func isValidNamespace(_ name: String) -> Bool {
        name.hasPrefix("/") && !name.utf8.contains { $0 == UInt8(ascii: ",") || $0 < 0x20 || $0 == 0x7F }
    }
}
