/// The clock the timing rules run on: what time it is, and timers. The event
/// loop is the one implementation in the program (`monotonicNanos` and its
/// timer heap); a unit test gives a rule a manual clock instead, which moves
/// only when the test advances it, so --rate's pacing, --idle-timeout, the
/// lingering for replies, --ping-timeout and the send and close timeouts are
/// tested to the nanosecond without waiting (Sources/README.md, Timing).
public protocol TimerScheduling: AnyObject {
    /// Monotonic nanoseconds: only differences mean anything.
    var nowNanos: Int64 { get }
    /// Runs `callback` once, no earlier than `afterNanos` from now.
    @discardableResult
    func schedule(afterNanos: Int64, _ callback: @escaping () -> Void) -> EventLoop.TimerID
    /// Cancelling a fired or unknown timer does nothing.
    func cancel(_ timer: EventLoop.TimerID)
}

extension EventLoop: TimerScheduling {
    @inline(__always)
    public var nowNanos: Int64 { monotonicNanos() }
}
