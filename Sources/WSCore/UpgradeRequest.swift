/// A client's valid opening handshake (RFC 6455 §4.2.1), as the server saw it.
public struct UpgradeRequest: Sendable {
    public var method: String
    /// The request-target: path + query.
    public var target: String
    /// `target` without the query.
    public var path: String
    public var headers: [(name: String, value: String)]
    /// Sec-WebSocket-Key, as sent.
    public var key: String
    /// Offered subprotocols in order.
    public var protocols: [String]

    public init(method: String, target: String, path: String, headers: [(name: String, value: String)],
                key: String, protocols: [String]) {
        self.method = method
        self.target = target
        self.path = path
        self.headers = headers
        self.key = key
        self.protocols = protocols
    }

    /// The first value of header `name`, case-insensitive.
    public func header(_ name: String) -> String? {
        headers.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of header `name`, case-insensitive, in order.
    public func headerValues(_ name: String) -> [String] {
        headers.filter { ASCII.equalsIgnoringCase($0.name, name) }.map(\.value)
    }
}
