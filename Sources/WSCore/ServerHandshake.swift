/// Server side (RFC 6455 §4.2.1): parse the client's request.
public struct ServerHandshake: Sendable {
    private var parser = HTTPHeaderParser(requiresCRLF: true)
    private var result: ServerHandshakeResult?

    public init() {}

    /// Feed request bytes until the head is complete (limit 16 KiB). Once a
    /// result other than `.needMoreData` is returned, later calls return it again.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> ServerHandshakeResult {
        if let result { return result }
        let outcome: ServerHandshakeResult
        switch parser.receive(bytes) {
        case .needMoreData: return .needMoreData
        case .tooLarge: outcome = .invalid(status: 431, reason: "request header too large")
        case .malformed(let reason): outcome = .invalid(status: 400, reason: "malformed request: " + reason)
        case .complete(let head, let leftover): outcome = ServerHandshake.validate(head, leftover: leftover)
        }
        result = outcome
        return outcome
    }

    /// §4.2.1 items 1-6, in order; the first failure decides the status.
    static func validate(_ head: HTTPHead, leftover: [UInt8]) -> ServerHandshakeResult {
        let parts = head.startLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[1].isEmpty, parts[2].hasPrefix("HTTP/") else {
            return .invalid(status: 400, reason: "malformed request line")
        }
        let method = String(parts[0]), target = String(parts[1])
        // Item 1: "An HTTP/1.1 or higher GET request".
        if method != "GET" { return .invalid(status: 405, reason: "method \(method) not allowed") }
        if parts[2] != "HTTP/1.1" { return .invalid(status: 400, reason: "HTTP/1.1 required") }
        if let problem = headerProblem(head) { return problem }
        let key = head.values("Sec-WebSocket-Key")
        // Item 5: "when decoded, is 16 bytes in length".
        guard key.count == 1, let nonce = Base64.decode(key[0]), nonce.count == 16 else {
            return .invalid(status: 400, reason: "missing or invalid Sec-WebSocket-Key")
        }
        let path = String(target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)[0])
        let request = UpgradeRequest(method: method, target: target, path: path, headers: head.headers,
                                     key: key[0], protocols: head.listValues("Sec-WebSocket-Protocol"))
        return .request(request, leftover: leftover)
    }

    /// Items 2-4 and 6: Host, Upgrade, Connection, Sec-WebSocket-Version.
    private static func headerProblem(_ head: HTTPHead) -> ServerHandshakeResult? {
        // RFC 7230 §5.4: "A server MUST respond with a 400 (Bad Request) status
        // code to any HTTP/1.1 request message that lacks a Host header field
        // and to any request message that contains more than one Host header field".
        let hosts = head.values("Host")
        if hosts.isEmpty { return .invalid(status: 400, reason: "missing Host header") }
        if hosts.count > 1 { return .invalid(status: 400, reason: "more than one Host header") }
        let upgrade = head.values("Upgrade").joined(separator: ",")
        if !ASCII.contains(upgrade, ignoringCase: "websocket") {
            return .invalid(status: 400, reason: "not a WebSocket upgrade request")
        }
        if !head.listValues("Connection").contains(where: { ASCII.equalsIgnoringCase($0, "upgrade") }) {
            return .invalid(status: 400, reason: "Connection header lacks the Upgrade token")
        }
        // §4.4: a version we do not speak gets 426 with the versions we do.
        if head.listValues("Sec-WebSocket-Version") != ["13"] {
            return .invalid(status: 426, reason: "unsupported Sec-WebSocket-Version (13 required)")
        }
        return nil
    }

    /// 101 response bytes for a valid request (§4.2.2 item 5). `extensions`:
    /// the Sec-WebSocket-Extensions value accepting the extensions in use
    /// (e.g. `DeflateParameters.headerValue`), nil for none. `headers`: more
    /// header lines (§4.2.2 item 5 allows "additional header fields"), after
    /// the handshake's own; checked by the caller.
    public static func acceptResponse(key: String, protocol: String?, extensions: String? = nil,
                                      headers: [(name: String, value: String)] = []) -> [UInt8] {
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: " + webSocketAccept(forKey: key) + "\r\n"
        if let `protocol` { text += "Sec-WebSocket-Protocol: " + `protocol` + "\r\n" }
        if let extensions { text += "Sec-WebSocket-Extensions: " + extensions + "\r\n" }
        for header in headers { text += header.name + ": " + header.value + "\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// A plain HTTP error response (e.g. 404 Not Found, 400 Bad Request, 426).
    /// A 426 names the version we speak (§4.4: "Sec-WebSocket-Version header
    /// field that indicates the version(s) the server is capable of understanding").
    public static func errorResponse(status: Int, reason: String, body: String) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        text += "Content-Type: text/plain\r\n"
        text += "Content-Length: \(body.utf8.count)\r\n"
        text += "Connection: close\r\n"
        if status == 426 { text += "Sec-WebSocket-Version: 13\r\n" }
        text += "\r\n" + body
        return Array(text.utf8)
    }
}
