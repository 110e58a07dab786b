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
}
