import WSTransport
import WSConnect

/// What -w/--write-out and --stats report about a client run beyond the
/// counters (wspipe(1): OPTIONS, Diagnostics), collected as it goes: the
/// first connection's timings, the last HTTP status and close code, the
/// first message, the last ping's round trip.
struct SessionMetrics {
    /// Monotonic nanoseconds when the session was made: the run's time 0.
    let startedAt = monotonicNanos()
    /// The first connection that opened: where it is and how it got there.
    struct FirstConnection {
        var url: WebSocketURL
        var redirects: Int
        var timings: HandshakeTimings
    }

    private(set) var first: FirstConnection?
    var httpCode = 0
    var closeCode = 0
    private(set) var firstMessageAt: Int64?
    /// The round trip of the last pong to a --ping-interval ping.
    var lastRoundTrip: Int64?

    mutating func opened(_ url: WebSocketURL, redirects: Int, timings: HandshakeTimings) {
        if first == nil { first = FirstConnection(url: url, redirects: redirects, timings: timings) }
    }

    /// Called for every incoming message: one comparison once the first is in.
    @inline(__always)
    mutating func messageArrived() {
        if firstMessageAt == nil { firstMessageAt = monotonicNanos() }
    }

    func values(url: WebSocketURL, stats: SessionStats, exitStatus: Int32) -> WriteOutValues {
        var v = WriteOutValues()
        v.url = url.display
        v.httpCode = httpCode
        v.closeCode = closeCode
        v.messagesIn = stats.messagesIn
        v.messagesOut = stats.messagesOut
        v.bytesIn = stats.bytesIn
        v.bytesOut = stats.bytesOut
        v.reconnects = stats.reconnects
        v.rttLast = lastRoundTrip ?? 0
        v.setReplies(stats.replyLatency)
        v.exitCode = Int(exitStatus)
        v.timeFirstMessage = firstMessageAt.map { $0 - startedAt } ?? 0
        v.timeTotal = monotonicNanos() - startedAt
        guard let first else { return v }
        v.urlEffective = first.url.display
        v.numRedirects = first.redirects
        v.remoteIP = first.timings.remoteHost
        v.remotePort = first.timings.remotePort
        v.timeNamelookup = first.timings.resolved - startedAt
        v.timeConnect = first.timings.connected - startedAt
        v.timeAppconnect = first.timings.tlsDone.map { $0 - startedAt } ?? 0
        v.timeRedirect = first.redirects > 0 ? first.timings.requestStarted - startedAt : 0
        v.timeUpgrade = first.timings.upgraded - startedAt
        return v
    }
}
