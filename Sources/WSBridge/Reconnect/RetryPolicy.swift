import WSConnect
/// The one place that decides retryable vs fatal (wspipe(1): RECONNECT AND REPLAY; EXIT STATUS).
public enum RetryPolicy {
    /// unreachable, dropped, pingTimeout -> retry; closedByServer 1000 or no code -> finished,
    /// any other code -> retry; handshakeRejected 408, 429, 5xx -> retry, 401/403 and other
    /// statuses -> fatal(.handshakeRejected), and so does a redirect -L refuses; tlsFailed -> fatal(.connectFailed);
    /// invalidHandshake, protocolViolation -> fatal(.protocolViolation)
    public static func verdict(for disconnect: Disconnect) -> RetryVerdict {
        switch disconnect {
        case .unreachable, .dropped, .pingTimeout, .heartbeatTimeout:
            return .retry
        case .closedByClient:
            return .finished
        case .closedByServer(let code, _):
            // wspipe(1): RECONNECT AND REPLAY: reconnect on "a server Close other than 1000"; a Close
            // without a status (1005) is read as a normal end too.
            guard let code, code != 1000 else { return .finished }
            return .retry
        case .handshakeRejected(let status, _, _):
            // 408 Request Timeout, 429 Too Many Requests and 5xx are temporary
            // (RFC 9110 §15.5.9, RFC 6585 §4, RFC 9110 §15.6); anything else
            // (401/403 above all) will not change by asking again.
            if status == 408 || status == 429 || (500...599).contains(status) { return .retry }
            return .fatal(.handshakeRejected)
        case .redirectRefused, .socketIORejected:
            // Like the 3xx it is: the same request gets the same answer (and
            // a namespace's connect_error, the same auth).
            return .fatal(.handshakeRejected)
        case .tlsFailed:
            return .fatal(.connectFailed)
        case .invalidHandshake, .protocolViolation:
            return .fatal(.protocolViolation)
        }
    }
}
