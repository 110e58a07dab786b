/// `StdinPump`'s phase as a pure state machine: events in, actions out (the
/// pattern of `ClientLifecycle`); the pump performs the actions on the loop
/// and its clock. No I/O here, no timers, no booleans beside the phase.
///
///     paused(nil) ─resume─▶ reading ─hold(x)─▶ pacing(x) ─released─▶ reading
///        ▲  │resume (x held)                 │pause                ▲
///        │  └──────────▶ pacing(x) ◀─resume─ paused(x) ◀───────────┘
///        └ pause ─ reading
///     discard (from any but finished) ─▶ discarding;  stop (from any) ─▶ finished
///
/// The loop watches the fd exactly while `reading` or `discarding`; the
/// pacer's timer runs exactly while `pacing`.
struct StdinPumpPhases {
    /// What waits in the splitter for --rate's next turn.
    enum Held: Equatable {
        /// Complete lines (or none yet: the pause after a sent line).
        case lines
        /// The last line, unterminated at EOF: the end comes after it.
        case end
    }

    enum Phase: Equatable {
        /// Not read: before the first `resume`, or paused by back-pressure;
        /// what a resume goes back to waiting for, if anything.
        case paused(holding: Held?)
        /// The loop watches the fd.
        case reading
        /// --rate: the fd is not read; the pacer's timer is armed.
        case pacing(Held)
        /// Read and dropped until EOF: an --exec program whose client left,
        /// or whose line outgrew the message limit.
        case discarding
        /// Nothing more is read.
        case finished
    }

    enum Event: Equatable {
        case resume
        case pause
        /// Lines (or the end) must wait for the pacer.
        case hold(Held)
        /// The pacer let everything held go: read again.
        case released
        case discard
        case stop
    }

    /// What the pump does for a transition; a set, so no event allocates.
    struct Actions: OptionSet, Equatable {
        let rawValue: UInt8
        static let watch = Actions(rawValue: 1)
        static let unwatch = Actions(rawValue: 2)
        /// Arm the pacer's timer for the next turn (after any `cancelPace`).
        static let schedulePace = Actions(rawValue: 4)
        static let cancelPace = Actions(rawValue: 8)
    }

    private(set) var phase = Phase.paused(holding: nil)

    var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    mutating func handle(_ event: Event) -> Actions {
        switch (phase, event) {
        case (.finished, _):
            return []
        case (_, .stop):
            return enter(.finished)
        case (.discarding, _):
            return []
        case (_, .discard):
            return enter(.discarding)
        case (.paused(let held), .resume):
            return enter(held.map { .pacing($0) } ?? .reading)
        case (.paused, .pause), (.reading, .resume), (.reading, .released), (.pacing, .resume):
            return []
        case (.paused, .hold(let held)):
            return enter(.paused(holding: held))
        case (.paused, .released):
            return enter(.paused(holding: nil))
        case (.reading, .pause):
            return enter(.paused(holding: nil))
        case (.reading, .hold(let held)), (.pacing, .hold(let held)):
            return enter(.pacing(held))
        case (.pacing(let held), .pause):
            return enter(.paused(holding: held))
        case (.pacing, .released):
            return enter(.reading)
        }
    }

    /// The one place the phase changes: what leaving the old phase and
    /// entering the new one means for the fd and the timer.
    private mutating func enter(_ next: Phase) -> Actions {
        var actions: Actions = []
        switch phase {
        case .reading, .discarding: actions.insert(.unwatch)
        case .pacing: actions.insert(.cancelPace)
        case .paused, .finished: break
        }
        switch next {
        case .reading, .discarding: actions.insert(.watch)
        case .pacing: actions.insert(.schedulePace)
        case .paused, .finished: break
        }
        // Still watched, or still waiting for the pacer: nothing to undo and redo.
        if actions.contains(.unwatch) && actions.contains(.watch) { actions.subtract([.unwatch, .watch]) }
        phase = next
        return actions
    }
}
