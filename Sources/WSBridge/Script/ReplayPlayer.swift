import WSTransport
import WSMessages

/// Plays a `ReplaySchedule` on the event loop: each message when its offset
/// from the start has passed. A timer that fires late keeps the schedule
/// (the messages then due go at once); a wait for back-pressure
/// (`canDeliver` false) moves the rest of the schedule back by the wait, so
/// a pause is never made up for with a burst.
final class ReplayPlayer {
    private let schedule: ReplaySchedule
    private let scheduler: TimerScheduling
    private let now: () -> Int64
    /// Sends one message with its tag (`MessageTag.replayed(line:)`, its
    /// line in the recording); false when it could not be sent.
    private let deliver: (OutgoingMessage, Int) -> Bool
    private let canDeliver: () -> Bool
    private let onEnd: () -> Void
    private var startNanos: Int64 = 0
    private var next = 0
    private var timer: EventLoop.TimerID?
    private var blocked = false
    private(set) var started = false
    private(set) var finished = false
    /// Messages `deliver` could not send.
    private(set) var unsent = 0

    init(schedule: ReplaySchedule, scheduler: TimerScheduling, now: (() -> Int64)? = nil,
         deliver: @escaping (OutgoingMessage, Int) -> Bool, canDeliver: @escaping () -> Bool = { true },
         onEnd: @escaping () -> Void = {}) {
        self.schedule = schedule
        self.scheduler = scheduler
        self.now = now ?? { [unowned scheduler] in scheduler.nowNanos }
        self.deliver = deliver
        self.canDeliver = canDeliver
        self.onEnd = onEnd
    }

    var count: Int { schedule.items.count }
    /// Messages sent so far.
    var played: Int { next - unsent }
    /// Messages not played (yet): after `stop`, never.
    var remaining: Int { schedule.items.count - next }

    /// The messages not sent: those not played and those `deliver` could
    /// not send, with their lines in the recording.
    private(set) var notSent = LineTally()

    /// Counts the messages not played into `notSent` (once the player stopped).
    func tallyRemaining() -> LineTally {
        var tally = notSent
        for item in schedule.items[next...] { tally.add(tag: item.message.line) }
        return tally
    }

    func start() {
        guard !started else { return }
        started = true
        startNanos = now()
        step()
    }

    /// The back-pressure that held the playback may have eased.
    func resume() {
        guard blocked, timer == nil, !finished else { return }
        step()
    }

    /// Stops for good (the connection ended, or the run).
    func stop() {
        if let timer { scheduler.cancel(timer) }
        timer = nil
        finished = true
    }

    private func step() {
        while next < schedule.items.count && !finished {
            let item = schedule.items[next]
            let wait = startNanos + item.offsetNanos - now()
            if wait > 0 && !blocked {
                timer = scheduler.schedule(afterNanos: wait) { [weak self] in
                    self?.timer = nil
                    self?.step()
                }
                return
            }
            guard canDeliver() else { blocked = true; return }
            if blocked {
                // Due since before the wait: the schedule goes on from now.
                blocked = false
                startNanos = now() - item.offsetNanos
            }
            next += 1
            if !item.message.withOutgoing({ deliver($0, item.message.line) }) {
                unsent += 1
                notSent.add(tag: item.message.line)
            }
        }
        guard !finished else { return }
        finished = true
        onEnd()
    }
}
