import WSTerminal
import WSMessages
/// Where `--events` lines go (wspipe(1): OPTIONS, Diagnostics): stderr, one JSON line each, written
/// at once so they interleave correctly with `wspipe: ...` notices.
/// Events quote peers (reasons, peers' addresses): what a terminal would act
/// on is written as a JSON escape (`TerminalEscaping`, JSON), which keeps
/// each event the same JSON value wherever it goes.
public final class EventSink {
    public let enabled: Bool
    private let fd: Int32

    /// With routing, events go where `--route '$event=...'` says (stderr by default).
    var destination: Destination?
    /// Interactive mode, when the events' destination is the terminal: each
    /// line goes here, to be shown above the prompt.
    var divert: (([UInt8]) -> Void)?
    /// --record: every event, whether or not --events is on.
    var recorder: (([UInt8]) -> Void)?

    public init(enabled: Bool, fd: Int32 = 2) {
        self.enabled = enabled
        self.fd = fd
    }

    /// `make` only runs when events are on (or recorded), so building a line
    /// costs nothing otherwise. Each line gets its `time` here. `recorded`:
    /// false for what measures a message rather than the lifecycle (a reply's
    /// latency), which --record leaves out.
    func emit(_ make: @autoclosure () -> [UInt8], recorded: Bool = true) {
        guard enabled || (recorded && recorder != nil) else { return }
        let stamped = UTCTimestamp.stamping(make(), time: UTCTimestamp.now())
        if recorded { recorder?(stamped) }
        guard enabled else { return }
        let line = TerminalEscaping.escaped(stamped, in: .json)
        if let divert { return divert(line) }
        guard let destination else { return write(line) }
        destination.pending.append(contentsOf: line)
        destination.flush()
    }

    /// Writes a line whether or not events are on (the --stats summary).
    func write(_ line: [UInt8]) {
        line.withUnsafeBytes { Diagnostics.writeAll(fd, $0) }
    }
}
