import WSCore
import WSTransport
import WSTerminal

/// How a client session ends: its last words, the exit status, and what was
/// not sent, refused, unconfirmed or unacknowledged.
extension ClientSession {
    /// Last words and the exit status; what was not sent or acknowledged is
    /// reported. The destinations are written out next, by the shell's drain.
    func finish(_ outcome: ClientLifecycle.Outcome) {
        switch outcome {
        case .completed:
            break
        case .finishedByServer(let cause):
            log.info(cause.description)
        case .fatal(let cause, _):
            if case .protocolViolation = cause {} else { log.fatal(cause.description) }   // said when it happened
            hint(cause)
        case .firstAttemptFailed(let cause):
            log.fatal(cause.description)
            hint(cause)
        case .lostWithoutReconnect(let cause):
            log.fatal("connection to \(client.url.display) lost: \(cause)")
        case .gaveUp(let attempts, let cause):
            shell.events.emit(EventLine.gaveUp(attempts: attempts, reason: cause.description))
            log.fatal("giving up after \(attempts) attempt(s): \(cause)")
            hint(cause)
        }
        if let status = outcome.exitStatus { shell.status = shell.status.combined(with: status) }
        keepAlive?.stop()
        channel?.terminate()
        reportUnsent()
        reportUnacked()
        shell.end()
    }

    /// A refused message is reported with its line and counts as not sent
    /// (exit 6); unconfirmed ones are said, since only --ack can tell.
    func report(_ recovery: ClientSender.Recovery, refusal: CloseCode?) {
        shell.stats.unconfirmed += recovery.unconfirmed
        if recovery.unconfirmed > 0 {
            log.warning("\(recovery.unconfirmed) message(s) reached the server's TCP after it last sent anything; "
                        + "they may be lost with it (only --ack confirms delivery)")
        }
        guard let refusal else { return }
        let name = refusal.name.map { " (\($0))" } ?? ""
        guard let refused = recovery.refused else {
            log.warning("the server refused a message (\(refusal)\(name)) that wspipe can no longer tell apart; it may be lost")
            return
        }
        let which = refused.line > 0 ? "stdin:\(refused.line): message" : "a message (\(refused.bytes.count) bytes)"
        log.warning("\(which) refused by the server with \(refusal)\(name); not sent again")
        shell.events.emit(EventLine.refused(line: refused.line, code: refusal))
        shell.stats.notSent += 1
        shell.status = shell.status.combined(with: .inputRejected)
    }

    func hint(_ cause: Disconnect) {
        if let hint = ConnectHint.hint(for: cause, secure: client.url.secure) { log.warning("hint: \(hint)") }
    }

    /// -v: the 101 response's status line and headers, as the server sent them.
    func logResponse(_ response: HTTPHead) {
        guard log.enabled(.info) else { return }
        log.info("< " + TerminalText.escapingControls(response.startLine))
        for header in response.headers {
            log.info("< " + TerminalText.escapingControls("\(header.name): \(header.value)"))
        }
    }

    func reportUnsent() {
        let count = sender.queuedCount + (shell.stdin?.unsentLines ?? 0)
        guard count > 0 else { return }
        shell.stats.notSent += count
        log.warning("\(count) input line(s) not sent")
        shell.status = shell.status.combined(with: .inputRejected)
    }

    func reportUnacked() {
        let count = replay.reportUnacked(log: log, events: shell.events)
        guard count > 0 else { return }
        shell.stats.unacked = count
        shell.status = shell.status.combined(with: .inputRejected)
    }
}
