/// Whether the server watches its listener, as a pure state machine like the
/// lifecycles: events in, actions out, at most one timer.
///
///     accepting ─--max-clients handshakes─▶ full ─one finishes─▶ accepting
///         │ accept fails (EMFILE, ENFILE, ...)
///         ▼
///     outOfDescriptors ─timer─▶ accepting (or full)        any ─stop─▶ stopped
///
/// A listener that cannot be accepted from stays readable: watching it while
/// accept(2) fails with EMFILE would spin the loop at full CPU. So a failed
/// accept stops the watching for `retryNanos`, then tries again; connections
/// meanwhile wait in the kernel's listen queue (wspipe(1): OPTIONS, Server
/// mode). The first time this happens it is reported as a warning; later
/// episodes are notices (-v), so a server at its limit does not flood stderr.
struct AcceptGate {
    enum Phase: Equatable {
        case accepting
        /// --max-clients connections are in their handshake.
        case full
        /// accept(2) failed for want of resources; retrying after a pause.
        case outOfDescriptors
        case stopped
    }

    enum Event: Equatable {
        /// The number of connections in their TLS or HTTP handshake changed.
        case handshakes(Int)
        /// accept(2) failed with this error (not EAGAIN).
        case acceptFailed(String)
        /// A connection was accepted.
        case accepted
        case retryTimerFired
        case stop
    }

    enum Action: Equatable {
        case watch
        case unwatch
        case armRetryTimer(nanos: Int64)
        case cancelRetryTimer
        /// Say that accepting is paused; `first` for the first time in the run.
        case reportPaused(String, first: Bool)
        /// An accept succeeded after a pause.
        case reportResumed
    }

    static let retryNanos: Int64 = 250_000_000

    /// --max-clients: at most this many connections in their handshake.
    let maxHandshakes: Int?
    private(set) var phase: Phase = .accepting
    private var handshakes = 0
    private var exhausted = false
    /// An accept has yet to succeed since the pause began.
    private var recovering = false
    private(set) var pauses = 0

    init(maxHandshakes: Int?) {
        self.maxHandshakes = maxHandshakes
    }

    var isWatching: Bool { phase == .accepting }

    mutating func handle(_ event: Event) -> [Action] {
        guard phase != .stopped else { return [] }
        var actions: [Action] = []
        switch event {
        case .handshakes(let count):
            handshakes = count
        case .acceptFailed(let reason):
            guard !exhausted else { return [] }
            exhausted = true
            actions = [.armRetryTimer(nanos: Self.retryNanos)]
            // Said once per episode: retries that fail again are the same one.
            if !recovering {
                recovering = true
                pauses += 1
                actions.insert(.reportPaused(reason, first: pauses == 1), at: 0)
            }
        case .accepted:
            guard recovering else { return [] }
            recovering = false
            return [.reportResumed]
        case .retryTimerFired:
            exhausted = false
        case .stop:
            let wasWatching = isWatching
            phase = .stopped
            return (wasWatching ? [.unwatch] : []) + (exhausted ? [.cancelRetryTimer] : [])
        }
        return settle() + actions
    }

    /// The phase the counts and the last failure call for, and the watch
    /// that goes with it when it changes.
    private mutating func settle() -> [Action] {
        let wasWatching = isWatching
        if exhausted {
            phase = .outOfDescriptors
        } else if let max = maxHandshakes, handshakes >= max {
            phase = .full
        } else {
            phase = .accepting
        }
        guard wasWatching != isWatching else { return [] }
        return [isWatching ? .watch : .unwatch]
    }
}
