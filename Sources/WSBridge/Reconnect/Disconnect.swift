/// Why a connection (or an attempt) ended, as far as retrying is concerned.
/// `RetryPolicy` turns it into a verdict.
public enum Disconnect: Equatable, Sendable {
    /// DNS, TCP refused/reset, connect timeout.
    case unreachable(String)
    /// Certificate or TLS handshake failure.
    case tlsFailed(String)
    /// A well-formed HTTP response other than 101 (RFC 6455 §4.1, step 1 of the
    /// client's checks), e.g. status 401 with "HTTP/1.1 401 Unauthorized".
    case handshakeRejected(status: Int, statusLine: String)
    /// A response that is not a valid WebSocket handshake.
    case invalidHandshake(String)
    /// The server's Close frame; code nil when it carried no status (1005).
    case closedByServer(code: UInt16?, reason: String)
    /// EOF or RST without a Close frame.
    case dropped(String)
    /// No pong to our ping within --ping-timeout.
    case pingTimeout
    /// We failed the connection (1002/1007/1009) because of what the peer sent.
    case protocolViolation(code: UInt16, reason: String)
}
