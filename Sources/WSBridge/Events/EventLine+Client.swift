/// The client's events about reaching the server and keeping it
/// (wspipe(1): OPTIONS, Diagnostics): redirects followed (-L) and the
/// pongs to --ping-interval pings.
extension EventLine {
    /// `{"$event":"redirected","status":302,"from":"ws://a/x","to":"wss://b/y"}`
    public static func redirected(status: Int, from: String, to: String) -> [UInt8] {
        var line = start("redirected")
        line.int("status", status)
        line.string("from", from)
        line.string("to", to)
        return line.finishLine()
    }

    /// `{"$event":"pong","rtt_ms":12.345}`: the round trip of a keepalive ping.
    public static func pong(roundTripNanos: Int64) -> [UInt8] {
        var line = start("pong")
        line.raw("rtt_ms", milliseconds(roundTripNanos))
        return line.finishLine()
    }

    /// `{"$event":"reply","ms":12.345,"key":7}`: a reply matched to its
    /// request came this long after it was sent; "key" its --reply value (or
    /// "id" under the one-shot rule) when it was matched by one; with --check,
    /// "file" and "line" of the recording's message.
    public static func reply(nanos: Int64, key: [UInt8]? = nil, file: String? = nil, line: Int? = nil) -> [UInt8] {
        var event = start("reply")
        event.raw("ms", milliseconds(nanos))
        if let key { event.raw("key", key) }
        if let file { event.string("file", file) }
        if let line { event.int("line", line) }
        return event.finishLine()
    }

    /// Nanoseconds as milliseconds with three decimals, a JSON number ("12.345").
    static func milliseconds(_ nanos: Int64) -> [UInt8] {
        let micros = max(nanos, 0) / 1000
        let fraction = String(micros % 1000)
        return Array((String(micros / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction).utf8)
    }
}
