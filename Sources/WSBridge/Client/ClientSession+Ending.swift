import WSCore
import WSTransport
import WSTerminal
import WSConnect

/// How a client session ends: its last words, the exit status, and what was
/// not sent, refused, unconfirmed or unacknowledged.
extension ClientSession {
    /// Last words and the exit status; what was not sent or acknowledged is
    /// reported. The destinations are written out next, by the shell's drain.
    func finish(_ outcome: ClientLifecycle.Outcome) {
        switch outcome {
        case .completed:
            hintReceiveOnly()
        case .finishedByServer(let cause):
            // An error Close is the run's answer (exit 7): said with its code and reason.
            if cause.errorCloseCode != nil { log.fatal(cause.description) } else { log.info(cause.description) }
        case .fatal(let cause, _):
            if case .protocolViolation = cause {} else { log.fatal(cause.report.headline, details: cause.report.details) }   // said when it happened
            hint(cause)
        case .firstAttemptFailed(let cause):
            log.fatal(cause.report.headline, details: cause.report.details)
            hint(cause)
        case .lostWithoutReconnect(let cause):
            log.fatal("connection to \(client.url.display) lost: \(cause)")
        case .gaveUp(let attempts, let cause):
            shell.events.emit(EventLine.gaveUp(attempts: attempts, reason: cause.description))
            log.fatal("giving up after \(attempts) attempt(s): \(cause.report.headline)", details: cause.report.details)
            hint(cause)
        }
        if let status = outcome.exitStatus { shell.status = shell.status.combined(with: status) }
        connection?.keepAlive?.stop()
        channel?.terminate()
        reportUnsent()
        reportUnacked()
        reportUnreplied()
        shell.end()
    }

    /// stdin ended before anything was sent (cron, CI: stdin is /dev/null)
    /// while the server had things to say: the run closed because of that,
    /// which is seldom what was meant.
    func hintReceiveOnly() {
        guard interactive == nil, !bridge.noClose, policy.until == nil, shell.stdin?.finished == true,
              shell.stats.messagesOut == 0, shell.stats.messagesIn > 0 else { return }
        log.warning("stdin ended before anything was sent, so wspipe closed; to keep receiving what the server "
                    + "sends, use -U (stdin is not read), or -n to keep receiving after stdin ends")
    }

    /// --reply: a request whose reply never came is a missing answer (exit 1).
    func reportUnreplied() {
        let keys = sender.replies.owedKeys
        guard !keys.isEmpty, let path = policy.replyPath else { return }
        shell.events.emit(EventLine.unreplied(keys: keys))
        let shown = keys.prefix(20).map { TerminalEscaping.escaping(String(decoding: $0, as: UTF8.self)) }
        let more = keys.count > 20 ? " and \(keys.count - 20) more" : ""
        log.fatal("no reply for \(path.joined(separator: ".")) \(shown.joined(separator: ", "))\(more) (--reply)")
        shell.status = shell.status.combined(with: .runtimeError)
    }

    /// What a connection's ending leaves in doubt, counted now (--stats,
    /// the exit status, the refused event) and said by the returned closure,
    /// which the session calls once the ending's own reason is out (a
    /// refusal says why first). A refused message is reported with its line
    /// and counts as not sent (exit 6); the others are said, since only
    /// --ack can tell. `refusedConnection`: the server's Close that refused
    /// the connection they were written to. `canLose`: the connection ended
    /// in a way that can lose what was in doubt (a drop, a reset, a timeout,
    /// an error Close); after a clean close the doubt is said at -v only.
    func report(_ recovery: ClientSender.Recovery, refusal: CloseCode?, refusedConnection: Disconnect? = nil,
                canLose: Bool) -> () -> Void {
        var say = reportInDoubt(unread: recovery.unread, unconfirmed: recovery.unconfirmed,
                                unacknowledged: recovery.unacknowledged, refusedBy: refusedConnection, canLose: canLose)
        guard let refusal else { return say }
        let name = refusal.name.map { " (\($0))" } ?? ""
        guard let refused = recovery.refused else {
            // A message is named only when one was written (Autobahn 7.7.x
            // refuse with these codes a connection that carried none).
            guard !sender.carried.isEmpty else { return say }
            return { [log] in
                say()
                log.warning("the server refused a message (\(refusal)\(name)) that wspipe can no longer tell apart; it may be lost")
            }
        }
        let line = MessageTag.line(of: refused.line)
        let which = line > 0 ? "stdin:\(line): message" : "a message (\(refused.bytes.count) bytes)"
        shell.events.emit(EventLine.refused(line: line, code: refusal))
        shell.stats.notSent += 1
        shell.status = shell.status.combined(with: .inputRejected)
        let previous = say
        say = { [log] in
            previous()
            log.warning("\(which) refused by the server with \(refusal)\(name); not sent again")
        }
        return say
    }

