import WSCore
import WSTransport
import WSConnect

/// The client's lifecycle as a pure state machine: events in, actions out;
/// no I/O, no timers, no clock of its own. `ClientSession` feeds it and
/// performs what it returns. Each phase runs at most one timer (`timerNanos`),
/// so timers start and stop only when the phase changes.
///
///     idle ─start─▶ connecting ─connected─▶ open(streaming) ─stdin EOF─▶ open(flushing)
///                    ▲     │ failed                                        │ queue empty
///         retry timer│     ▼                                               ▼
///                 waitingToRetry ◀─lost──── open(…)          open(awaitingAcks) ─acks, timer─┐
///                                                                                            ▼
///     ended ◀─server Close, timer── closing ◀─replies, timer── open(lingering) ◀─────────────┘
///                                                    (-n: open(holding) until the server closes)
///
/// With the input over and nothing left to send, a server's Close ends the
/// run instead of a reconnect that would only say goodbye (exit 7 when its
/// code is an error). A server that closes `refusalLimit` connections in a
/// row right after opening them ends it too, unless --max-retries counts.
///
/// A stop (--max-messages, stdout gone, SIGINT, …) closes an open connection
/// and ends any other phase at once. A reconnect asked for (interactive
/// /reconnect) closes an open connection and, from closingToReconnect, connects
/// again at once, without a backoff delay. The retry decisions (RetryPolicy, the
/// backoff, --max-retries, --wait, --no-reconnect) are made here too.
struct ClientLifecycle: PhaseMachine {
    enum Phase: Equatable {
        case idle
        /// One attempt in flight: TCP, TLS and the upgrade.
        case connecting
        /// Waiting out the backoff delay before the next attempt.
        case waitingToRetry(delayNanos: Int64)
        case open(Stage)
        /// Our Close is out; waiting for the server's (at most --close-timeout
        /// without progress).
        case closing
        /// Our Close is out for a reconnect asked for; once the connection
        /// has ended (at most --close-timeout), the next attempt starts at once.
        case closingToReconnect
        case ended
    }

    /// Where an open connection is in the ending that stdin EOF starts
    /// (wspipe(1): OPTIONS, Ending).
    enum Stage: Equatable {
        /// stdin lines flow to the server.
        case streaming
        /// stdin is over; queued lines are still going out.
        case flushing
        /// Everything is out; sent messages wait for their --ack (at most --ack-timeout).
        case awaitingAcks
        /// Replies still owed get a short chance to arrive before the Close:
        /// this long more (`ReplyTracker` says how long, each time it is asked).
        case lingering(forNanos: Int64)
        /// -n: keep receiving until the server closes.
        case holding
    }

    let policy: Policy
    private(set) var phase: Phase = .idle
    private var backoff: Backoff
    /// Attempts made so far (the first connection is attempt 1).
    private(set) var attempts = 0
    private(set) var everConnected = false
    /// When the open connection was established.
    private var connectedAt: Int64?
    /// Connections in a row the server closed right after opening them with
    /// a code that refuses (`Disconnect.isRefusal`).
    private var refusals = 0
    /// The code of the Close wspipe sent on the current connection.
    private(set) var closeSent: CloseCode?
    /// The server's Close the pending retry follows. Should the input turn
    /// out to be over with nothing left to send (stdin's end read just
    /// after the Close came), the run ends with it instead of a connection
    /// that would only say goodbye.
    private var retryingAfterClose: Disconnect?
    /// The current Close went out because the input is over and everything
    /// was sent (not a stop, not --until), and its timer has not run out:
    /// a peer that drops the connection now, with frames its TCP never
    /// acknowledged (queued again), gets them on a new connection.
    private var closingAfterInput = false

    init(policy: Policy, backoff: Backoff) {
        self.policy = policy
        self.backoff = backoff
    }

    /// The timer that runs while in `phase`, if any.
    var timerNanos: Int64? {
        switch phase {
        case .waitingToRetry(let delay): return delay
        case .closing, .closingToReconnect: return policy.closeTimeoutNanos
        case .open(.awaitingAcks): return policy.ackTimeoutNanos
        case .open(.lingering(let nanos)): return nanos
        default: return nil
        }
    }

    /// Does the session need to report delivery progress now?
    var wantsProgress: Bool {
        switch phase {
        case .open(.flushing), .open(.awaitingAcks), .open(.lingering): return true
        default: return false
        }
    }

