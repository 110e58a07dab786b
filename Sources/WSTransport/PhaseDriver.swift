/// A pure state machine of the kind every lifecycle and adapter has
/// (Sources/README.md, Adapters: phases and re-entrancy): events in, actions
/// out, its phase in one enum, and at most one timer per phase.
public protocol PhaseMachine {
    associatedtype Phase: Equatable
    associatedtype Event
    associatedtype Action
    var phase: Phase { get }
    /// The current phase's timer (nil: none). Armed by the driver when the
    /// phase changes, and nowhere else.
    var timerNanos: Int64? { get }
    mutating func handle(_ event: Event) -> [Action]
}

/// Feeds a `PhaseMachine` its events and performs its actions, on one
/// injected clock. It is the re-entrancy rule in code: an event raised while
/// the actions of another are being performed (a callee that stops, closes
/// or cancels) is queued and handed to the machine once that list is done,
/// because the list belongs to the phase already entered. It is also the one
/// place a machine's timer starts and stops: when the phase changes, or when
/// the owner asks (`restartTimer`, for a machine's restart action).
public final class PhaseDriver<Machine: PhaseMachine> {
    public private(set) var machine: Machine
    private let clock: any TimerScheduling
    private var timer: EventLoop.TimerID?
    private var pending: [Machine.Event] = []
    private var handling = false

    /// Performs one action (the owner's adapters).
    public var perform: (Machine.Action) -> Void = { _ in }
    /// The event the phase's timer raises when it fires, made then (it may
    /// carry what the owner knows at that moment).
    public var timerEvent: () -> Machine.Event
    /// Called just before a timer is armed (a timer that counts progress
    /// from now takes the count here).
    public var willArmTimer: () -> Void = {}
    /// The phase changed from the one given, before the event's actions run.
    public var phaseChanged: (_ from: Machine.Phase) -> Void = { _ in }

    public init(_ machine: Machine, clock: any TimerScheduling, timerEvent: @escaping () -> Machine.Event) {
        self.machine = machine
        self.clock = clock
        self.timerEvent = timerEvent
    }

    /// The machine's phase (read without copying the machine).
    public var phase: Machine.Phase { machine.phase }

    /// Hands `event` to the machine and performs its actions; from inside an
    /// action, queues it behind the events already waiting.
    public func handle(_ event: Machine.Event) {
        pending.append(event)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !pending.isEmpty {
            let before = machine.phase
            let actions = machine.handle(pending.removeFirst())
            if machine.phase != before {
                restartTimer()
                phaseChanged(before)
            }
            for action in actions { perform(action) }
        }
    }

    /// Cancels the phase's timer and arms it again from now (nothing when
    /// the phase has none).
    public func restartTimer() {
        if let timer { clock.cancel(timer) }
        timer = nil
        willArmTimer()
        guard let nanos = machine.timerNanos else { return }
        timer = clock.schedule(afterNanos: nanos) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.handle(self.timerEvent())
        }
    }
}
