/// Server-only `{"$event":...}` lines (wspipe(1): OPTIONS, Diagnostics; OPTIONS, Server mode), next to the shared ones
/// in `EventLine`, each ending in "\n".
enum ServerEvents {
    /// `{"$event":"send_timeout","id":N}`: client N kept more than the high
    /// water of output unread for the whole --send-timeout and is disconnected
    /// so that the broadcast can go on for the others.
    static func sendTimeout(id: Int) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "send_timeout")
        line.int("id", id)
        return line.finishLine()
    }

    /// `{"$event":"relay_behind","id":N,"bytes":B,"limit":L}`: with --relay,
    /// member N had B bytes unsent, more than the L it may fall behind, when
    /// a message was relayed to it; it is disconnected with 1008 ("fell
    /// behind the relay") so that its queue stays bounded.
    static func relayBehind(id: Int, bytes: Int, limit: Int) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "relay_behind")
        line.int("id", id)
        line.int("bytes", bytes)
        line.int("limit", limit)
        return line.finishLine()
    }

    /// `{"$event":"tag_removed","id":N}`: with --tag, client N sent a message
    /// with a top-level "$client" member of its own, which was removed before
    /// wspipe put its own first (the message is written without it).
    static func tagRemoved(id: Int) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "tag_removed")
        line.int("id", id)
        return line.finishLine()
    }

    /// `{"$event":"client_refused","id":N,"peer":"…","status":403,"reason":"…"}`:
    /// connection N never became a client. "status" is the HTTP status it was
    /// answered with (404 wrong path, 403 --allow-origin, 503 --max-clients or
    /// shutting down, 400 a bad request); a failed TLS handshake (a client
    /// certificate refused with --cacert) has no status.
    static func clientRefused(id: Int, peer: String, status: Int?, reason: String) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "client_refused")
        line.int("id", id)
        line.string("peer", peer)
        if let status { line.int("status", status) }
        line.string("reason", reason)
        return line.finishLine()
    }

    /// `{"$event":"accept_paused","reason":"accept: Too many open files"}`:
    /// accept(2) failed for want of descriptors (or memory); the listener
    /// rests a moment and new connections wait in the kernel's queue.
    static func acceptPaused(reason: String) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "accept_paused")
        line.string("reason", reason)
        return line.finishLine()
    }

    /// `{"$event":"memory_budget","id":N,"bytes":B,"budget":L}`: the
    /// clients' buffers together passed L bytes, and client N, holding the
    /// most (B bytes), is disconnected with 1008 so that the others go on.
    static func memoryBudget(id: Int, bytes: Int, budget: Int) -> [UInt8] {
        var line = JSONObjectWriter()
        line.string("$event", "memory_budget")
        line.int("id", id)
        line.int("bytes", bytes)
        line.int("budget", budget)
        return line.finishLine()
    }
}
