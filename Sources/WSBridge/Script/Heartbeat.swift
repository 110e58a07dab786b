import WSTransport

/// --heartbeat and --heartbeat-timeout on one connection (wspipe(1):
/// SCRIPTED PEER): the application's keepalive message every interval, and
/// the connection declared dead when nothing at all has arrived from the
/// peer for the timeout (a message, a ping, a pong, part of a frame: any
/// read). Unlike --ping-timeout it waits for no particular answer: a
/// protocol whose server answers heartbeats keeps a live connection busy,
/// and one that only listens needs a timeout longer than its own silences.
final class Heartbeat {
    private let scheduler: TimerScheduling
    private let intervalNanos: Int64?
    private let timeoutNanos: Int64?
    private let beat: () -> Void
    private let onSilent: () -> Void
    private var beatTimer: EventLoop.TimerID?
    private var deadline: EventLoop.TimerID?
    private var lastHeard: Int64 = 0
    private let now: () -> Int64

    /// `intervalNanos`: nil sends nothing (--heartbeat-timeout alone).
    /// `timeoutNanos`: nil never declares the connection dead.
    init(scheduler: TimerScheduling, intervalNanos: Int64?, timeoutNanos: Int64?,
         now: (() -> Int64)? = nil,
         beat: @escaping () -> Void, onSilent: @escaping () -> Void) {
        self.scheduler = scheduler
        self.intervalNanos = intervalNanos
        self.timeoutNanos = timeoutNanos
        self.now = now ?? { [unowned scheduler] in scheduler.nowNanos }
        self.beat = beat
        self.onSilent = onSilent
    }

    /// The connection opened: the first heartbeat is due an interval from now,
    /// and the silence is counted from now.
    func start() {
        stop()
        lastHeard = now()
        scheduleBeat()
        if let timeoutNanos { scheduleDeadline(after: timeoutNanos) }
    }

    func stop() {
        if let beatTimer { scheduler.cancel(beatTimer) }
        if let deadline { scheduler.cancel(deadline) }
        beatTimer = nil
        deadline = nil
    }

    /// Something arrived from the peer (called once per read, not per message).
    func heard() {
        if timeoutNanos != nil { lastHeard = now() }
    }

    private func scheduleBeat() {
        guard let intervalNanos else { return }
        beatTimer = scheduler.schedule(afterNanos: intervalNanos) { [weak self] in
            guard let self else { return }
            self.beatTimer = nil
            self.scheduleBeat()
            self.beat()
        }
    }

    /// The deadline is checked when it falls due, not moved on every read:
    /// if something arrived meanwhile, it is set again from that moment.
    private func scheduleDeadline(after nanos: Int64) {
        deadline = scheduler.schedule(afterNanos: nanos) { [weak self] in
            guard let self, let timeout = self.timeoutNanos else { return }
            self.deadline = nil
            let silent = self.now() - self.lastHeard
            if silent < timeout { return self.scheduleDeadline(after: timeout - silent) }
            self.stop()
            self.onSilent()
        }
    }
}
