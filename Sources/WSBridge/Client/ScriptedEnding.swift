import WSTransport
import WSJSON
import WSMessages

/// The endings a scripted check asks for (wspipe(1): OPTIONS, Ending):
/// `--until` (the first incoming message with a value at a key path) and
/// `--idle-timeout` (no incoming message for a while, counted from each
/// connection and each message). Each reports once, through `fire`, as a
/// stop of the client's lifecycle; it is the lifecycle that closes.
final class ScriptedEnding {
    private let until: UntilCondition?
    private let idleNanos: Int64?
    /// The loop in the program; a manual clock in the tests.
    private let clock: TimerScheduling
    private let fire: (ClientLifecycle.StopReason) -> Void
    /// When the connection opened or the last message came in.
    private var lastActivity: Int64 = 0
    private var timer: EventLoop.TimerID?
    private var fired = false
    /// --until saw its message.
    private(set) var matched = false

    init(until: UntilCondition?, idleNanos: Int64?, clock: TimerScheduling,
         fire: @escaping (ClientLifecycle.StopReason) -> Void) {
        self.until = until
        self.idleNanos = idleNanos
        self.clock = clock
        self.fire = fire
    }

    /// A connection opened: the idle clock starts (again).
    func connected() {
        guard let idleNanos, !fired else { return }
        lastActivity = clock.nowNanos
        if timer == nil { arm(after: idleNanos) }
    }

    /// A binary message (or any message) came in.
    func received() {
        if idleNanos != nil { lastActivity = clock.nowNanos }
    }

    /// A text message came in, already written out: the --until check.
    func received(text payload: UnsafeRawBufferPointer, verdict: Int) {
        received()
        guard let until, !matched, !fired, case .valid = JSONScanner.validate(payload, verdict: verdict),
              until.matches(payload) else {
            return
        }
        matched = true
        end(.untilMatched)
    }

    /// What a run that ends without the --until message says and exits with:
    /// a check that did not see what it waited for fails (status 1), unless
    /// the run already failed for a reason of its own.
    func reportUnmatched(log: Diagnostics, status: inout ExitStatus) {
        guard let until, !matched, status == .success else { return }
        log.fatal("no message matched --until \(until.description)")
        status = .runtimeError
    }

    /// One timer for the whole run: each time it fires, it either ends the
    /// run or sleeps for what is left since the last message (one heap
    /// operation per interval, none per message).
    private func arm(after nanos: Int64) {
        timer = clock.schedule(afterNanos: nanos) { [weak self] in self?.check() }
    }

    private func check() {
        timer = nil
        guard let idleNanos, !fired else { return }
        let idle = clock.nowNanos - lastActivity
        if idle >= idleNanos { end(.idleTimeout) } else { arm(after: idleNanos - idle) }
    }

    private func end(_ reason: ClientLifecycle.StopReason) {
        fired = true
        if let timer { clock.cancel(timer) }
        timer = nil
        fire(reason)
    }
}
