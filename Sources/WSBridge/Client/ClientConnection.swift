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
