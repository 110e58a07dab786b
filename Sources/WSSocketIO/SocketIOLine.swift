import WSJSON

/// Socket.IO packets as wspipe's JSON lines, both ways (wspipe(1): SOCKET.IO):
///
///     42/chat,17["message",{"text":"hi"}]  <->  {"event":"message","data":{"text":"hi"},"ns":"/chat","ack":17}
///     43/chat,17[{"ok":true}]              <->  {"ack_of":17,"data":{"ok":true},"ns":"/chat"}
///
/// One argument is `data`; none leaves both out; several are `args`. `ns`
/// is left out for "/". An event's `ack` is the id the sender asked its
/// answer under; a line that answers one holds that id as `ack` and no
/// `event`, and comes back (from the peer) as `ack_of`. Binary data is a
/// `{"$binary":"<base64>"}` wherever it sits (`SocketIOAttachments`).
public enum SocketIOLine {
    /// The line of an event or ack packet (`text`: the whole message) and
    /// its attachments, appended to `out`.
    public static func write(_ packet: SocketIOPacket, of text: UnsafeRawBufferPointer, attachments: [[UInt8]] = [],
                             into out: inout [UInt8]) throws {
        let payload = UnsafeRawBufferPointer(rebasing: text[packet.payload])
        var compacted: [UInt8] = []
        switch JSONScanner.validate(payload) {
        case .valid(let needsCompaction):
            if needsCompaction {
                JSONScanner.compact(payload, into: &compacted)
            }
        case .invalid(let e), .incomplete(let e):
            throw SocketIOError("the packet's data is not JSON: \(e.reason)", at: packet.payload.lowerBound + e.offset)
        }
        guard compacted.isEmpty else {
            return try compacted.withUnsafeBytes { try writeValidated(packet, $0, attachments, into: &out) }
        }
        try writeValidated(packet, payload, attachments, into: &out)
    }

