import WSCore
import WSConnect

/// The values `ClientLifecycle` takes and gives: what the session knows,
/// what it asks for, how a session ends, and the options that decide.
extension ClientLifecycle {
    /// What the session knows about delivery when an event comes in.
    struct Progress: Equatable {
        /// Nothing waits in the queue for the connection.
        var queueEmpty = true
        /// Messages are still held for their --ack.
        var acksPending = false
        /// stdin (or the person at the terminal) has said all it will.
        var inputOver = false
        /// How much longer replies may take before the Close goes out
        /// (`ReplyTracker`); nil: none is owed.
        var replyWaitNanos: Int64? = nil
        /// The peer took or sent something since the phase's timer started
        /// (only looked at when the closing phase's timer runs out).
        var peerProgressed = false
    }

    /// An ending wspipe chooses (not a failure of the connection).
    enum StopReason: Equatable {
        case maxMessages, stdoutLost, interrupted
        /// The person at the terminal ended the session (interactive /close,
        /// /quit): an open connection is closed with this code and reason.
        case user(code: CloseCode, reason: String)
        /// --until saw its message; --idle-timeout ran out.
        case untilMatched, idleTimeout

        /// The run is done (not cut short): its Close carries --close-code and
        /// the server's answer is waited for.
        var isOwnEnding: Bool {
            switch self {
            case .maxMessages, .untilMatched, .idleTimeout: return true
            case .stdoutLost, .interrupted, .user: return false
            }
        }
    }

    enum Event {
        case start
        /// `now` on the monotonic clock: a connection resets the backoff only
        /// once it has stayed open `Policy.stableNanos`.
        case connected(now: Int64, inputEnded: Bool, progress: Progress)
        case attemptFailed(Disconnect)
        /// `progress` after what the connection left was queued again: with
        /// the input over and nothing left to send, a server's Close ends the run.
        case connectionEnded(Disconnect, now: Int64, progress: Progress = .init())
        /// wspipe failed the connection for what the server sent (the core
        /// has queued the Close); what remains is waiting for the transport to end.
        case peerFailed
        case inputEnded(Progress)
        case progressed(Progress)
        /// The current phase's timer ran out.
        case timerFired(Progress)
        case stop(StopReason)
        /// Drop the connection and connect again now (interactive /reconnect).
        case reconnectRequested
    }

    /// How the session ended, for its last words and exit status.
    enum Outcome: Equatable {
        /// An ending wspipe chose, or the closing handshake it started.
        case completed
        /// The server's Close ended the session: normally (1000, 1001, no
        /// code), or with an error code (exit 7).
        case finishedByServer(Disconnect)
        case fatal(Disconnect, ExitStatus)
        /// The first attempt failed and --wait was not given.
        case firstAttemptFailed(Disconnect)
        /// An established connection was lost with --no-reconnect.
        case lostWithoutReconnect(Disconnect)
        /// --max-retries attempts in a row failed.
        case gaveUp(attempts: Int, Disconnect)

        /// The exit status this ending adds (wspipe(1): EXIT STATUS): 4
        /// whenever the last failure was an HTTP rejection, 7 when it was a
        /// server's Close with an error code, 3 for the other ways of not
        /// getting (back) through.
        var exitStatus: ExitStatus? {
            switch self {
            case .completed: return nil
            case .finishedByServer(let cause): return cause.errorCloseCode == nil ? nil : .closedWithError
            case .fatal(_, let status): return status
            case .firstAttemptFailed(let cause), .lostWithoutReconnect(let cause), .gaveUp(_, let cause):
                if case .handshakeRejected = cause { return .handshakeRejected }
                if case .socketIORejected = cause { return .handshakeRejected }
                if cause.errorCloseCode != nil { return .closedWithError }
                return .connectFailed
            }
        }
    }

    enum Action: Equatable {
        case connect(attempt: Int)
        /// Tell about the coming retry (the phase's timer waits for it).
        case announceRetry(attempt: Int, delayNanos: Int64, cause: Disconnect, wasOpen: Bool)
        case sendClose(CloseCode, reason: String = "")
        /// The close timer ran out: drop the transport.
        case dropConnection
        /// The close timer ran out but the peer made progress: wait as long again.
        case restartTimer
        case cancelAttempt
        /// The --ack-timeout ran out: report what is still held.
        case reportUnacked
        case stopInput
        case finish(Outcome)
    }

    struct Policy {
        var reconnect = true
        var waitForFirstConnection = false
        var maxRetries: Int? = nil
        /// -n: at stdin EOF keep receiving instead of closing.
        var holdAfterInput = false
        /// --close-timeout and --ack-timeout (their defaults are the flag table's).
        var closeTimeoutNanos: Int64 = 0
        var ackTimeoutNanos: Int64 = 0
        /// --close-code: the Close of a run that ends on its own (stdin EOF,
        /// --max-messages, --until, --idle-timeout).
        var closeCode: CloseCode = .normal
        var closeReason = ""
        /// A connection that stays open this long resets the backoff and the
        /// retry count; one that ends sooner counts as a failed attempt, so a
        /// server that accepts and closes at once sees growing delays.
        var stableNanos: Int64 = 5_000_000_000
        /// Without --max-retries: a server that closes this many connections
        /// in a row within `stableNanos` of opening, with a code that does not
        /// ask to come back (`Disconnect.isRefusal`), ends the run.
        var refusalLimit = 3
    }
}

extension ClientLifecycle.Policy {
    init(_ session: SessionPolicy, _ bridge: BridgeOptions) {
        reconnect = session.reconnect
        waitForFirstConnection = session.waitForFirstConnection
        maxRetries = session.maxRetries
        // --until waits for its message past stdin EOF, like -n.
        holdAfterInput = bridge.noClose || session.until != nil
        closeTimeoutNanos = bridge.closeTimeoutNanos
        closeCode = bridge.closeCode
        closeReason = bridge.closeReason
        ackTimeoutNanos = session.ackTimeoutNanos
    }
}
