#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One poll(2) loop with timers. Single-threaded. Handlers run on the loop.
///
/// poll rather than epoll/kqueue: stdin may be a regular file, which epoll
/// rejects, and poll is the same on Linux and macOS. With a handful of fds the
/// O(n) scan costs nothing. The pollfd array is rebuilt only when fds are
/// added or removed, so an iteration allocates nothing.
///
/// Except for character devices where poll cannot wait for them: macOS's
/// poll reports POLLNVAL for a terminal (or /dev/null). There the loop waits
/// with select(2) (`selectsCharacterDevices`, `EventLoop+Select.swift`).
/// Linux's poll handles them, and select is used there only when forced
/// (`WSPIPE_SELECT_TTYS=1`), so that the path a Mac runs is tested here.
public final class EventLoop {
    public struct Interest: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let read = Interest(rawValue: 1)
        public static let write = Interest(rawValue: 2)
    }

    public struct Readiness: OptionSet, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let readable = Readiness(rawValue: 1)
        public static let writable = Readiness(rawValue: 2)
        /// POLLHUP: the peer hung up (a pipe's writer closed). Read to drain and see EOF.
        public static let hangup = Readiness(rawValue: 4)
        /// POLLERR or POLLNVAL (the fd was closed while still watched).
        public static let error = Readiness(rawValue: 8)
    }

    public struct TimerID: Hashable, Sendable {
        let raw: UInt64
        public init(raw: UInt64) { self.raw = raw }
    }

    /// One registration per fd, indexed by fd number. `serial` is unique per
    /// watch() call (0 = free), which tells a stale poll result apart from a
    /// new registration that reused the fd number within the same round.
    private struct Slot {
        var serial: UInt64 = 0
        var interest: Interest = []
        var handler: ((Readiness) -> Void)? = nil
        var pollIndex = -1
        /// A character device waited for with select(2).
        var viaSelect = false
    }

    private var slots: [Slot] = []
    private var pollfds: [pollfd] = []
    private var pollSerials: [UInt64] = []   // serial of each pollfds entry when built
    /// The character devices watched through select(2), in fd order.
    var selectFDs: [(fd: Int32, serial: UInt64)] = []
    private var dirty = false
    private var nextSerial: UInt64 = 1
    private var timers = TimerQueue()
    private var stopped = false

    /// Set when poll(2) itself fails (not EINTR); run() then returns.
    public private(set) var failure: TransportError?

    /// Character devices are waited for with select(2) instead of poll(2).
    public let selectsCharacterDevices: Bool
    /// Rounds waited with select(2) (for the tests: the fallback did run).
    public private(set) var selectWaits = 0

    public init(selectsCharacterDevices: Bool = EventLoop.selectsCharacterDevicesHere) {
        self.selectsCharacterDevices = selectsCharacterDevices
    }

    /// Where poll(2) cannot wait for a terminal (macOS, and the other BSDs'
    /// kernels it comes from), or where `WSPIPE_SELECT_TTYS=1` asks for the
    /// fallback (a test of it on Linux).
    public static var selectsCharacterDevicesHere: Bool {
        #if os(Linux)
        return ProcessEnvironment.variable("WSPIPE_SELECT_TTYS") == "1"
        #else
        return true
        #endif
    }
}

extension EventLoop {
    /// Watch fd; replaces a previous registration. Regular files are always ready (poll semantics).
    /// `.hangup` and `.error` are delivered whatever the interest, even [].
    public func watch(_ fd: Int32, _ interest: Interest, _ handler: @escaping (Readiness) -> Void) {
        precondition(fd >= 0, "EventLoop.watch: negative fd")
        let i = Int(fd)
        if i >= slots.count { slots.append(contentsOf: repeatElement(Slot(), count: i + 1 - slots.count)) }
        let viaSelect = selectsCharacterDevices && FD.status(fd)?.kind == .characterDevice
        slots[i] = Slot(serial: nextSerial, interest: interest, handler: handler, viaSelect: viaSelect)
        nextSerial &+= 1
        dirty = true
    }

    /// [] = keep registered, poll nothing. Cheap: patches the pollfd in place.
    public func setInterest(_ fd: Int32, _ interest: Interest) {
        let i = Int(fd)
        guard i >= 0, i < slots.count, slots[i].serial != 0 else { return }
        slots[i].interest = interest
        let p = slots[i].pollIndex
        if !dirty && p >= 0 && !slots[i].viaSelect { pollfds[p].events = EventLoop.events(for: interest) }
    }

    /// Forget fd. Safe from any handler, including the fd's own: a pending
    /// result for it in the current round is dropped.
    public func unwatch(_ fd: Int32) {
        let i = Int(fd)
        guard i >= 0, i < slots.count, slots[i].serial != 0 else { return }
        slots[i] = Slot()
        dirty = true
    }

    /// Runs `callback` on the loop once, no earlier than `afterNanos` from now.
    @discardableResult
    public func schedule(afterNanos: Int64, _ callback: @escaping () -> Void) -> TimerID {
        // Saturating: a wrapped sum would be in the past and fire at once.
        let (sum, overflow) = monotonicNanos().addingReportingOverflow(max(0, afterNanos))
        let deadline = overflow ? Int64.max : sum
        return TimerID(raw: timers.schedule(deadline: deadline, callback))
    }