    func hint(_ cause: Disconnect) {
        if let hint = ConnectHint.hint(for: cause, secure: client.url.secure, authorized: lastAttemptAuthorized,
                                       challenge: lastAttemptChallenge) {
            log.warning("hint: \(hint)")
        }
    }

    /// -v: the 101 response's status line and headers, as the server sent them.
    func logResponse(_ response: HTTPHead) {
        guard log.enabled(.info) else { return }
        log.info("< " + TerminalEscaping.escaping(response.startLine))
        for header in response.headers {
            log.info("< " + TerminalEscaping.escaping("\(header.name): \(header.value)"))
        }
    }

    /// At the end: what waits in the queue was never written (not sent), or
    /// was written to a connection that dropped before its peer acknowledged
    /// it (unconfirmed); lines stdin read after the session stopped taking
    /// them were not sent either.
    func reportUnsent() {
        var (notSent, unconfirmed) = sender.queueTallies()
        if let refused = shell.stdin?.unsent { notSent.add(refused) }
        reportInDoubt(unread: LineTally(), unconfirmed: unconfirmed, unacknowledged: unconfirmed, canLose: true)()
        guard !notSent.isEmpty else { return }
        shell.stats.notSent += notSent.count
        log.warning("\(notSent.count) input line(s)\(notSent.lines.map { " (\($0))" } ?? "") not sent")
        shell.status = shell.status.combined(with: .inputRejected)
    }

    /// Messages that may be lost, counted in --stats and the exit status now
    /// and said by the closure returned, with their stdin lines. Those the
    /// server's TCP took before it last spoke may not have been read (unread);
    /// those it acknowledged after were delivered as far as wspipe can tell
    /// without --ack; those it never acknowledged by the end were not, and
    /// make the exit status 6 (wspipe(1): RECONNECT AND REPLAY). At default
    /// verbosity they are said only when the ending could lose them, or
    /// some were never acknowledged.
    func reportInDoubt(unread: LineTally, unconfirmed tally: LineTally, unacknowledged: LineTally,
                       refusedBy refusal: Disconnect? = nil, canLose: Bool) -> () -> Void {
        shell.stats.addUnread(unread)
        if !tally.isEmpty { shell.stats.addUnconfirmed(tally) }
        if !unacknowledged.isEmpty { shell.status = shell.status.combined(with: .inputRejected) }
        var lines: [String] = []
        if !unread.isEmpty {
            lines.append("\(unread.phrase) unread: the server's machine took them before it last spoke, but the "
                         + "server may not have read them: if it went down, they are lost (--ack confirms and re-sends)")
        }
        if tally.isEmpty {
            // nothing more
        } else if let code = refusal?.errorCloseCode, unacknowledged.isEmpty {
            lines.append("\(tally.phrase) unconfirmed: written to a connection the server refused (\(code)), "
                         + "which does not say whether it read them (--ack confirms and re-sends)")
        } else if unacknowledged.isEmpty {
            lines.append("\(tally.phrase) unconfirmed: sent since the server last showed it was reading, they "
                         + "reached its machine, but maybe not the server itself: if it went down, they are lost "
                         + "(--ack confirms and re-sends)")
        } else {
            let which = unacknowledged.count == tally.count ? "never" : "\(unacknowledged.phrase) never"
            lines.append("\(tally.phrase) unconfirmed: written, and \(which) acknowledged by the server's machine "
                         + "before the end: they may never have arrived")
        }
        let warn = canLose || !unacknowledged.isEmpty
        return { [log] in
            for line in lines { if warn { log.warning(line) } else { log.info(line) } }
        }
    }

    func reportUnacked() {
        let count = resume.reportUnacked(log: log, events: shell.events)
        guard count > 0 else { return }
        shell.stats.unacked = count
        shell.status = shell.status.combined(with: .inputRejected)
    }
}
