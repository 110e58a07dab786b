/// `--rate N/s` (wspipe(1): OPTIONS, Ending): when the next stdin message may
/// go, for replaying a recorded session at a steady pace.
///
/// Messages are due on a fixed grid, one interval apart. A message sent a
/// little late (a timer that fired late) keeps the grid, so lateness never
/// adds up over a long replay; one sent more than an interval late (stdin
/// was slow, or back-pressure held it) starts a new grid from its own send,
/// so a pause is never made up for with a burst.
struct InputPacer {
    let intervalNanos: Int64
    /// When the next message is due; nil before the first.
    private var due: Int64?

    init(intervalNanos: Int64) {
        self.intervalNanos = intervalNanos
    }

    /// Nanoseconds to wait before the next message may go (0: now).
    func delay(now: Int64) -> Int64 {
        guard let due else { return 0 }
        return max(0, due - now)
    }

    /// A message went out at `now`.
    mutating func sent(now: Int64) {
        if let due, now - due < intervalNanos {
            self.due = due + intervalNanos
        } else {
            due = now + intervalNanos
        }
    }
}
