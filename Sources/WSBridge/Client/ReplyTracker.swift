/// Whether replies are still owed when stdin ends (wspipe(1): OPTIONS,
/// Ending, --linger): a request/response server stops answering once it has
/// a Close, so `echo REQUEST | wspipe URL` must give the reply a chance
/// before the Close goes out.
///
/// Replies are owed while fewer data messages have arrived on the
/// connection than were sent on it. A server that has answered nothing
/// although the first message went out more than ten handshake round trips
/// (at least 10 ms) before the input was over does not answer each message
/// (a sink, an upload): nothing is owed to such a server, so a pipeline
/// pays the linger only when it sent little to a server that stays quiet.
struct ReplyTracker {
    private var sent = 0
    private var arrived = 0
    private var firstSentAt: Int64?
    private var windowNanos: Int64 = 10_000_000
    /// Decided once per connection, the first time the input is over and
    /// everything has gone out.
    private var answersEachMessage: Bool?

    /// A new connection: counting starts again.
    mutating func connected(roundTripNanos: Int64) {
        self = ReplyTracker()
        windowNanos = max(10 * roundTripNanos, 10_000_000)
    }

    /// The clock is read for the first message only.
    mutating func sent(now: @autoclosure () -> Int64) {
        sent += 1
        if firstSentAt == nil { firstSentAt = now() }
    }

    mutating func received() {
        arrived += 1
    }

    /// Asked once the input is over and everything is out.
    mutating func owed(at now: Int64) -> Bool {
        guard arrived < sent else { return false }
        if answersEachMessage == nil {
            answersEachMessage = arrived > 0 || now - (firstSentAt ?? now) < windowNanos
        }
        return answersEachMessage!
    }
}
