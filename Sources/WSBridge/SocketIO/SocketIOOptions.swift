import WSMessages
import WSConnect
/// --socketio, --namespace, --sio-auth (wspipe(1): SOCKET.IO): what the
/// bridge speaks over the WebSocket when it speaks Socket.IO.
public struct SocketIOOptions: Sendable {
    /// Client: the namespaces connected on every connection, in order.
    /// Server: those served (empty: any namespace a client names).
    public var namespaces: [String] = []
    /// Client: --sio-auth, the auth object every namespace's connect
    /// carries, rendered afresh for each connection.
    public var auth: MessageTemplate? = nil
    /// Server: the heartbeat its open packet announces and it keeps
    /// (--ping-interval, --ping-timeout; Engine.IO's 25 s and 20 s by default).
    public var pingIntervalNanos: Int64 = 25_000_000_000
    public var pingTimeoutNanos: Int64 = 20_000_000_000

    public init() {}

    /// The client's namespaces: "/" unless others are named.
    var clientNamespaces: [String] { namespaces.isEmpty ? ["/"] : namespaces }
}

extension WebSocketURL {
    /// The URL of the Engine.IO WebSocket transport: an empty path (or "/")
    /// becomes /socket.io/, another path is kept, and the query gets
    /// EIO=4&transport=websocket (what it already says of either is kept).
    public func socketIO() -> WebSocketURL {
        var url = self
        let query = target.firstIndex(of: "?")
        var path = query.map { String(target[..<$0]) } ?? target
        var parameters = query.map { String(target[target.index(after: $0)...]) } ?? ""
        if path.isEmpty || path == "/" { path = "/socket.io/" }
        let names = parameters.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "" }
        for (name, value) in [("EIO", "4"), ("transport", "websocket")] where !names.contains(name) {
            parameters += (parameters.isEmpty ? "" : "&") + "\(name)=\(value)"
        }
        url.target = path + "?" + parameters
        return url
    }
}
