/// When each message of a --replay goes, counted from the start of the
/// playback (wspipe(1): SCRIPTED PEER). Pure.
///
/// With the recorded timing, a message keeps its distance from the one
/// before it on the same recorded connection, and the first message of a
/// connection its distance from that connection's start (its connected or
/// client_connected event), all divided by --replay-speed; so a
/// recording of several connections plays as one. With --rate, the
/// messages are evenly spaced instead, the first at once.
struct ReplaySchedule: Sendable {
    struct Item: Sendable {
        var offsetNanos: Int64
        var message: OutboundQueue.Message
    }

    let items: [Item]

    /// `direction`: .out for a client (what it sent, without the messages
    /// it made from flags), .in for a server (what the client was sent).
    init(_ recording: Recording, direction: RecordLine.Direction, speed: Double, rateIntervalNanos: Int64?) {
        var starts: [Int: Int64] = [:]
        for entry in recording.entries where entry.direction == .event && starts[entry.conn] == nil {
            if entry.event == "connected" || entry.event == "client_connected" { starts[entry.conn] = entry.tMs }
        }
        let played = recording.entries.filter { $0.direction == direction && $0.source == nil && $0.message != nil }
        var items: [Item] = []
        var offset: Int64 = 0
        var previous: Recording.Entry?
        for (index, entry) in played.enumerated() {
            if let rateIntervalNanos {
                let (product, overflow) = Int64(index).multipliedReportingOverflow(by: rateIntervalNanos)
                offset = overflow ? DurationLimit.maxNanos + 1 : min(product, DurationLimit.maxNanos + 1)
            } else {
                let from = previous.flatMap { $0.conn == entry.conn ? $0.tMs : nil } ?? starts[entry.conn] ?? entry.tMs
                offset = DurationLimit.sum(offset, Self.scaled(max(0, entry.tMs - from), speed))
            }
            items.append(Item(offsetNanos: offset, message: entry.message!))
            previous = entry
        }
        self.items = items
    }

    /// When the last message goes; more than `DurationLimit.maxNanos` (the
    /// plan refuses such a replay) when the sum went past it.
    var lengthNanos: Int64 { items.last?.offsetNanos ?? 0 }

    /// Recorded milliseconds at `speed`, in nanoseconds, at most one past
    /// `DurationLimit.maxNanos` (so sums of them cannot overflow).
    private static func scaled(_ millis: Int64, _ speed: Double) -> Int64 {
        let nanos = Double(millis) * 1_000_000 / (speed > 0 ? speed : 1)
        return nanos > Double(DurationLimit.maxNanos) ? DurationLimit.maxNanos + 1 : Int64(nanos)
    }
}

extension Recording {
    /// How long its playback lasts (a server plays what its client was
    /// sent, a client what it sent) at `speed`, or with messages
    /// `rateIntervalNanos` apart; more than `DurationLimit.maxNanos` when
    /// it would last longer than that.
    public func playbackNanos(server: Bool, speed: Double, rateIntervalNanos: Int64?) -> Int64 {
        ReplaySchedule(self, direction: server ? .in : .out, speed: speed, rateIntervalNanos: rateIntervalNanos).lengthNanos
    }
}
