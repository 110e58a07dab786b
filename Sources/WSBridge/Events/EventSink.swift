/// Where `--events` lines go (wspipe(1): OPTIONS, Diagnostics): stderr, one JSON line each, written
/// at once so they interleave correctly with `wspipe: ...` notices.
public final class EventSink {
    public let enabled: Bool
    private let fd: Int32

    /// With routing, events go where `--route '$event=...'` says (stderr by default).
    var destination: Destination?
    /// Interactive mode, when the events' destination is the terminal: each
    /// line goes here, to be shown above the prompt.
    var divert: (([UInt8]) -> Void)?

    public init(enabled: Bool, fd: Int32 = 2) {
        self.enabled = enabled
        self.fd = fd
    }

    /// `make` only runs when events are on, so building a line costs nothing otherwise.
    func emit(_ make: @autoclosure () -> [UInt8]) {
        guard enabled else { return }
        if let divert { return divert(make()) }
        guard let destination else { return write(make()) }
        destination.pending.append(contentsOf: make())
        destination.flush()
    }

    /// Writes a line whether or not events are on (the --stats summary).
    func write(_ line: [UInt8]) {
        line.withUnsafeBytes { Diagnostics.writeAll(fd, $0) }
    }
}
