import WSTransport

/// --ping-interval / --ping-timeout (wspipe(1): RECONNECT AND REPLAY): sends a ping every interval and
/// declares the connection dead when the pong to *our* ping (same payload,
/// RFC 6455 §5.5.3) does not come back within the timeout, counted from
/// the peer's last progress through what was sent before the ping
/// (`progress`: bytes its TCP acknowledged): a slow but healthy peer that
/// reads megabytes queued before the pong it owes is not cut off (issue
/// 33). What it sends meanwhile is no pong: it does not count.
/// Unsolicited pongs and pongs to older pings clear nothing. The pong to our
/// ping says how long the round trip took (`onRoundTrip`: --stats, the pong
/// event, -w's rtt_last).
final class KeepAlive {
    private let scheduler: TimerScheduling
    private let intervalNanos: Int64
    private let timeoutNanos: Int64
    private let sendPing: ([UInt8]) -> Void
    private let onDead: () -> Void
    /// Where the peer is (nil: not known, then only the pong counts).
    private let progress: () -> WebSocketChannel.ProgressMark?
    /// Where it was when the deadline was last armed.
    private var markAtDeadline: WebSocketChannel.ProgressMark?
    private var counter: UInt64 = 0
    private var outstanding: [UInt8]?
    private var pingTimer: EventLoop.TimerID?
    private var deadline: EventLoop.TimerID?
    /// When the outstanding ping was sent.
    private var sentAt: Int64 = 0
    /// The pong to our ping came back after this many nanoseconds.
    var onRoundTrip: ((Int64) -> Void)?

    init(scheduler: TimerScheduling, intervalNanos: Int64, timeoutNanos: Int64,
         sendPing: @escaping ([UInt8]) -> Void, onDead: @escaping () -> Void,
         progress: @escaping () -> WebSocketChannel.ProgressMark? = { nil }) {
        self.scheduler = scheduler
        self.intervalNanos = intervalNanos
        self.timeoutNanos = timeoutNanos
        self.sendPing = sendPing
        self.onDead = onDead
        self.progress = progress
    }

    func start() {
        stop()
        schedulePing()
    }

    func stop() {
        if let pingTimer { scheduler.cancel(pingTimer) }
        if let deadline { scheduler.cancel(deadline) }
        pingTimer = nil
        deadline = nil
        outstanding = nil
    }

    func pongReceived(_ payload: UnsafeRawBufferPointer) {
        guard let expected = outstanding, payload.elementsEqual(expected) else { return }
        outstanding = nil
        if let deadline { scheduler.cancel(deadline) }
        deadline = nil
        onRoundTrip?(scheduler.nowNanos - sentAt)
    }

    private func schedulePing() {
        pingTimer = scheduler.schedule(afterNanos: intervalNanos) { [weak self] in self?.ping() }
    }

    private func ping() {
        pingTimer = nil
        // A new ping while one is outstanding keeps the older deadline: the
        // peer has had interval + timeout to answer the first one.
        if outstanding == nil {
            counter &+= 1
            let payload = Array("wspipe-\(counter)".utf8)
            outstanding = payload
            sentAt = scheduler.nowNanos
            sendPing(payload)
            armDeadline()
        }
        schedulePing()
    }

    private func armDeadline() {
        markAtDeadline = progress()
        deadline = scheduler.schedule(afterNanos: timeoutNanos) { [weak self] in self?.deadlineReached() }
    }

    /// No pong within the timeout: dead, unless the peer's TCP took
    /// something meanwhile; then it has as long again.
    private func deadlineReached() {
        deadline = nil
        if let before = markAtDeadline, let now = progress(), now.took(since: before) { return armDeadline() }
        stop()
        onDead()
    }
}
