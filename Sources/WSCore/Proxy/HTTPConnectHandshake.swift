/// The client side of an HTTP proxy tunnel (RFC 9110 §9.3.6, CONNECT):
/// the request to send, then the proxy's response fed in as it arrives.
///
/// Any 2xx opens the tunnel; the bytes that follow belong to the target
/// (a WebSocket server never speaks first, so there are none). Anything
/// else is the proxy's refusal, reported with its status line.
public struct HTTPConnectHandshake: Sendable {
    public enum Outcome: Equatable, Sendable {
        case needMoreData
        /// The tunnel is open; `leftover` came from the target (normally empty).
        case established(leftover: [UInt8])
        /// A status other than 2xx; 407 means the proxy wants (other) credentials.
        /// The status line as the proxy sent it: whatever shows it to a
        /// person escapes it (TerminalEscaping, in the bridge).
        case refused(status: Int, statusLine: String)
        case invalid(String)
    }

    /// `CONNECT host:port HTTP/1.1` with Host and, given credentials,
    /// Basic Proxy-Authorization (RFC 9110 §11.7.2, RFC 7617).
    public let request: [UInt8]
    private var parser = HTTPHeaderParser()
    private var outcome: Outcome?

    public init(host: String, port: UInt16, credentials: (user: String, password: String)? = nil) {
        // authority-form (RFC 9112 §3.2.3): IPv6 literals in brackets.
        let authority = (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials {
            let token = Base64.encode(Array("\(credentials.user):\(credentials.password)".utf8))
            text += "Proxy-Authorization: Basic \(token)\r\n"
        }
        text += "\r\n"
        request = Array(text.utf8)
    }

    /// Once decided, later calls return the same outcome.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> Outcome {
        if let outcome { return outcome }
        let result: Outcome
        switch parser.receive(bytes) {
        case .needMoreData: return .needMoreData
        case .tooLarge: result = .invalid("proxy response header too large")
        case .malformed(let reason): result = .invalid("malformed proxy response: \(reason)")
        case .complete(let head, let leftover):
            if let status = ClientHandshake.statusCode(head.startLine) {
                result = (200..<300).contains(status)
                    ? .established(leftover: leftover)
                    : .refused(status: status, statusLine: head.startLine)
            } else {
                result = .invalid("malformed proxy status line: \(head.startLine)")
            }
        }
        outcome = result
        return result
    }
}