    var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .start:
            guard phase == .idle else { return [] }
            return connect()
        case .connected(let now, let inputEnded, let progress):
            guard phase == .connecting else { return [] }
            everConnected = true
            connectedAt = now
            closeSent = nil
            retryingAfterClose = nil
            phase = .open(.streaming)
            return inputEnded ? settle(from: .flushing, progress) : []
        case .attemptFailed(let cause):
            guard phase == .connecting else { return [] }
            refusals = 0
            return decide(after: cause, wasOpen: false)
        case .connectionEnded(let cause, let now, let progress):
            let stable = staysOpen(now: now)
            if stable { backoff.reset() }
            connectedAt = nil
            return connectionEnded(cause, stable: stable, progress)
        case .peerFailed:
            guard isOpen else { return [] }
            phase = .closing
            return [.stopInput]
        case .inputEnded(let progress):
            if case .waitingToRetry = phase, let cause = nothingLeftAfterClose(progress) {
                return end(.finishedByServer(cause))
            }
            guard phase == .open(.streaming) else { return [] }
            return settle(from: .flushing, progress)
        case .progressed(let progress):
            guard case .open(let stage) = phase, wantsProgress else { return [] }
            return settle(from: stage, progress)
        case .timerFired(let progress):
            return timerFired(progress)
        case .stop(let reason):
            return stop(reason)
        case .reconnectRequested:
            return reconnectRequested()
        }
    }

    /// Would the open connection's ending with `cause` lead to another
    /// attempt? Asked of a copy before the ending is handled: what the
    /// connection leaves is sent again only when a connection follows.
    func reconnects(after cause: Disconnect, now: Int64, progress: Progress) -> Bool {
        var copy = self
        return copy.handle(.connectionEnded(cause, now: now, progress: progress)).contains { action in
            switch action {
            case .connect, .announceRetry: return true
            default: return false
            }
        }
    }

    /// Does the open connection's ending with `cause` now count as a
    /// refusal (`refusalLimit`): a Close with a refusal code
    /// (`Disconnect.isRefusal`) before it stayed open `stableNanos`?
    func isRefusal(_ cause: Disconnect, now: Int64) -> Bool {
        cause.isRefusal && !staysOpen(now: now)
    }

    /// The connection has been open `stableNanos`: it resets the backoff.
    private func staysOpen(now: Int64) -> Bool {
        connectedAt.map { now - $0 >= policy.stableNanos } ?? false
    }

    /// The server's Close a retry follows, when the input is over and
    /// nothing is left to send: then it, not a reconnect, ends the run.
    private func nothingLeftAfterClose(_ progress: Progress) -> Disconnect? {
        guard let cause = retryingAfterClose, progress.queueEmpty, !progress.acksPending else { return nil }
        return cause
    }

    private mutating func connect() -> [Action] {
        attempts += 1
        phase = .connecting
        return [.connect(attempt: attempts)]
    }

    private mutating func connectionEnded(_ cause: Disconnect, stable: Bool, _ progress: Progress) -> [Action] {
        switch phase {
        case .open(let stage):
            // The input is over and nothing is left to send: a reconnect
            // would only say goodbye, so the server's Close ends the run.
            if case .closedByServer = cause, stage != .streaming, progress.queueEmpty, !progress.acksPending {
                return end(.finishedByServer(cause))
            }
            refusals = cause.isRefusal && !stable ? refusals + 1 : 0
            return decide(after: cause, wasOpen: true)
        case .closing:
            // The peer dropped the connection after the Close that ended the
            // input, before its TCP acknowledged everything: what it never
            // got (queued again) goes on a new connection, then the Close.
            if closingAfterInput, cause.isDrop, !progress.queueEmpty {
                closingAfterInput = false
                phase = .open(.flushing)
                return decide(after: cause, wasOpen: true)
            }
            // The ending we started is complete, unless the server broke the
            // protocol on the way out, or closed with an error of its own
            // (its Close crossed ours: it is no echo of what we sent).
            if case .protocolViolation = cause, case .fatal(let status) = RetryPolicy.verdict(for: cause) {
                return end(.fatal(cause, status))
            }
            if case .closedByClient(let code?, let reason) = cause, code != closeSent {
                let own = Disconnect.closedByServer(code: code, reason: reason)
                if own.errorCloseCode != nil { return end(.finishedByServer(own)) }
            }
            return end(.completed)
        case .closingToReconnect:
            if case .protocolViolation = cause, case .fatal(let status) = RetryPolicy.verdict(for: cause) {
                return end(.fatal(cause, status))
            }
            backoff.reset()
            return connect()
        default:
            return []
        }
    }

    /// After a failed attempt or a lost connection: RetryPolicy says retry,
    /// finished or fatal; the options say whether and when to retry.
    private mutating func decide(after cause: Disconnect, wasOpen: Bool) -> [Action] {
        switch RetryPolicy.verdict(for: cause) {
        case .finished:
            return end(.finishedByServer(cause))
        case .fatal(let status):
            return end(.fatal(cause, status))
        case .retry:
            if !everConnected && !policy.waitForFirstConnection { return end(.firstAttemptFailed(cause)) }
            if everConnected && !policy.reconnect { return end(.lostWithoutReconnect(cause)) }
            if let max = policy.maxRetries {
                if backoff.failures >= max { return end(.gaveUp(attempts: attempts, cause)) }
            } else if refusals >= policy.refusalLimit {
                return end(.gaveUp(attempts: attempts, cause))
            }
            let delay = backoff.nextDelayNanos()
            phase = .waitingToRetry(delayNanos: delay)
            if case .closedByServer = cause { retryingAfterClose = cause } else { retryingAfterClose = nil }
            return [.announceRetry(attempt: attempts + 1, delayNanos: delay, cause: cause, wasOpen: wasOpen)]
        }
    }

    /// Moves an open connection whose input is over through its stages,
    /// leaving each one as soon as what it waits for is done.
    private mutating func settle(from stage: Stage, _ progress: Progress) -> [Action] {
        switch stage {
        case .streaming, .holding:
            return []
        case .flushing:
            if !progress.queueEmpty { phase = .open(.flushing); return [] }
            return settle(from: .awaitingAcks, progress)
        case .awaitingAcks:
            if progress.acksPending { phase = .open(.awaitingAcks); return [] }
            if policy.holdAfterInput { phase = .open(.holding); return [] }
            return settle(from: .lingering(forNanos: 0), progress)
        case .lingering:
            if let wait = progress.replyWaitNanos, wait > 0 { phase = .open(.lingering(forNanos: wait)); return [] }
            defer { closingAfterInput = true }
            return close()
        }
    }

    private mutating func timerFired(_ progress: Progress) -> [Action] {
        switch phase {
        case .waitingToRetry:
            if progress.inputOver, let cause = nothingLeftAfterClose(progress) { return end(.finishedByServer(cause)) }
            return connect()
        case .closing, .closingToReconnect:
            // --close-timeout counts from the last progress: a slow peer
            // still draining what was sent is not cut off.
            if progress.peerProgressed { return [.restartTimer] }
            closingAfterInput = false   // a peer stuck this long is given up on, not reconnected to
            return [.dropConnection]
        case .open(.awaitingAcks):
            // What is still held is reported; the ending goes on without it.
            var rest = progress
            rest.acksPending = false
            return [.reportUnacked] + settle(from: .awaitingAcks, rest)
        case .open(.lingering):
            // The tracker says whether the wait is over (a message may have
            // moved its quiet time on).
            return settle(from: .lingering(forNanos: 0), progress)
        default:
            return []
        }
    }

    /// An open connection is closed; a closing one only waits on unless
    /// nobody is left to tell (stdout gone) or the user insists (SIGINT).
    private mutating func stop(_ reason: StopReason) -> [Action] {
        switch phase {
        case .open:
            if case .user(let code, let text) = reason { return close(code, reason: text) }
            return reason.isOwnEnding ? close() : close(.normal, reason: "")
        case .ended: return []
        case .closing: return reason.isOwnEnding ? [] : end(.completed)
        // The Close is already out: its handshake becomes the ending.
        case .closingToReconnect: phase = .closing; return [.stopInput]
        case .connecting: return [.cancelAttempt] + end(.completed)
        case .idle, .waitingToRetry: return end(.completed)
        }
    }

    /// /reconnect: an open connection is closed normally and replaced once it
    /// has ended; a pending attempt or retry delay gives way to a new attempt.
    private mutating func reconnectRequested() -> [Action] {
        switch phase {
        case .open:
            phase = .closingToReconnect
            closeSent = .normal
            return [.sendClose(.normal)]
        case .waitingToRetry: return connect()
        case .connecting: return [.cancelAttempt] + connect()
        case .idle, .closing, .closingToReconnect, .ended: return []
        }
    }

    /// The Close of an ending wspipe chose (stdin EOF, --until, ...): --close-code.
    private mutating func close() -> [Action] {
        close(policy.closeCode, reason: policy.closeReason)
    }

    private mutating func close(_ code: CloseCode, reason: String) -> [Action] {
        phase = .closing
        closeSent = code
        closingAfterInput = false
        return [.stopInput, .sendClose(code, reason: reason)]
    }

    private mutating func end(_ outcome: Outcome) -> [Action] {
        phase = .ended
        return [.stopInput, .finish(outcome)]
    }
}
