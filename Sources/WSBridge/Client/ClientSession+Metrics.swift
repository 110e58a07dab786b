import WSTransport
import WSConnect

/// What a client session measures and reports about itself (wspipe(1):
/// OPTIONS, Diagnostics): redirects and HTTP statuses as they come, pong
/// round trips, and at the end -w/--write-out and the cookie jar.
extension ClientSession {
    /// The connector's reports: each redirect is said (-v, an event), each
    /// response's status kept for -w's http_code.
    func watchHandshakes(_ connector: ClientConnector) {
        connector.onResponse = { [unowned self] status in self.metrics.httpCode = status }
        connector.onRedirect = { [unowned self] status, from, to in
            self.shell.events.emit(EventLine.redirected(status: status, from: from.display, to: to.display))
        }
    }

    func pongArrived(roundTrip nanos: Int64) {
        metrics.lastRoundTrip = nanos
        shell.stats.rttLastNanos = nanos
        shell.events.emit(EventLine.pong(roundTripNanos: nanos))
        observer?.roundTrip(nanos)
        log.debug("pong in \(nanos / 1_000_000).\(nanos / 100_000 % 10) ms")
    }

    /// A reply matched to its request (`ReplyTracker`): its latency counted
    /// for --stats and -w, told as a reply event, shown beside it interactively.
    func replied(_ reply: ReplyTracker.Reply) {
        shell.stats.replyLatency.record(nanos: reply.nanos)
        shell.events.emit(EventLine.reply(nanos: reply.nanos, key: reply.key), recorded: false)
        observer?.replied(reply.nanos)
    }

    /// --max-reply-p99: replies slower than the budget fail the run (exit 8).
    func checkReplyBudget() {
        guard let budget = policy.maxReplyP99Nanos else { return }
        ReplyBudget.check(shell.stats.replyLatency, budgetNanos: budget, log: log, status: &shell.status)
    }

    /// At the end: the cookie jar's last state, then -w's output (stdout
    /// and everything routed have been written out already).
    func reportMetrics() {
        if let problem = client.cookies?.save(now: wallClockSeconds()) { log.warning(problem) }
        guard let format = policy.writeOut else { return }
        let values = metrics.values(url: client.url, stats: shell.stats, exitStatus: shell.status.rawValue)
        // Peer text reaches stderr escaped always, stdout when it is a terminal.
        for (fd, bytes) in format.render(values, escapes: { $0 == 2 || StdioMode.isTerminal($0) }) {
            bytes.withUnsafeBytes { _ = FD.writeAll(fd, $0) }
        }
    }
}
