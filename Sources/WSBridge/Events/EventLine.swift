import WSCore

/// {"$event":...} lines (wspipe(1): OPTIONS, Diagnostics), each ending in "\n".
///
/// Members always come in the order shown, e.g.
/// `{"$event":"connected","url":"ws://127.0.0.1:9/x","attempt":1}`,
/// `{"$event":"disconnected","code":1006,"reason":"connection reset","clean":false}`,
/// `{"$event":"reconnecting","attempt":2,"delay_ms":1000}`,
/// `{"$event":"acked","key":17}`, `{"$event":"unacked","keys":[4,7]}`.
/// Text (URLs, reasons, peers) is escaped as a JSON string; keys from --ack
/// are raw JSON values and go in as they are.
public enum EventLine {
    public static func connecting(url: String, attempt: Int) -> [UInt8] {
        var line = start("connecting")
        line.string("url", url)
        line.int("attempt", attempt)
        return line.finishLine()
    }

    /// "protocol" (the subprotocol the server chose) is omitted when nil.
    public static func connected(url: String, attempt: Int, protocol: String?) -> [UInt8] {
        var line = start("connected")
        line.string("url", url)
        line.int("attempt", attempt)
        if let chosen = `protocol` { line.string("protocol", chosen) }
        return line.finishLine()
    }

    /// `clean`: the closing handshake completed (RFC 6455 §7.1.5, wasClean).
    /// `by`: who started the ending, "client" (wspipe) or "server".
    /// `unconfirmed`: messages the connection took and never confirmed
    /// (acknowledged by the peer's TCP after its last sign of life, or
    /// written and never acknowledged when no connection follows), which
    /// may be lost; "unconfirmed_lines" [first, last] their stdin lines.
    /// `unread` (only when there are some): messages its TCP took before the
    /// server last spoke, which its application may not have read.
    public static func disconnected(code: CloseCode, reason: String, clean: Bool, by: String,
                                    unconfirmed: LineTally = LineTally(), unread: LineTally = LineTally()) -> [UInt8] {
        var line = start("disconnected")
        line.int("code", Int(code.rawValue))
        line.string("reason", reason)
        line.bool("clean", clean)
        line.string("by", by)
        line.int("unconfirmed", unconfirmed.count)
        line.lineRange("unconfirmed_lines", unconfirmed)
        line.unread(unread)
        return line.finishLine()
    }

    /// A message the server refused (1009/1003), from stdin `line` (0: not from stdin).
    public static func refused(line number: Int, code: CloseCode) -> [UInt8] {
        var line = start("refused")
        line.int("line", number)
        line.int("code", Int(code.rawValue))
        return line.finishLine()
    }

    /// An attempt that did not get through, with why.
    public static func connectFailed(attempt: Int, error: String) -> [UInt8] {
        var line = start("connect_failed")
        line.int("attempt", attempt)
        line.string("error", error)
        return line.finishLine()
    }

    public static func reconnecting(attempt: Int, delayMs: Int64) -> [UInt8] {
        var line = start("reconnecting")
        line.int("attempt", attempt)
        line.int("delay_ms", delayMs)
        return line.finishLine()
    }

    public static func gaveUp(attempts: Int, reason: String) -> [UInt8] {
        var line = start("gave_up")
        line.int("attempts", attempts)
        line.string("reason", reason)
        return line.finishLine()
    }

    /// "key": raw JSON value.
    public static func acked(key: [UInt8]) -> [UInt8] {
        var line = start("acked")
        line.raw("key", key)
        return line.finishLine()
    }

    public static func invalidInput(line number: Int, column: Int, reason: String) -> [UInt8] {
        var line = start("invalid_input")
        line.int("line", number)
        line.int("column", column)
        line.string("reason", reason)
        return line.finishLine()
    }

    /// "keys": [raw values], in first-sent order.
    public static func unacked(keys: [[UInt8]]) -> [UInt8] {
        var line = start("unacked")
        line.rawArray("keys", keys)
        return line.finishLine()
    }

    /// --reply: the values no reply came for, in sent order (raw JSON).
    public static func unreplied(keys: [[UInt8]]) -> [UInt8] {
        var line = start("unreplied")
        line.rawArray("keys", keys)
        return line.finishLine()
    }

    /// Server mode: client `id` (as in --tag's "$client") connected from `peer`.
    public static func clientConnected(id: Int, peer: String) -> [UInt8] {
        var line = start("client_connected")
        line.int("id", id)
        line.string("peer", peer)
        return line.finishLine()
    }

    /// `unconfirmed`: stdin lines written to the client and not confirmed
    /// (no sign of life, pong or answered Close after them); `not_sent`:
    /// lines queued for it and never written; `unread` (only when there are
    /// some): lines its TCP took before it last spoke, which it may not
    /// have read. "..._lines": [first, last].
    public static func clientDisconnected(id: Int, code: CloseCode, reason: String, clean: Bool,
                                          unconfirmed: LineTally = LineTally(),
                                          notSent: LineTally = LineTally(), unread: LineTally = LineTally()) -> [UInt8] {
        var line = start("client_disconnected")
        line.int("id", id)
        line.int("code", Int(code.rawValue))
        line.string("reason", reason)
        line.bool("clean", clean)
        line.int("unconfirmed", unconfirmed.count)
        line.lineRange("unconfirmed_lines", unconfirmed)
        line.int("not_sent", notSent.count)
        line.lineRange("not_sent_lines", notSent)
        line.unread(unread)
        return line.finishLine()
    }

    /// `{"$event":"NAME"` with the rest to follow.
    static func start(_ name: String) -> JSONObjectWriter {
        var line = JSONObjectWriter()
        line.string("$event", name)
        return line
    }
}

extension JSONObjectWriter {
    /// "unread" and "unread_lines", when any message is unread.
    mutating func unread(_ tally: LineTally) {
        guard !tally.isEmpty else { return }
        int("unread", tally.count)
        lineRange("unread_lines", tally)
    }
}
