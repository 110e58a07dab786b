import WSTerminal

/// The interactive mode's status row (wspipe(1): INTERACTIVE MODE), the last
/// row of the edit area: the connection's state and URL, the messages
/// received and sent, the last round trip, and the filter with how many
/// messages it hid. Shown when the terminal has at least `minimumRows` rows,
/// unless --no-status-line or WSPIPE_PLAIN=1.
struct StatusLine: Equatable {
    enum State: Equatable {
        case starting
        case connecting(attempt: Int)
        case connected
        case disconnected(code: UInt16)
        case reconnecting(delayMillis: Int)
        case failed
    }

    /// Fewer rows than this: no status row (a tiny pane needs its rows for the transcript).
    static let minimumRows = 8

    var state = State.starting
    var url = ""
    var received = 0
    var sent = 0
    var roundTripNanos: Int64?
    var filter: String?
    var hidden = 0

    /// The row's text, the most useful first: a row cut at a narrow
    /// terminal's edge loses the URL (the transcript says it) before the
    /// counts and the filter.
    var text: String {
        var parts = [stateText, "in \(received)", "out \(sent)"]
        if let roundTripNanos { parts.append("rtt " + TranscriptFormatter.milliseconds(roundTripNanos)) }
        if let filter {
            parts.append("filter " + TerminalEscaping.escaping(filter) + " (\(hidden) hidden)")
        } else if hidden > 0 {
            parts.append("\(hidden) hidden")
        }
        if !url.isEmpty { parts.append(TerminalEscaping.escaping(url)) }
        return parts.joined(separator: " · ")
    }

    /// The row for a terminal `columns` wide (the renderer cuts it one
    /// column short of the edge). When the count of hidden messages would
    /// be cut, it comes before the filter's expression instead, and the
    /// expression is what the edge cuts: on a narrow terminal, or with a
    /// long filter, the row still says how many messages the filter hid.
    func text(columns: Int) -> String {
        let full = text
        guard let filter else { return full }
        var counted = [stateText, "in \(received)", "out \(sent)"]
        if let roundTripNanos { counted.append("rtt " + TranscriptFormatter.milliseconds(roundTripNanos)) }
        counted.append("filter " + TerminalEscaping.escaping(filter) + " (\(hidden) hidden)")
        guard TextUnits.columns(Array(counted.joined(separator: " · ").utf8)) > columns - 1 else { return full }
        var parts = [stateText, "in \(received)", "out \(sent)",
                     "\(hidden) hidden by filter " + TerminalEscaping.escaping(filter)]
        if let roundTripNanos { parts.append("rtt " + TranscriptFormatter.milliseconds(roundTripNanos)) }
        if !url.isEmpty { parts.append(TerminalEscaping.escaping(url)) }
        return parts.joined(separator: " · ")
    }

    private var stateText: String {
        switch state {
        case .starting: return "starting"
        case .connecting(let attempt): return attempt > 1 ? "connecting (attempt \(attempt))" : "connecting"
        case .connected: return "connected"
        case .disconnected(let code): return "disconnected (\(code))"
        case .reconnecting(let delay): return "reconnecting in " + TranscriptFormatter.seconds(delay)
        case .failed: return "not connected"
        }
    }

    /// Follows the lifecycle notes the transcript shows.
    mutating func follow(_ note: ConsoleNote) {
        switch note {
        case .connecting(let url, let attempt):
            state = .connecting(attempt: attempt)
            self.url = url
        case .connected(let url, _, _, _):
            state = .connected
            self.url = url
        case .disconnected(let code, _, _):
            state = .disconnected(code: code)
        case .reconnecting(_, let delay):
            state = .reconnecting(delayMillis: delay)
        case .failed:
            if state != .connected { state = .failed }
        case .pong(_, let nanos):
            roundTripNanos = nanos
        case .info, .warning:
            break
        }
    }
}
