/// Happy Eyeballs (RFC 8305) as a pure state machine: the order in which a
/// name's addresses are tried, and when the next attempt starts. The
/// connector (`TCPConnector`) feeds it what its sockets report and performs
/// the actions; no sockets or timers here.
///
/// §4: the addresses alternate between the families, starting with the
/// family of the first one getaddrinfo gave (RFC 6724 puts a usable IPv6
/// first). §5: an attempt gets a head start of `attemptDelayNanos` (250 ms,
/// the recommended Connection Attempt Delay) before the next one starts
/// beside it; an attempt that fails starts the next one at once; the first
/// to connect wins and the others are abandoned. The caller's deadline
/// (--connect-timeout) bounds the whole race.
struct ConnectionRace: PhaseMachine {
    static let attemptDelayNanos: Int64 = 250_000_000

    enum Event: Equatable {
        case start
        /// The attempt at this position of `order` failed (refused, unreachable).
        case attemptFailed(Int)
        case attemptConnected(Int)
        /// The head start of the latest attempt is over.
        case delayElapsed
    }

    enum Action: Equatable {
        /// Open a socket to the address at this position and connect.
        case startAttempt(Int)
        /// Start (or restart) the one delay timer.
        case armDelay(Int64)
        case cancelDelay
        /// Close this attempt's socket: another one won.
        case abandon(Int)
        /// This attempt's socket is the connection.
        case won(Int)
        /// Every attempt failed.
        case lost
    }

    enum Phase: Equatable {
        case idle
        /// `inFlight`: positions still connecting; `next`: the next position to try.
        case racing(inFlight: [Int], next: Int)
        case done
    }

    /// How many addresses there are to try.
    let count: Int
    private(set) var phase = Phase.idle

    init(count: Int) { self.count = count }

    /// The head start's delay is an action (`armDelay`), restarted within a
    /// phase, not a timer of the phase.
    var timerNanos: Int64? { nil }

    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.idle, .start):
            guard count > 0 else { phase = .done; return [.lost] }
            return launch(next: 0, inFlight: [])
        case (.racing(let inFlight, let next), .delayElapsed):
            guard next < count else { return [] }
            return launch(next: next, inFlight: inFlight)
        case (.racing(var inFlight, let next), .attemptFailed(let position)):
            inFlight.removeAll { $0 == position }
            if next < count { return [.cancelDelay] + launch(next: next, inFlight: inFlight) }
            if inFlight.isEmpty { phase = .done; return [.cancelDelay, .lost] }
            phase = .racing(inFlight: inFlight, next: next)
            return []
        case (.racing(let inFlight, _), .attemptConnected(let position)):
            phase = .done
            return [.cancelDelay] + inFlight.filter { $0 != position }.map(Action.abandon) + [.won(position)]
        default:
            return []
        }
    }

    /// Starts the attempt at `next`, with a head start before the one after it.
    private mutating func launch(next: Int, inFlight: [Int]) -> [Action] {
        phase = .racing(inFlight: inFlight + [next], next: next + 1)
        var actions: [Action] = [.startAttempt(next)]
        if next + 1 < count { actions.append(.armDelay(Self.attemptDelayNanos)) }
        return actions
    }

    /// §4: the positions of `families` (one value per address, in
    /// getaddrinfo's order) in the order to try them: the first address's
    /// family, then the other, alternating while both last.
    static func order<Family: Equatable>(_ families: [Family]) -> [Int] {
        guard let first = families.first else { return [] }
        let preferred = families.indices.filter { families[$0] == first }
        let other = families.indices.filter { families[$0] != first }
        var order: [Int] = []
        for i in 0..<max(preferred.count, other.count) {
            if i < preferred.count { order.append(preferred[i]) }
            if i < other.count { order.append(other[i]) }
        }
        return order
    }
}
