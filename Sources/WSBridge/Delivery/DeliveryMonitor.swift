import WSTransport

/// The delivery account of one connection at work (wspipe(1): RECONNECT AND
/// REPLAY): the channel tells it what it wrote and read; it feeds the pure
/// `DeliveryAccount`, performs what the account asks of the kernel through
/// `KernelQueue` (the socket; a unit test scripts it), runs the look timer,
/// and hands the channel the frames to let go (`release`).
final class DeliveryMonitor {
    private(set) var account = DeliveryAccount()
    let kernel: KernelQueue
    private let scheduler: TimerScheduling
    private var lookTimer: EventLoop.TimerID?
    private var ended = false
    /// Bytes read from the peer so far (the channel counts them).
    var bytesRead = 0
    /// Whether the input may be looked at now: the channel reads, is not
    /// in the middle of a read, and no frame is under way.
    var canLookAtInput: () -> Bool = { false }
    /// Input waits: the channel reads it at the next turn of the loop (poll
    /// may not announce what TLS holds).
    var readSoon: () -> Void = {}
    /// Frames the peer's TCP acknowledged, to let go (the client's copies).
    var release: (DeliveryAccount.Release) -> Void = { _ in }
    /// The wall clock the kernel's stamps are on (a test sets its own).
    var wallClock: () -> Int64 = wallClockNanos

    init(kernel: KernelQueue, scheduler: TimerScheduling) {
        self.kernel = kernel
        self.scheduler = scheduler
    }

    /// The connection starts carrying frames. `stamps`: the kernel's stamps
    /// are wanted (not through a proxy, whose TCP is no server's).
    func start(stamps: Bool = true) {
        if kernel.start(stamps: stamps) { account.startExact() }
        sampleWindow()
    }

    /// The kernel stamps acknowledgements (POLLERR says when some wait).
    var exact: Bool { account.exact }

    // MARK: writing

    /// The transport wrote `count` bytes of frames.
    @inline(__always)
    func wrote(_ count: Int) {
        let actions = account.wrote(count, transportTotal: kernel.bytesWritten)
        if !actions.isEmpty { perform(actions) }
    }

    /// The transport wrote bytes that are no frame (the server's 101).
    func wrotePreamble() {
        account.wrotePreamble(transportTotal: kernel.bytesWritten)
    }

    /// The channel stopped writing and reading.
    func stopped() {
        perform(account.stopped(now: scheduler.nowNanos, bytesRead: bytesRead))
    }

    /// Asks the kernel what was acknowledged and lets those frames go,
    /// without waiting for the next write to ask.
    func releaseAcknowledged() {
        guard !ended else { return }
        ask(release: true)
    }

    // MARK: reading

    /// A read brought bytes: when did the last of them arrive.
    @inline(__always)
    func arrived() {
        if account.exact { account.arrived(kernel.lastArrival) }
    }

    /// Bytes read before the connection started (with the handshake's
    /// response): when they arrived is not known, and no look saw them.
    func arrivedUnstamped() {
        account.arrivedBeforeStart()
    }

    /// Before the read's bytes are handled.
    @inline(__always)
    func readBegins() {
        account.readBegins()
    }

    /// The read was handled (`DeliveryAccount.readEnded`). A sign of life in
    /// it is credited with what the kernel says was acknowledged before it
    /// arrived, and the peer's window says how much of that it read.
    func readEnded(endsBetweenMessages: Bool, peerGone: Bool) {
        if account.spoke && !peerGone && account.written > 0 {
            if account.exact { _ = kernel.takeAcknowledgements { account.acknowledgedAt(transport: $0, nanos: $1) } }
            if account.wantsConfirmation { sampleWindow() }
        }
        account.readEnded(endsBetweenMessages: endsBetweenMessages, peerGone: peerGone)
    }

    /// poll(2) said POLLERR: with stamps, that is most often acknowledgements
    /// waiting in the error queue. True when there were some (else the
    /// error is the socket's own).
    func errorQueueReady() -> Bool {
        guard account.exact, !ended else { return false }
        let count = kernel.takeAcknowledgements { account.acknowledgedAt(transport: $0, nanos: $1) }
        guard count > 0 else { return false }
        sampleWindow()
        // While arrivals come unstamped, a look now gives the next read a
        // floor after these acknowledgements.
        lookAtInput()
        return true
    }

    // MARK: the end

    /// The connection is over: what the kernel still held is noted (asked
    /// before the socket closes).
    func end() {
        guard !ended else { return }
        ended = true
        if let lookTimer { scheduler.cancel(lookTimer) }
        lookTimer = nil
        if account.exact { _ = kernel.takeAcknowledgements { account.acknowledgedAt(transport: $0, nanos: $1) } }
        account.ended(unacknowledged: kernel.unacknowledgedBytes(), transportTotal: kernel.bytesWritten)
    }

    /// Changes the account (the channel's frames: recorded, pings, the end).
    @inline(__always)
    func update<R>(_ body: (inout DeliveryAccount) -> R) -> R {
        body(&account)
    }

    // MARK: performing

    private func perform(_ actions: DeliveryAccount.Actions) {
        if actions.contains(.release) {
            ask(release: true)
        } else if actions.contains(.askKernel) {
            ask(release: false)
        }
        if actions.contains(.lookAtInput) { lookAtInput() }
        if actions.contains(.armLookTimer) { armLookTimer() }
    }

    private func ask(release: Bool) {
        guard let unacknowledged = kernel.unacknowledgedBytes() else { return }
        let freed = account.kernelHolds(unacknowledged, transportTotal: kernel.bytesWritten, now: scheduler.nowNanos,
                                        bytesRead: bytesRead, release: release)
        // Without stamps the window is followed here too, so that its largest is seen.
        if !account.exact { sampleWindow() }
        if let freed { self.release(freed) }
    }

    private func sampleWindow() {
        guard let (acknowledged, window) = kernel.receiveWindow() else { return }
        account.window(acknowledgedTransport: acknowledged, window: window)
    }

    /// Every input read already: a later sign of life confirms what was
    /// acknowledged. Input waiting is read soon instead.
    private func lookAtInput() {
        guard account.wantsLook, canLookAtInput() else { return }
        // Stamps are missing: what is read after the look arrived after the
        // clock read before it.
        let now = account.exact ? wallClock() : 0
        if kernel.holdsUnreadInput { return readSoon() }
        account.inputSeenEmpty(wallClock: now)
    }

    private func armLookTimer() {
        guard lookTimer == nil, !ended else { return }
        lookTimer = scheduler.schedule(afterNanos: account.lookInterval) { [weak self] in self?.lookTimerFired() }
    }

    private func lookTimerFired() {
        lookTimer = nil
        guard !ended else { return }
        ask(release: false)
        perform(account.lookTimerFired())
    }
}
