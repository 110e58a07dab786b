import WSCore
import WSJSON
import WSCodecs

/// A browser's HAR file (HTTP Archive 1.2, "Save all as HAR" in Chrome's and
/// Firefox's DevTools) read as a recording (wspipe(1): CHECKING A SERVER):
/// each entry with WebSocket frames (`_webSocketMessages`, a Chrome
/// extension Firefox writes too: type "send" or "receive", time in seconds,
/// opcode 1 for text or 2 for binary, data as text or base64) becomes one
/// connection, its sent frames out messages and its received frames in
/// messages, with the request's URL, subprotocols and headers.
extension Recording {
    /// Whether `bytes` is a HAR file rather than --record lines: one JSON
    /// object with a "log" member.
    public static func isHAR(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !JSONSkipper.isWhitespace($0) }), first == UInt8(ascii: "{"),
              let tree = try? JSONTree.parse(bytes) else { return false }
        return tree["log"] != nil
    }

    /// The whole file or the file as --record lines, whichever it is.
    public static func reading(_ bytes: [UInt8], codec: BinaryFormat? = nil) throws(RecordingError) -> Recording {
        if isHAR(bytes) { return try Recording(parsingHAR: bytes) }
        return try Recording(parsing: bytes, codec: codec)
    }

    public init(parsingHAR bytes: [UInt8]) throws(RecordingError) {
        func fail(_ reason: String) -> RecordingError { RecordingError(line: 0, reason: reason) }
        let tree: JSONTree
        do { tree = try JSONTree.parse(bytes) } catch { throw fail("not a HAR file: \(error.reason)") }
        guard let harEntries = tree["log"]?["entries"]?.array else { throw fail("a HAR file without log.entries") }
        var entries: [Entry] = []
        var requests: [Int: RecordedRequest] = [:]
        var start: Double?
        var conn = 0
        for harEntry in harEntries {
            guard let frames = harEntry["_webSocketMessages"]?.array else { continue }
            conn += 1
            requests[conn] = HARRecording.request(harEntry["request"])
            entries.append(Entry(tMs: 0, direction: .event, conn: conn, message: nil, source: nil, event: "connected",
                                 line: 0, url: requests[conn]?.url))
            for (index, frame) in frames.enumerated() {
                let number = index + 1
                guard let entry = try HARRecording.entry(frame, conn: conn, number: number, start: &start) else { continue }
                entries.append(entry)
            }
        }
        guard conn > 0 else {
            throw fail("no WebSocket in this HAR file (no entry has _webSocketMessages: save it from the "
                       + "Network panel with the WebSocket's frames recorded)")
        }
        self.init(entries: entries, format: .har, requests: requests)
    }
}

/// The pieces of `Recording(parsingHAR:)`.
enum HARRecording {
    /// One frame as a recording entry; nil for a control frame (ping, pong, close).
    static func entry(_ frame: JSONTree, conn: Int, number: Int, start: inout Double?) throws(RecordingError) -> Recording.Entry? {
        func fail(_ reason: String) -> RecordingError {
            RecordingError(line: 0, reason: "connection \(conn), frame \(number): \(reason)")
        }
        let direction: RecordLine.Direction
        switch frame["type"]?.string {
        case "send": direction = .out
        case "receive": direction = .in
        default: throw fail("\"type\" must be \"send\" or \"receive\"")
        }
        let opcode = frame["opcode"]?.double ?? 1
        guard opcode == 1 || opcode == 2 else { return nil }
        guard let data = frame["data"]?.string else { throw fail("no \"data\"") }
        var message: OutboundQueue.Message
        if opcode == 2 {
            var decoded: [UInt8] = []
            let ok = Array(data.utf8).withUnsafeBytes { Base64.decode($0, into: &decoded) }
            guard ok else { throw fail("binary data that is not base64") }
            message = OutboundQueue.Message(isBinary: true, bytes: decoded, line: 0)
        } else {
            message = OutboundQueue.Message(isBinary: false, bytes: Array(data.utf8), line: 0)
        }
        let time = frame["time"]?.double ?? 0
        if start == nil { start = time }
        let tMs = Int64(max(0, min((time - start!) * 1000, 1e15)))
        return Recording.Entry(tMs: tMs, direction: direction, conn: conn, message: message, source: nil, event: nil,
                               line: number)
    }

    /// The request of a HAR entry: URL, subprotocols, Origin, the other
    /// headers, and apart those that carry credentials.
    static func request(_ request: JSONTree?) -> RecordedRequest {
        var result = RecordedRequest(url: request?["url"]?.string.map(webSocketURL))
        for header in request?["headers"]?.array ?? [] {
            guard let name = header["name"]?.string, let value = header["value"]?.string,
                  !name.hasPrefix(":") else { continue }   // HTTP/2 pseudo-headers
            let lower = name.lowercased()
            if lower == "sec-websocket-protocol" {
                result.protocols += value.split(separator: ",").map { String($0.drop { $0 == " " }) }
            } else if lower == "origin" {
                result.origin = value
            } else if handshakeOwned.contains(lower) {
                continue
            } else if isCredential(lower) {
                result.credentials.append((name, value))
            } else if !result.headers.contains(where: { $0.name.lowercased() == lower }) {
                result.headers.append((name, value))
            }
        }
        return result
    }

    /// What the handshake writes itself, or that describes the browser's
    /// connection rather than the request (Host comes from the URL).
    static let handshakeOwned: Set<String> = [
        "host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version", "sec-websocket-extensions",
        "sec-websocket-accept", "content-length", "transfer-encoding", "accept-encoding", "keep-alive", "te",
    ]

    /// Headers that carry credentials (`lower`: a lower-case name): Cookie,
    /// Authorization, Proxy-Authorization, and any whose name mentions a
    /// token, a key, a secret, a session, a password or a CSRF/XSRF guard.
    static func isCredential(_ lower: String) -> Bool {
        if ["cookie", "authorization", "proxy-authorization"].contains(lower) { return true }
        return ["token", "auth", "secret", "key", "session", "password", "csrf", "xsrf"].contains { lower.contains($0) }
    }

    /// DevTools may write a WebSocket's URL with http(s):// (Firefox).
    static func webSocketURL(_ url: String) -> String {
        let lower = url.lowercased()
        if lower.hasPrefix("https://") { return "wss://" + url.dropFirst(8) }
        if lower.hasPrefix("http://") { return "ws://" + url.dropFirst(7) }
        return url
    }
}