    private static func writeValidated(_ packet: SocketIOPacket, _ json: UnsafeRawBufferPointer, _ attachments: [[UInt8]],
                                       into out: inout [UInt8]) throws {
        let start = JSONWalk.skipWhitespace(json, 0)
        guard start < json.count, json[start] == UInt8(ascii: "[") else {
            throw SocketIOError("the packet's data is not an array")
        }
        var elements: [Range<Int>] = []
        JSONWalk.forEachElement(json, arrayAt: start) { elements.append($0) }
        let arrayEnd = JSONWalk.skipValue(json, start)
        var args = elements[...]
        switch packet.kind {
        case .event, .binaryEvent:
            guard let name = elements.first, json[name.lowerBound] == 0x22 else {
                throw SocketIOError("an event without its name")
            }
            out += Array("{\"event\":".utf8)
            out.append(contentsOf: json[name])
            args = elements.dropFirst()
        case .ack, .binaryAck:
            guard let id = packet.ackID else { throw SocketIOError("an ack without its id") }
            out += Array("{\"ack_of\":\(id)".utf8)
        default:
            throw SocketIOError("not an event or an ack")
        }
        // Placeholders mean something only in a binary packet (socket.io-parser's rule):
        // elsewhere an object that looks like one is the sender's data.
        func copy(_ range: Range<Int>) throws {
            guard packet.kind.hasAttachments else { return out.append(contentsOf: json[range]) }
            try SocketIOAttachments.insert(json, range, attachments: attachments, into: &out)
        }
        if args.count == 1 {
            out += Array(",\"data\":".utf8)
            try copy(args.first!)
        } else if let first = args.first {
            out += Array(",\"args\":[".utf8)
            try copy(first.lowerBound ..< arrayEnd)
        }
        if packet.namespace != "/" {
            out += Array(",\"ns\":".utf8)
            Array(packet.namespace.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        }
        if packet.kind == .event || packet.kind == .binaryEvent, let id = packet.ackID {
            out += Array(",\"ack\":\(id)".utf8)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// What a line asks for, before its packet is made.
    public struct Parts: Equatable {
        public enum Ack: Equatable {
            case none
            /// `"ack":true`: an ack asked for, under an id wspipe gives it.
            case ask
            /// An event with `"ack":N` asks under N; a line without
            /// "event" answers the ack N.
            case id(Int)
        }
        /// The event's name token (quotes included); nil for an ack's answer.
        public var event: Range<Int>?
        public var data: Range<Int>?
        public var args: Range<Int>?
        public var namespace = "/"
        public var ack = Ack.none

        /// The line answers an ack (no "event").
        public var isAnswer: Bool { event == nil }
    }

    /// Reads a line (valid JSON) as an event or an ack's answer; throws with
    /// what is wrong and where.
    /// `ignoring`: members left for another reader (a server's "$client").
    public static func parse(_ line: UnsafeRawBufferPointer, ignoring: Set<String> = []) throws -> Parts {
        let start = JSONWalk.skipWhitespace(line, 0)
        guard start < line.count, line[start] == UInt8(ascii: "{") else {
            throw SocketIOError("not a Socket.IO line: an object with \"event\" (or \"ack\" to answer one) is expected", at: start)
        }
        var parts = Parts()
        var seen = Set<String>()
        var failure: SocketIOError?
        JSONWalk.forEachMember(line, objectAt: start) { key, value in
            var name: [UInt8] = []
            JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: line[key]), into: &name)
            let keyName = String(decoding: name, as: UTF8.self)
            if ignoring.contains(keyName) { return true }
            guard seen.insert(keyName).inserted else {
                failure = SocketIOError("\"\(keyName)\" given twice", at: key.lowerBound)
                return false
            }
            let first = line[value.lowerBound]
            switch keyName {
            case "event":
                guard first == 0x22 else { failure = SocketIOError("\"event\" must be a string", at: value.lowerBound); return false }
                parts.event = value
            case "data":
                parts.data = value
            case "args":
                guard first == UInt8(ascii: "[") else { failure = SocketIOError("\"args\" must be an array", at: value.lowerBound); return false }
                parts.args = value
            case "ns":
                if first == UInt8(ascii: "n") { break }   // null: the main namespace
                guard first == 0x22 else { failure = SocketIOError("\"ns\" must be a string", at: value.lowerBound); return false }
                var ns: [UInt8] = []
                JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: line[value]), into: &ns)
                parts.namespace = String(decoding: ns, as: UTF8.self)
                guard SocketIOPacket.isValidNamespace(parts.namespace) else {
                    failure = SocketIOError("\"ns\" must start with \"/\" and hold no comma", at: value.lowerBound)
                    return false
                }
            case "ack":
                if first == UInt8(ascii: "t") { parts.ack = .ask; break }
                if first == UInt8(ascii: "f") { break }
                guard let id = JSONWalk.integer(line, value), id <= SocketIOPacket.maxAckID else {
                    failure = SocketIOError("\"ack\" must be true (ask for one) or the id of the event answered", at: value.lowerBound)
                    return false
                }
                parts.ack = .id(id)
            default:
                failure = SocketIOError("unknown member \"\(keyName)\" (a Socket.IO line has event, data or args, ns, ack)", at: key.lowerBound)
                return false
            }
            return true
        }
        if let failure { throw failure }
        if parts.data != nil && parts.args != nil {
            throw SocketIOError("\"data\" and \"args\" together (data is the one argument, args several)", at: start)
        }
        if parts.event == nil {
            guard case .id = parts.ack else {
                throw SocketIOError("no \"event\" (an ack's answer has \"ack\":ID instead)", at: start)
            }
        }
        return parts
    }

    /// The packet (a whole text message) and attachments for a parsed line;
    /// `ackID` is the id an `"ack":true` asks under.
    public static func encode(_ parts: Parts, of line: UnsafeRawBufferPointer,
                              ackID: Int? = nil) throws -> (packet: [UInt8], attachments: [[UInt8]]) {
        var json: [UInt8] = [UInt8(ascii: "[")]
        var attachments: [[UInt8]] = []
        if let event = parts.event { json.append(contentsOf: line[event]) }
        if let data = parts.data {
            if parts.event != nil { json.append(UInt8(ascii: ",")) }
            try SocketIOAttachments.extract(line, data, into: &json, attachments: &attachments)
        } else if let args = parts.args {
            let inner = JSONWalk.skipWhitespace(line, args.lowerBound + 1) ..< args.upperBound - 1
            if line[inner.lowerBound] != UInt8(ascii: "]") && !inner.isEmpty {
                if parts.event != nil { json.append(UInt8(ascii: ",")) }
                try SocketIOAttachments.extract(line, inner, into: &json, attachments: &attachments)
            }
        }
        json.append(UInt8(ascii: "]"))
        var packet = SocketIOPacket(kind: .event, namespace: parts.namespace)
        switch parts.ack {
        case .none: break
        case .ask: packet.ackID = ackID
        case .id(let id): packet.ackID = id
        }
        if parts.isAnswer { packet.kind = attachments.isEmpty ? .ack : .binaryAck } else if !attachments.isEmpty { packet.kind = .binaryEvent }
        packet.attachments = attachments.count
        return (json.withUnsafeBytes { packet.encoded(json: $0) }, attachments)
    }
}
