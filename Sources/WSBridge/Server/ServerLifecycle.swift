import WSCore
import WSTransport

/// The server's lifecycle as a pure state machine, like `ClientLifecycle`:
/// events in, actions out, one timer per phase.
///
///     serving ─stdin EOF, --max-messages, stdout gone, SIGINT, --once client left─▶ stopping ─last client gone, timer─▶ ended
///
/// While stopping, no client is accepted and every connected one has been
/// sent a Close; the session ends when they are gone, or once they have made
/// no progress for --close-timeout.
/// A second SIGINT ends it at once.
struct ServerLifecycle: PhaseMachine {
    enum Phase: Equatable {
        case serving
        /// Clients were sent a Close; waiting for them (at most --close-timeout).
        case stopping
        case ended
    }

    enum StopReason: Equatable {
        /// stdin ended (not with -n), --max-messages, or the --once client left.
        case done
        case stdoutLost
        case interrupted
    }

    enum Event {
        case inputEnded(clients: Int)
        case stop(StopReason, clients: Int)
        case clientLeft(remaining: Int)
        /// The phase's timer ran out, and nothing moved since it started.
        case timerFired
        /// The phase's timer ran out while clients still took (or sent) bytes.
        case timerFiredWithProgress
    }

    enum Action: Equatable {
        case stopInput
        /// Stop listening and drop the clients still upgrading.
        case stopAccepting
        case closeClients(CloseCode, reason: String = "")
        /// The close timeout ran out: drop whoever is left.
        case dropClients
        /// The close timeout ran out while clients were still draining: wait as long again.
        case restartTimer
        case finish
    }

    /// -n: stdin EOF does not stop the server.
    let holdAfterInput: Bool
    /// --once: the first client's leaving stops the server.
    let once: Bool
    let closeTimeoutNanos: Int64
    /// --close-code: the Close of a server that ends on its own (stdin EOF,
    /// --max-messages, --once); SIGINT and a lost stdout say 1001.
    let closeCode: CloseCode
    let closeReason: String
    private(set) var phase: Phase = .serving

    init(holdAfterInput: Bool, once: Bool, closeTimeoutNanos: Int64, closeCode: CloseCode = .normal,
         closeReason: String = "") {
        self.holdAfterInput = holdAfterInput
        self.once = once
        self.closeTimeoutNanos = closeTimeoutNanos
        self.closeCode = closeCode
        self.closeReason = closeReason
    }

    var timerNanos: Int64? { phase == .stopping ? closeTimeoutNanos : nil }

    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.serving, .inputEnded(let clients)):
            return holdAfterInput ? [] : stop(done: true, clients: clients)
        case (.serving, .stop(let reason, let clients)):
            return stop(done: reason == .done, clients: clients)
        case (.serving, .clientLeft(let remaining)):
            return once ? stop(done: true, clients: remaining) : []
        case (.stopping, .clientLeft(0)):
            return end()
        case (.stopping, .stop(.interrupted, _)):
            return end()
        case (.stopping, .timerFired):
            return [.dropClients] + end()
        case (.stopping, .timerFiredWithProgress):
            // --close-timeout counts from the last progress: a slow client
            // still reading what it was sent is not cut off.
            return [.restartTimer]
        default:
            return []
        }
    }

    private mutating func stop(done: Bool, clients: Int) -> [Action] {
        phase = .stopping
        let actions: [Action] = [.stopInput, .stopAccepting]
        if clients == 0 { return actions + end() }
        return actions + [done ? .closeClients(closeCode, reason: closeReason) : .closeClients(.goingAway)]
    }

    private mutating func end() -> [Action] {
        phase = .ended
        return [.finish]
    }
}
