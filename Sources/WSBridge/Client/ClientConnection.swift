import WSCore
import WSConnect

/// One open connection of a client session, as `ServerClient` is one of the
/// server's: made when a connection opens (`ClientSession.opened(_:on:)`)
/// and dropped when it has ended, so nothing of one connection is left for
/// the next to reset by hand. The session spans connections (the queue, the
/// lifecycle, the replay); this is what belongs to one.
final class ClientConnection {
    let channel: WebSocketChannel
    /// --ping-interval: this connection's pings.
    var keepAlive: KeepAlive?
    /// Why the connection is ending, once known.
    var disconnect: Disconnect?
    /// --answer, --heartbeat, --record...: this connection's part of the
    /// scripted peer (ClientSession+Script.swift); nil without them.
    var script: ConnectionScript?
    private(set) var phase = Phase.opening(endedWith: nil)

    enum Phase {
        /// The session is sending the replay and the queue, and telling the
        /// lifecycle it opened. An end the channel reports meanwhile waits
        /// until the lifecycle knows the connection is open.
        case opening(endedWith: WebSocketChannel.EndReason?)
        case open
        /// Its end reached the session; nothing more is done on it.
        case ended
    }

    init(channel: WebSocketChannel) {
        self.channel = channel
    }

    /// The channel ended. True when the session handles it now; false while
    /// opening, when the reason waits for `finishOpening`.
    func channelEnded(_ reason: WebSocketChannel.EndReason) -> Bool {
        guard case .opening = phase else { return true }
        phase = .opening(endedWith: reason)
        return false
    }

    /// The lifecycle knows the connection is open: the end that came
    /// meanwhile, if any, is handled now.
    func finishOpening() -> WebSocketChannel.EndReason? {
        guard case .opening(let reason) = phase else { return nil }
        phase = reason == nil ? .open : .ended
        return reason
    }

    /// The connection's timers stop: it has ended.
    func end() {
        phase = .ended
        keepAlive?.stop()
        keepAlive = nil
    }
}

extension ClientConnection {
    /// How a connection ended, as the session reports it and recovers what
    /// it carried (wspipe(1): RECONNECT AND REPLAY).
    struct Ending: Equatable {
        var cause: Disconnect
        /// wspipe started the ending (its Close, a violation it detected,
        /// a peer it declared silent), not the server.
        var byClient: Bool
        /// The server's Close came (the end is clean only then, RFC 6455 §7.1.5).
        var closeReceived: Bool
        /// The Close refused a message (1009, 1003): which one is set aside.
        var refusal: CloseCode?
        /// The server's Close answered wspipe's: it read every frame before.
        var confirmed: Bool
        /// Both Closes went, whoever sent the first: not a drop or a timeout.
        var reachedPeer: Bool
    }

    /// This connection's ending. `clientClosing`: the lifecycle was closing
    /// (or had ended) when the channel ended; `closeSent`: the code of
    /// wspipe's Close.
    func ending(_ reason: WebSocketChannel.EndReason, clientClosing: Bool, closeSent: CloseCode?) -> Ending {
        var handshake = false
        if case .closed = reason { handshake = channel.peerClosedFirst || channel.peerAnsweredClose }
        return Self.ending(reason, disconnect: disconnect, closingHandshakeDone: handshake,
                           clientClosing: clientClosing, closeSent: closeSent)
    }

    /// The same from what is known without a channel (a pure function).
    static func ending(_ reason: WebSocketChannel.EndReason, disconnect: Disconnect?, closingHandshakeDone: Bool,
                       clientClosing: Bool, closeSent: CloseCode?) -> Ending {
        let byClient = clientClosing || disconnect == .pingTimeout || disconnect == .heartbeatTimeout
        var cause = disconnect ?? {
            switch reason {
            case .lost(let text): return .dropped(text)
            case .closed: return byClient ? .closedByClient(code: nil) : .dropped("connection closed")
            }
        }()
        if byClient, case .closedByServer(let echo, let reason) = cause { cause = .closedByClient(code: echo, reason: reason) }
        var refusal: CloseCode?
        if case .closedByServer(let code?, _) = cause, RefusedMessage.isRefusal(code) { refusal = code }
        var closeReceived = false
        var answered = false
        if case .closedByServer(let code, let reason)? = disconnect {
            closeReceived = true
            // Not a Close with an error code of its own, which crossed wspipe's.
            answered = code == closeSent || Disconnect.closedByServer(code: code, reason: reason).errorCloseCode == nil
        }
        var reachedPeer = false
        if case .closed = reason { reachedPeer = closingHandshakeDone }
        return Ending(cause: cause, byClient: byClient, closeReceived: closeReceived, refusal: refusal,
                      confirmed: byClient && answered, reachedPeer: reachedPeer)
    }
}
