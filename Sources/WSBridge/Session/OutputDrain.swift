/// The last phase of every run, after the session has ended: what its
/// messages left in the destinations is written out on the event loop, so
/// that SIGINT and SIGTERM still work, then files and |COMMAND pipes are
/// closed and the commands waited for, so that their output is complete
/// (wspipe(1): ROUTING). A pure state machine like the lifecycles: events in,
/// actions out, one timer at a time.
///
///     running ─session ended─▶ writing ─all written─▶ closing ─▶ awaitingCommands ─all exited─▶ done
///                               │ no progress for --close-timeout    │ --close-timeout
///                               ▼                                    ▼
///                     abandon what is left ──▶ closing        SIGTERM the rest ──▶ done
///
/// A reader that takes nothing more (a FIFO nobody reads, a stopped pager)
/// cannot hold wspipe forever: output that makes no progress for
/// --close-timeout is abandoned and reported (exit status 1). A second
/// SIGINT or SIGTERM ends the run at once, whatever is left.
struct OutputDrain {
    enum Phase: Equatable {
        /// The session runs; nothing to do yet.
        case running
        /// Writing out what the destinations still hold.
        case writing
        /// Files and command pipes are being closed.
        case closing
        /// Commands read EOF; waiting for them to exit (at most --close-timeout).
        case awaitingCommands
        case done
    }

    enum Event {
        /// The session is over: `unwritten` bytes wait in the destinations;
        /// `hurry` after a second SIGINT/SIGTERM.
        case sessionEnded(unwritten: Int, hurry: Bool, now: Int64)
        /// Every destination is written out (or has failed).
        case written
        /// The destinations are closed; this many commands still run.
        case closed(commandsRunning: Int)
        /// Some command exited (SIGCHLD); this many still run.
        case commandsExited(running: Int)
        case timerFired(unwritten: Int, now: Int64)
        /// SIGINT or SIGTERM; `again` from the second one on.
        case interrupted(again: Bool)
    }

    enum Action: Equatable {
        case armTimer(nanos: Int64)
        case cancelTimer
        /// Report and drop what the destinations still hold (exit status 1).
        case abandonOutput
        /// Close files and command pipes (nothing is left to write).
        case closeDestinations
        /// SIGTERM the commands still running, and report them (exit status 1).
        case stopCommands
        case finish
    }

    let timeoutNanos: Int64
    private(set) var phase: Phase = .running
    /// The writing's progress: output that stops shrinking for the timeout is stuck.
    private var progress: SendStall?

    init(timeoutNanos: Int64) {
        self.timeoutNanos = timeoutNanos
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.running, .sessionEnded(let unwritten, let hurry, let now)):
            if hurry { return (unwritten > 0 ? [.abandonOutput] : []) + end() }
            if unwritten == 0 { return close() }
            phase = .writing
            let watch = SendStall(timeoutNanos: timeoutNanos, output: unwritten, now: now)
            progress = watch
            return [.armTimer(nanos: watch.firstIntervalNanos)]
        case (.writing, .written):
            return [.cancelTimer] + close()
        case (.writing, .timerFired(let unwritten, let now)):
            if unwritten == 0 { return close() }
            if let next = progress?.check(output: unwritten, now: now) { return [.armTimer(nanos: next)] }
            return [.abandonOutput] + close()
        case (.closing, .closed(let running)):
            if running == 0 { return end() }
            phase = .awaitingCommands
            return [.armTimer(nanos: timeoutNanos)]
        case (.awaitingCommands, .commandsExited(let running)):
            return running == 0 ? [.cancelTimer] + end() : []
        case (.awaitingCommands, .timerFired):
            return [.stopCommands] + end()
        case (.writing, .interrupted(again: true)):
            return [.cancelTimer, .abandonOutput] + end()
        case (.awaitingCommands, .interrupted(again: true)):
            // The commands have read EOF: they finish on their own.
            return [.cancelTimer] + end()
        default:
            return []
        }
    }

    private mutating func close() -> [Action] {
        phase = .closing
        return [.closeDestinations]
    }

    private mutating func end() -> [Action] {
        phase = .done
        return [.finish]
    }
}
