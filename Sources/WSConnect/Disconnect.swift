import WSCore
import WSTerminal

/// Why a connection (or an attempt) ended, as far as retrying is concerned.
/// `RetryPolicy` turns it into a verdict.
public enum Disconnect: Equatable, Sendable {
    /// DNS, TCP refused/reset, connect timeout.
    case unreachable(String)
    /// Certificate or TLS handshake failure.
    case tlsFailed(String)
    /// A well-formed HTTP response other than 101 (RFC 6455 §4.1, step 1 of the
    /// client's checks), e.g. status 401 with "HTTP/1.1 401 Unauthorized".
    /// `body`: the start of the response body, where servers explain themselves.
    case handshakeRejected(status: Int, statusLine: String, body: String = "")
    /// A response that is not a valid WebSocket handshake.
    case invalidHandshake(String)
    /// A 3xx answer that -L does not follow, with why (wspipe(1): --location).
    case redirectRefused(status: Int, reason: String)
    /// The server's Close frame; code nil when it carried no status (1005).
    case closedByServer(code: CloseCode?, reason: String)
    /// The closing handshake wspipe started is over (code and reason: the
    /// server's echo).
    case closedByClient(code: CloseCode?, reason: String = "")
    /// EOF or RST without a Close frame.
    case dropped(String)
    /// No pong to our ping within --ping-timeout.
    case pingTimeout
    /// Nothing at all from the peer within --heartbeat-timeout.
    case heartbeatTimeout
    /// We failed the connection (1002/1007/1009) because of what the peer sent.
    case protocolViolation(code: CloseCode, reason: String)
    /// --socketio: the server refused a namespace (a connect_error), with its message.
    case socketIORejected(namespace: String, message: String)
}

extension Disconnect: CustomStringConvertible {
    /// The reason as a user reads it: "closed by the server with 1008
    /// (policy violation): invalid token".
    public var description: String {
        switch self {
        case .unreachable(let text), .tlsFailed(let text), .dropped(let text): return text
        case .handshakeRejected(_, let line, let body):
            // One line: the body's lines joined (`details` keeps them apart).
            let lines = bodyLines(Self.withoutStatus(body, of: line)).filter { !$0.isEmpty }
            let said = lines.isEmpty ? "" : ": " + lines.joined(separator: " ")
            return "handshake rejected by the server: \(TerminalEscaping.escaping(line))\(said)"
        case .invalidHandshake(let text): return "invalid handshake response: \(text)"
        case .redirectRefused(_, let reason): return reason
        case .closedByServer(let code, let reason):
            let name = code.map { code in code.name.map { "\(code) (\($0))" } ?? "\(code)" }
            let said = reason.isEmpty ? "" : ": \(TerminalEscaping.escaping(reason))"
            return "closed by the server with \(name ?? "no status code")\(said)"
        case .closedByClient(let code, let reason):
            let said = reason.isEmpty ? "" : ": \(TerminalEscaping.escaping(reason))"
            return "closed with " + (code.map { code in code.name.map { "\(code) (\($0))" } ?? "\(code)" } ?? "no status code") + said
        case .pingTimeout: return "ping timeout"
        case .heartbeatTimeout: return "heartbeat timeout"
        case .protocolViolation(_, let reason): return "protocol error: \(reason)"
        case .socketIORejected(let namespace, let message):
            return "Socket.IO namespace \(namespace) refused by the server: \(TerminalEscaping.escaping(message))"
        }
    }

    /// The final report of the run's last failure: a headline, and lines to
    /// show below it (a rejection's body of several lines, as lines).
    package var report: (headline: String, details: [String]) {
        guard case .handshakeRejected(_, let line, let full) = self else { return (description, []) }
        let body = Self.withoutStatus(full, of: line)
        guard body.contains("\n") else { return (description, []) }
        return ("handshake rejected by the server: \(TerminalEscaping.escaping(line)):", bodyLines(body))
    }

    /// A body that starts by repeating the status ("503 Service
    /// Unavailable: why", as Go's http.Error and wspipe's own server write
    /// them) says only what follows, so the status is said once.
    static func withoutStatus(_ body: String, of statusLine: String) -> String {
        guard let space = statusLine.firstIndex(of: " ") else { return body }
        let status = statusLine[statusLine.index(after: space)...]
        guard !status.isEmpty, body.hasPrefix(status) else { return body }
        var rest = body.dropFirst(status.count)
        if rest.hasPrefix(":") { rest = rest.dropFirst() }
        guard rest.isEmpty || rest.first == " " || rest.first?.isNewline == true else { return body }
        return String(rest.drop { $0 == " " || $0.isNewline })
    }

    private func bodyLines(_ body: String) -> [String] {
        body.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The connection went without a Close (EOF or reset, a dead peer).
    package var isDrop: Bool {
        switch self {
        case .dropped, .pingTimeout: return true
        default: return false
        }
    }

    /// The `disconnected` event's reason: a Close frame's own reason, exact
    /// (the event is JSON, escaped as JSON, like `client_disconnected`'s;
    /// code and `by` say the rest), else what happened, as a user reads it.
    package var eventReason: String {
        switch self {
        case .closedByServer(_, let reason), .closedByClient(_, let reason): return reason
        default: return description
        }
    }

    /// The code of a server's Close that is an error (wspipe(1): EXIT
    /// STATUS, 7): anything but 1000, 1001 and no code at all.
    package var errorCloseCode: CloseCode? {
        guard case .closedByServer(let code?, _) = self, code != .normal, code != .goingAway else { return nil }
        return code
    }

    /// A server's Close that refuses the connection rather than ending it
    /// for now: an error code other than 1012 (service restart) and 1013
    /// (try again later), which ask the client to come back.
    package var isRefusal: Bool {
        guard let code = errorCloseCode else { return false }
        return code.rawValue != 1012 && code.rawValue != 1013
    }

    /// The close code and wasClean of the `disconnected` event (RFC 6455
    /// §7.1.5: 1006 when no Close frame was received).
    package var closeCode: (code: CloseCode, clean: Bool) {
        switch self {
        case .closedByServer(let code, _), .closedByClient(let code, _): return (code ?? .noStatus, true)
        case .protocolViolation(let code, _): return (code, false)
        default: return (.abnormal, false)
        }
    }
}
