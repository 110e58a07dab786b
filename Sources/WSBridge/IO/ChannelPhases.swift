/// `WebSocketChannel`'s read and write phases as a pure state machine:
/// events in, actions out (the pattern of `ClientLifecycle`); the channel
/// performs the actions with the loop.
///
///     read:  notStarted(pauses) ─start─▶ reading ⇄ paused(pauses) ─end─▶ ended
///     write: writing ─writeFailed─▶ failed ─end─▶ ended
///
/// A pause has reasons (the consumer's back-pressure, the channel's own
/// output above its high water); reading resumes when none is left. The
/// loop watches the socket from `start` until `end`; which directions it
/// polls follow the read phase and the output (`updateInterest`).
struct ChannelPhases {
    /// Why the socket is not read.
    struct Pauses: OptionSet, Equatable {
        let rawValue: UInt8
        /// The consumer is behind (`setReadPaused`).
        static let consumer = Pauses(rawValue: 1)
        /// The channel's output is above its high water: a peer that does not
        /// read what is queued for it is not read either.
        static let output = Pauses(rawValue: 2)
    }

    /// Plain cases (the reasons are `pauses`): the per-message checks
    /// (`ended`, `isOpen`) are one compare each.
    enum Read: Equatable {
        /// Before `start`: not watched; pauses asked for already count.
        case notStarted
        case reading
        case paused
        case ended
    }

    enum Write: Equatable {
        case writing
        /// A write failed: nothing more is written while what the peer sent
        /// before is read.
        case failed
        case ended
    }

    enum Event: Equatable {
        case start
        case pause(Pauses)
        case resume(Pauses)
        case writeFailed
        case end
    }

    struct Actions: OptionSet, Equatable {
        let rawValue: UInt8
        static let watch = Actions(rawValue: 1)
        /// The directions polled may have changed.
        static let updateInterest = Actions(rawValue: 2)
        static let unwatch = Actions(rawValue: 4)
    }

    private(set) var read = Read.notStarted
    private(set) var write = Write.writing
    /// Why reading is stopped (empty while reading, and once ended).
    private(set) var pauses: Pauses = []

    var ended: Bool { read == .ended }
    /// The loop watches the socket.
    var watched: Bool { read == .reading || read == .paused }
    var readingStopped: Bool { !pauses.isEmpty }

    mutating func handle(_ event: Event) -> Actions {
        switch (read, event) {
        case (.ended, _):
            return []
        case (.notStarted, .start):
            read = pauses.isEmpty ? .reading : .paused
            return .watch
        case (_, .start):
            return []
        case (_, .pause(let more)):
            return setPauses(pauses.union(more))
        case (_, .resume(let fewer)):
            return setPauses(pauses.subtracting(fewer))
        case (_, .writeFailed):
            write = .failed
            return []
        case (let was, .end):
            read = .ended
            write = .ended
            pauses = []
            return was == .notStarted ? [] : .unwatch
        }
    }

    private mutating func setPauses(_ next: Pauses) -> Actions {
        guard next != pauses else { return [] }
        pauses = next
        if read != .notStarted { read = next.isEmpty ? .reading : .paused }
        return .updateInterest
    }
}