    /// Cancelling a fired or unknown timer is a no-op.
    public func cancel(_ timer: TimerID) {
        timers.cancel(timer.raw)
    }

    /// Makes run() return once the current handler returns; handlers still
    /// pending in the same round are not called. A stop() before run() makes
    /// the next run() return at once.
    public func stop() {
        stopped = true
    }
}

extension EventLoop {
    /// Runs until stop() is called. Handlers may watch/unwatch/schedule freely,
    /// including unwatching the fd being handled. Also returns when nothing is
    /// left to wait for (no fd watched, no timer pending), since poll would
    /// then sleep forever, or when poll(2) fails (see `failure`).
    public func run() {
        defer { stopped = false }
        while !stopped {
            if dirty { rebuild() }
            if pollfds.isEmpty && selectFDs.isEmpty && timers.isEmpty { return }
            let timeout = pollTimeout()
            if !selectFDs.isEmpty {
                guard waitWithSelect(timeoutMillis: timeout) else { return }
                fireDueTimers()
                continue
            }
            let n = pollfds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
            if n < 0 {
                let e = currentErrno()
                if e == EINTR || e == EAGAIN { continue }
                failure = .posix("poll", errno: e)
                return
            }
            if n > 0 { dispatchReady() }
            fireDueTimers()
        }
    }

    /// Milliseconds until the next timer, rounded up so we never wake early
    /// and spin; -1 (forever) without timers.
    private func pollTimeout() -> Int32 {
        guard let deadline = timers.nextDeadline() else { return -1 }
        let delta = deadline - monotonicNanos()
        if delta <= 0 { return 0 }
        let millis = delta / 1_000_000 + (delta % 1_000_000 == 0 ? 0 : 1)   // no sum near Int64.max
        return Int32(min(millis, Int64(Int32.max)))
    }

    func dispatchReady() {
        for k in 0..<pollfds.count {
            if stopped { return }
            let p = pollfds[k]
            if p.revents == 0 { continue }
            let i = Int(p.fd)
            // Unwatched (or unwatched and re-watched) earlier in this round.
            guard i < slots.count, slots[i].serial == pollSerials[k], let handler = slots[i].handler else { continue }
            let ready = EventLoop.readiness(p.revents, slots[i].interest)
            if !ready.isEmpty { handler(ready) }
        }
    }

    func fireDueTimers() {
        let now = monotonicNanos()
        while !stopped, let callback = timers.popDue(now: now) { callback() }
    }

    /// Lists every registered fd, in fd order. Interest [] stays in the array
    /// with events 0 so POLLHUP/POLLERR are still reported for it. A
    /// character device waited for with select(2) goes to `selectFDs`.
    private func rebuild() {
        pollfds.removeAll(keepingCapacity: true)
        pollSerials.removeAll(keepingCapacity: true)
        selectFDs.removeAll(keepingCapacity: true)
        for i in slots.indices {
            guard slots[i].serial != 0 else { slots[i].pollIndex = -1; continue }
            if slots[i].viaSelect {
                slots[i].pollIndex = -1
                selectFDs.append((Int32(i), slots[i].serial))
                continue
            }
            slots[i].pollIndex = pollfds.count
            pollfds.append(pollfd(fd: Int32(i), events: EventLoop.events(for: slots[i].interest), revents: 0))
            pollSerials.append(slots[i].serial)
        }
        dirty = false
    }

    /// The watched slot of `fd` as registered with `serial`, or nil when it
    /// was unwatched (or watched again) since.
    func slot(_ fd: Int32, serial: UInt64) -> (interest: Interest, handler: (Readiness) -> Void)? {
        let i = Int(fd)
        guard i < slots.count, slots[i].serial == serial, let handler = slots[i].handler else { return nil }
        return (slots[i].interest, handler)
    }

    /// Interest of every fd poll(2) watches, for the select(2) wait.
    var pollInterests: [(fd: Int32, interest: Interest)] {
        pollfds.map { ($0.fd, slots[Int($0.fd)].interest) }
    }

    /// poll(2) without waiting: the exact readiness of the fds it watches
    /// (hang-ups and errors too), after select(2) said something is ready.
    func pollNow() -> Int32 {
        pollfds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 0) }
    }

    func countSelectWait() { selectWaits += 1 }

    var isStopped: Bool { stopped }

    func fail(_ error: TransportError) { failure = error }

    private static func events(for interest: Interest) -> Int16 {
        var e: Int16 = 0
        if interest.contains(.read) { e |= Int16(POLLIN) }
        if interest.contains(.write) { e |= Int16(POLLOUT) }
        return e
    }

    /// Read/write readiness only for what is still of interest (a handler may
    /// have changed it earlier in the round); hangup and error always.
    private static func readiness(_ revents: Int16, _ interest: Interest) -> Readiness {
        var r: Readiness = []
        if revents & Int16(POLLIN) != 0 && interest.contains(.read) { r.insert(.readable) }
        if revents & Int16(POLLOUT) != 0 && interest.contains(.write) { r.insert(.writable) }
        if revents & Int16(POLLHUP) != 0 { r.insert(.hangup) }
        if revents & Int16(POLLERR | POLLNVAL) != 0 { r.insert(.error) }
        return r
    }
}
