import WSJSON

/// Engine.IO v4 packets over the WebSocket transport
/// (https://socket.io/docs/v4/engine-io-protocol/): each text message is one
/// packet, its type the first character; a binary message is a message
/// packet's data as it is (Socket.IO's attachments).
public enum EngineIOPacketType: UInt8, Sendable {
    case open = 0x30, close, ping, pong, message, upgrade, noop

    /// The type of the text message `text` (nil: empty, or no such type).
    public init?(of text: UnsafeRawBufferPointer) {
        guard let first = text.first else { return nil }
        self.init(rawValue: first)
    }
}

public enum EngineIOPacket {
    /// The pong that answers a ping (the server pings in v4; the client
    /// answers, or the server drops it after pingInterval + pingTimeout).
    public static let pong: [UInt8] = [EngineIOPacketType.pong.rawValue]
    public static let ping: [UInt8] = [EngineIOPacketType.ping.rawValue]
    public static let close: [UInt8] = [EngineIOPacketType.close.rawValue]

    /// A text message that carries a Socket.IO packet (`4…`): what counts as
    /// a message of the peer's (a sign of life); the others are the
    /// transport's own (ping, pong, open, noop).
    @inline(__always)
    public static func isMessage(_ text: UnsafeRawBufferPointer) -> Bool {
        text.first == EngineIOPacketType.message.rawValue
    }
}

/// The open packet's data: the session id and the heartbeat's timings.
public struct EngineIOOpen: Equatable, Sendable {
    public var sid: String
    public var pingIntervalMs: Int
    public var pingTimeoutMs: Int
    public var maxPayload: Int?

    public init(sid: String, pingIntervalMs: Int, pingTimeoutMs: Int, maxPayload: Int? = nil) {
        self.sid = sid
        self.pingIntervalMs = pingIntervalMs
        self.pingTimeoutMs = pingTimeoutMs
        self.maxPayload = maxPayload
    }

    /// The defaults of Engine.IO v4 servers (25 s, 20 s), for a server that
    /// leaves them out.
    public static let defaultPingIntervalMs = 25_000
    public static let defaultPingTimeoutMs = 20_000

    /// Reads `0{"sid":…,"pingInterval":…,"pingTimeout":…}` (the whole message).
    public static func parse(_ text: UnsafeRawBufferPointer) throws -> EngineIOOpen {
        guard text.first == EngineIOPacketType.open.rawValue else {
            throw SocketIOError("not an Engine.IO open packet")
        }
        let json = UnsafeRawBufferPointer(rebasing: text[1...])
        guard case .valid = JSONScanner.validate(json), let start = json.firstIndex(where: { !JSONWalk.isWhitespace($0) }),
              json[start] == UInt8(ascii: "{") else {
            throw SocketIOError("the Engine.IO open packet holds no JSON object")
        }
        var open = EngineIOOpen(sid: "", pingIntervalMs: defaultPingIntervalMs, pingTimeoutMs: defaultPingTimeoutMs)
        var sawSid = false
        JSONWalk.forEachMember(json, objectAt: start) { key, value in
            if JSONWalk.token(json, key, is: "sid"), json[value.lowerBound] == 0x22 {
                var sid: [UInt8] = []
                JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[value]), into: &sid)
                open.sid = String(decoding: sid, as: UTF8.self)
                sawSid = true
            } else if JSONWalk.token(json, key, is: "pingInterval"), let ms = JSONWalk.integer(json, value) {
                open.pingIntervalMs = ms
            } else if JSONWalk.token(json, key, is: "pingTimeout"), let ms = JSONWalk.integer(json, value) {
                open.pingTimeoutMs = ms
            } else if JSONWalk.token(json, key, is: "maxPayload"), let bytes = JSONWalk.integer(json, value) {
                open.maxPayload = bytes
            }
            return true
        }
        guard sawSid else { throw SocketIOError("the Engine.IO open packet has no \"sid\"") }
        return open
    }

    /// The open packet a server sends (WebSocket only: no upgrades).
    public func packet() -> [UInt8] {
        var out: [UInt8] = [EngineIOPacketType.open.rawValue]
        out += Array("{\"sid\":".utf8)
        Array(sid.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        out += Array(",\"upgrades\":[],\"pingInterval\":\(pingIntervalMs),\"pingTimeout\":\(pingTimeoutMs)".utf8)
        if let maxPayload { out += Array(",\"maxPayload\":\(maxPayload)".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
