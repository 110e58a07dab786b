import WSMessages
/// --stats: counters and the final one-line summary (wspipe(1): OPTIONS, Diagnostics), written on stderr.
public struct SessionStats: Equatable, Sendable {
    /// Messages and payload bytes sent to the peer(s).
    public var messagesOut = 0, bytesOut = 0
    /// Messages and payload bytes received.
    public var messagesIn = 0, bytesIn = 0
    /// Successful connections after the first.
    public var reconnects = 0
    /// stdin lines rejected as invalid JSON.
    public var invalidLines = 0
    /// Messages still held by --ack at the end.
    public var unacked = 0
    /// stdin lines never sent: still queued at the end, or refused by the server.
    public var notSent = 0
    /// Messages a connection took and the peer never confirmed (wspipe(1):
    /// RECONNECT AND REPLAY): they may be lost. In server mode, those of the
    /// clients that left.
    public var unconfirmed = 0
    /// The stdin lines of the unconfirmed messages: first and last, one
    /// pair per report (a connection that ended, or the queue at the end).
    public var unconfirmedLines: [[Int]] = []
    /// Messages the peer's TCP took before it last spoke, which its
    /// application may not have read (wspipe(1): RECONNECT AND REPLAY), and
    /// their stdin lines as `unconfirmedLines` has them.
    public var unread = 0
    public var unreadLines: [[Int]] = []
    /// The round trip of the last pong to a --ping-interval ping (nanoseconds);
    /// nil without one, and then not in the line.
    public var rttLastNanos: Int64? = nil
    /// How long replies took (wspipe(1): --stats): each reply matched (by
    /// --reply, the one-shot rule or --check), from its request's send.
    public var replyLatency = LatencyHistogram()

    public init() {}

    public mutating func addUnconfirmed(_ tally: LineTally) {
        unconfirmed += tally.count
        if tally.first > 0 { unconfirmedLines.append([tally.first, tally.last]) }
    }

    public mutating func addUnread(_ tally: LineTally) {
        unread += tally.count
        if tally.first > 0 { unreadLines.append([tally.first, tally.last]) }
    }

    /// {"$stats":{"messages_out":..,"bytes_out":..,"messages_in":..,"bytes_in":..,"reconnects":..,"invalid_lines":..,"unacked":..,"not_sent":..,"unconfirmed":..,"unconfirmed_lines":[[first,last],..],"unread":..,"unread_lines":[..],"reply_ms":{..},"time":".."}}\n
    /// `time`: when the run ended (RFC 3339, UTC), left out when nil.
    public func jsonLine(time: [UInt8]? = nil) -> [UInt8] {
        var line = JSONObjectWriter(capacity: 160)
        line.beginObject("$stats")
        line.int("messages_out", messagesOut)
        line.int("bytes_out", bytesOut)
        line.int("messages_in", messagesIn)
        line.int("bytes_in", bytesIn)
        line.int("reconnects", reconnects)
        line.int("invalid_lines", invalidLines)
        line.int("unacked", unacked)
        line.int("not_sent", notSent)
        line.int("unconfirmed", unconfirmed)
        line.rawArray("unconfirmed_lines", unconfirmedLines.map { Array("[\($0[0]),\($0[1])]".utf8) })
        line.int("unread", unread)
        line.rawArray("unread_lines", unreadLines.map { Array("[\($0[0]),\($0[1])]".utf8) })
        if let rttLastNanos { line.raw("rtt_last_ms", EventLine.milliseconds(rttLastNanos)) }
        if !replyLatency.isEmpty { line.raw("reply_ms", replyLatency.jsonObject()) }
        if let time { line.string("time", String(decoding: time, as: UTF8.self)) }
        line.endObject()
        return line.finishLine()
    }
}
