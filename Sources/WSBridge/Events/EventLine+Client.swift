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

    /// Nanoseconds as milliseconds with three decimals, a JSON number ("12.345").
    static func milliseconds(_ nanos: Int64) -> [UInt8] {
        let micros = max(nanos, 0) / 1000
        let fraction = String(micros % 1000)
        return Array((String(micros / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction).utf8)
    }
}
