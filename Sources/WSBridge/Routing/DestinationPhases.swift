/// `Destination`'s phase as a pure state machine: events in, actions out
/// (the pattern of `ClientLifecycle`); the destination performs the
/// actions with the loop. Beside the phase it keeps the back-pressure's
/// hysteresis, which the producer reads (`isBackedUp`).
///
///     open(waiting: false) ─blocked─▶ open(waiting: true) ─emptied─▶ open(waiting: false)
///        open(…) ─writeFailed─▶ failed ─finish─▶ finished(failed: true)
///        open(…) ─finish─▶ finished(failed: false) ─writeFailed─▶ finished(failed: true)
///
/// The loop watches the fd exactly while `open(waiting: true)`.
struct DestinationPhases {
    enum Phase: Equatable {
        /// Lines are written as they come; `waiting`: the fd took less than
        /// there was, and the loop watches it for writability.
        case open(waiting: Bool)
        /// A write failed: what is pending and appended later is dropped.
        case failed
        /// Released by `finish()` (a file closed, a command's stdin closed);
        /// `failed`: a write had failed before.
        case finished(failed: Bool)
    }

    enum Event: Equatable {
        /// The fd would take no more now, and bytes are left.
        case blocked
        /// Nothing is left to write (or the rest was dropped: `abandonPending`).
        case emptied
        case writeFailed
        case finish
    }

    struct Actions: OptionSet, Equatable {
        let rawValue: UInt8
        static let watch = Actions(rawValue: 1)
        static let unwatch = Actions(rawValue: 2)
    }

    private(set) var phase = Phase.open(waiting: false)
    /// Above the high water, and not yet below the low water since.
    private var backedUp = false

    let highWater: Int
    let lowWater: Int

    init(highWater: Int, lowWater: Int) {
        precondition(lowWater <= highWater, "Destination: low water above high water")
        self.highWater = highWater
        self.lowWater = lowWater
    }

    var isWaiting: Bool { phase == .open(waiting: true) }

    var hasFailed: Bool {
        switch phase {
        case .failed, .finished(failed: true): return true
        case .open, .finished(failed: false): return false
        }
    }

    var isFinished: Bool {
        if case .finished = phase { return true }
        return false
    }

    mutating func handle(_ event: Event) -> Actions {
        switch (phase, event) {
        case (.open(false), .blocked):
            phase = .open(waiting: true)
            return .watch
        case (.open(let waiting), .emptied):
            phase = .open(waiting: false)
            return waiting ? .unwatch : []
        case (.open(let waiting), .writeFailed):
            phase = .failed
            return waiting ? .unwatch : []
        case (.open(let waiting), .finish):
            phase = .finished(failed: false)
            return waiting ? .unwatch : []
        case (.failed, .finish), (.finished(failed: false), .writeFailed):
            // An inherited fd stays open after finish(): a later line may still fail on it.
            phase = .finished(failed: true)
            return []
        default:
            // Still waiting, or failed or finished already: nothing changes.
            return []
        }
    }

    // MARK: back-pressure

    /// With `unwritten` bytes waiting: above the high water, or still above
    /// the low water since it was.
    mutating func isBackedUp(unwritten: Int) -> Bool {
        if !backedUp && unwritten > highWater { backedUp = true }
        return backedUp
    }

    /// True once, when a backed-up destination has come below the low
    /// water (the producer may resume).
    mutating func drained(unwritten: Int) -> Bool {
        guard backedUp, unwritten < lowWater else { return false }
        backedUp = false
        return true
    }
}
