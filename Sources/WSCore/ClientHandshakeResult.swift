/// What `ClientHandshake.receive` concluded.
public enum ClientHandshakeResult: Sendable {
    case needMoreData
    /// 101 with a valid Upgrade/Connection/Accept. `leftover`: bytes after the
    /// header block (the first frames), to feed to the Connection.
    case accepted(protocol: String?, extensions: String?, headers: [(name: String, value: String)], leftover: [UInt8])
    /// A well-formed non-101 response: statusLine e.g. "HTTP/1.1 401 Unauthorized".
    case rejected(status: Int, statusLine: String, headers: [(name: String, value: String)])
    /// Malformed response, oversized header block, missing/duplicate/wrong
    /// Sec-WebSocket-Accept, bad Upgrade/Connection, a subprotocol we did not
    /// offer, an extension we did not ask for. reason is a short English phrase.
    case invalid(reason: String)
}
