/// What a timer user needs from the event loop. The loop is the one
/// implementation in the program; tests drive a manual clock instead.
public protocol TimerScheduling: AnyObject {
    /// Runs `callback` once, no earlier than `afterNanos` from now.
    @discardableResult
    func schedule(afterNanos: Int64, _ callback: @escaping () -> Void) -> EventLoop.TimerID
    /// Cancelling a fired or unknown timer does nothing.
    func cancel(_ timer: EventLoop.TimerID)
}

extension EventLoop: TimerScheduling {}
