import WSTransport

/// One output stream on the event loop: a buffered, non-blocking writer for an fd
/// (stdout, stderr, fd:N, a file opened O_APPEND|O_CREAT 0644, the stdin pipe of a
/// `sh -c COMMAND` child started with posix_spawn), or a sink that drops.
///
/// The formatter appends complete lines to `pending`; `flush()` writes as much
/// as the fd takes and waits for writability through the loop for the rest, so
/// a slow reader never blocks the loop (which also serves the socket). Pipes
/// and sockets are non-blocking; regular files and ttys are written blocking,
/// which poll(2) treats as always ready anyway.
///
/// Back-pressure has hysteresis: `isBackedUp` turns true above the high water
/// and stays true until the backlog falls below the low water, when
/// `onDrained` runs, so the producer does not pause and resume per write.
/// Its phase (open, waiting for writability, failed, finished) and that
/// hysteresis are `DestinationPhases`, a pure machine this class feeds; its
/// callbacks follow the re-entrancy rule of Sources/README.md.
public final class Destination {
    /// As the user wrote it: "stdout", "fd:3", "/tmp/x.log", "|jq -c .".
    public let name: String
    public let spec: DestinationSpec
    /// Lines to write start at `offset`. Append complete lines only, and never
    /// remove bytes: the written prefix is dropped by the destination itself.
    public var pending: [UInt8] = []
    private var offset = 0
    /// Above this many unwritten bytes the producer should pause.
    public var highWater: Int { phases.highWater }
    /// Below this many, a backed-up destination counts as drained again.
    public var lowWater: Int { phases.lowWater }
    /// Set when a write failed; everything pending and appended later is dropped.
    public var failed: Bool { phases.hasFailed }
    /// Why it failed: "command exited", "closed", "disk full", "bad file descriptor"
    /// or the strerror text.
    public private(set) var failureReason: String?
    /// Runs once, when a backed-up destination drains below the low water (or fails).
    public var onDrained: (() -> Void)?
    /// Runs once, on the first failed write, with the reason.
    public var onFailure: ((Destination, String) -> Void)?
    /// A terminal (stdout, stderr, fd:N or a file such as /dev/tty): peer text
    /// is escaped on its way there (`TerminalEscaping`); into a pipe or a
    /// file it goes exact.
    public let isTerminal: Bool
    /// Runs when a flush has written everything (or the destination failed).
    /// Only set for the final drain, so the session path pays nothing for it.
    var onEmptied: (() -> Void)?
    /// The byte that ends each line (message) appended: newline, NUL with
    /// -0, nil with --no-line (then lines are not counted).
    public var lineSeparator: UInt8? = 10
    /// Lines dropped without being written in full: pending when it failed
    /// or was abandoned, or appended after it failed (wspipe(1): ROUTING).
    public private(set) var droppedLines = 0
    /// Bytes of the line being written that are out already (its separator
    /// is not): what a failed file has to lose to end on a whole line.
    private var partialLineBytes = 0

    private let target: Target
    private let loop: EventLoop?
    private var phases: DestinationPhases

    /// What the bytes go to, and what finish() must release.
    enum Target {
        case drop
        /// An fd we did not open (stdout, stderr, fd:N): never closed by us.
        case borrowed(Int32)
        /// A file we opened; closed by finish().
        case owned(Int32)
        case command(Subprocess)
    }

    /// A writer for an fd wspipe inherited (stdout, stderr, fd:N); pipes and
    /// sockets are made non-blocking with StdioMode (restored at exit).
    public convenience init(name: String, fd: Int32, loop: EventLoop,
                            highWater: Int = 4 << 20, lowWater: Int = 1 << 20) {
        StdioMode.prepare(fd)
        let spec: DestinationSpec = fd == 1 ? .stdout : fd == 2 ? .stderr : .fd(fd)
        self.init(name: name, spec: spec, target: .borrowed(fd), loop: loop,
                  highWater: highWater, lowWater: lowWater)
    }

    /// A sink that accepts and discards every line.
    public convenience init(droppingAs name: String = "drop") {
        self.init(name: name, spec: .drop, target: .drop, loop: nil, highWater: Int.max, lowWater: 0)
    }

    init(name: String, spec: DestinationSpec, target: Target, loop: EventLoop?,
         highWater: Int = 4 << 20, lowWater: Int = 1 << 20) {
        self.name = name
        self.spec = spec
        self.target = target
        self.loop = loop
        phases = DestinationPhases(highWater: highWater, lowWater: lowWater)
        switch target {
        case .borrowed(let fd), .owned(let fd): isTerminal = StdioMode.isTerminal(fd)
        case .drop, .command: isTerminal = false
        }
        if case .drop = target { return }
        pending.reserveCapacity(64 << 10)
    }

    deinit {
        if phases.isWaiting, let fd = fd { loop?.unwatch(fd) }
        if case .owned(let fd) = target, !phases.isFinished { FD.close(fd) }
    }

    /// The fd written to; nil for a drop sink or once finish() closed it.
    public var fd: Int32? {
        switch target {
        case .drop: return nil
        case .borrowed(let fd): return fd
        case .owned(let fd): return phases.isFinished ? nil : fd
        case .command(let process): return process.inputFD >= 0 ? process.inputFD : nil
        }
    }

    /// True for `drop`: the session may skip formatting lines for it.
    public var discards: Bool {
        if case .drop = target { return true }
        return false
    }

    /// The pid of a `|COMMAND` route's child.
    public var commandPID: Int32? {
        if case .command(let process) = target { return process.pid }
        return nil
    }

    /// A `|COMMAND` child's exit code once finish() reaped it (nil before, or
    /// when it was killed by a signal).
    public var commandExitCode: Int32? {
        if case .command(let process) = target { return process.exitCode }
        return nil
    }

    public var unwrittenBytes: Int { pending.count &- offset }
    public var isEmpty: Bool { pending.count == offset }

    /// Unwritten bytes above the high water, or still above the low water since then.
    public var isBackedUp: Bool { phases.isBackedUp(unwritten: pending.count &- offset) }

    /// Non-blocking: writes what the fd takes now, and asks the loop for
    /// writability when bytes remain. A failed write marks the destination
    /// failed and reports it once through `onFailure`.
    public func flush() {
        if pending.count == offset {
            apply(.emptied)   // a watched fd with nothing to write would spin on POLLERR
            return
        }
        guard let fd = fd, !failed else { discardPending(); return }
        _ = phases.isBackedUp(unwritten: pending.count &- offset)
        while offset < pending.count {
            let result = pending.withUnsafeBytes { all in
                FD.write(fd, UnsafeRawBufferPointer(rebasing: all[offset...]))
            }
            switch result {
            case .bytes(let n) where n > 0:
                notePartialLine(written: n)
                offset &+= n
            case .bytes, .wouldBlock:
                waitForWritable(fd)
                checkDrained()
                return
            case .eof:
                fail("closed")
                return
            case .error(let error):
                fail(reason(for: error))
                return
            }
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 4 << 20)
        offset = 0
        apply(.emptied)
        checkDrained()
        onEmptied?()
    }

    /// Appends one whole line: `line` and its `terminator`.
    @inline(__always)
    func appendLine(_ line: UnsafeRawBufferPointer, terminator: UInt8) {
        pending.append(contentsOf: line.assumingMemoryBound(to: UInt8.self))
        pending.append(terminator)
    }

    /// Lines at least this long may be written from where they are
    /// (`writeThrough`) rather than copied into `pending` first. Shorter
    /// ones are batched: one write(2) for many lines costs less than the copies.
    static let writeThroughSize = 64 << 10

    /// Writes `line` and its `terminator` straight from the caller's bytes
    /// when nothing is waiting before them, saving the copy into `pending`
    /// (for a 1 MiB message, a pass over 1 MiB). What the fd does not take
    /// now is copied into `pending` as usual. False when it wrote nothing
    /// (lines are waiting, the fd would block or failed): the caller appends
    /// the line to `pending`, and the next flush reports any failure.
    /// It never flushes: a flush may run `onDrained`, which resumes reading
    /// into the buffer the message being delivered is still in.
    func writeThrough(_ line: UnsafeRawBufferPointer, terminator: UInt8?) -> Bool {
        guard pending.count == offset, !failed, let fd else { return false }
        var end = terminator ?? 0
        let result = withUnsafeBytes(of: &end) { tail in
            FD.write(fd, line, UnsafeRawBufferPointer(rebasing: tail[..<(terminator == nil ? 0 : 1)]))
        }
        guard case .bytes(let written) = result, written > 0 else { return false }
        partialLineBytes = written > line.count ? 0 : partialLineBytes + written
        if written < line.count {
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[written...]))
        }
        if let terminator, written <= line.count { pending.append(terminator) }
        return true
    }

    /// Blocking: writes everything pending (waiting in poll(2) for a full
    /// pipe), then releases the destination: closes a file we opened, closes
    /// a command's stdin and, with `waitForCommand`, waits for the command to
    /// exit so its output is complete. Inherited fds stay open. Idempotent;
    /// later lines are dropped.
    public func finish(waitForCommand: Bool = true) {
        if !phases.isFinished {
            writeAllBlocking()
            apply(.finish)
            discardPending()
            switch target {
            case .owned(let fd): FD.close(fd)
            case .command(let process): process.closeInput()
            case .drop, .borrowed: break
            }
        }
        if waitForCommand { reap() }
    }

    /// Waits for a `|COMMAND` child to exit. Separate from finish() so that
    /// RouteTable closes every pipe before it waits for any child.
    func reap() {
        if case .command(let process) = target { process.wait() }
    }

    /// Blocking: writes what is pending (the end of a run, off the loop),
    /// without finishing the destination.
    func writePendingBlocking() {
        writeAllBlocking()
    }

    private func writeAllBlocking() {
        guard let fd = fd else { return }
        while true {
            flush()
            if failed || isEmpty { break }
            // The fd took all it could: wait until it takes more (or reports an
            // error, which the next write turns into a failure).
            FD.waitUntilReady(fd, .write)
        }
    }

    private func waitForWritable(_ fd: Int32) {
        // Drop the written prefix once it dominates, so a long backlog does not
        // keep every byte ever written alive.
        if offset > 1 << 20 && offset > pending.count / 2 {
            pending.removeFirst(offset)
            offset = 0
        }
        apply(.blocked)
    }

    /// Feeds the phase machine and performs what it answers: the loop
    /// watches the fd exactly while the destination waits for writability.
    /// (The fd is read before the event: a finished file has none after.)
    private func apply(_ event: DestinationPhases.Event) {
        let fd = self.fd
        let actions = phases.handle(event)
        guard let fd, let loop else { return }
        if actions.contains(.unwatch) { loop.unwatch(fd) }
        if actions.contains(.watch) { loop.watch(fd, .write) { [weak self] _ in self?.flush() } }
    }

    private func checkDrained() {
        if phases.drained(unwritten: pending.count &- offset) { onDrained?() }
    }

    private func discardPending() {
        droppedLines += linesPending
        // Keep a small buffer: a session may still append to a failed destination.
        pending.removeAll(keepingCapacity: pending.capacity <= 64 << 10)
        offset = 0
    }

    /// Lines not written in full (a line written in part counts).
    private var linesPending: Int {
        guard let separator = lineSeparator, offset < pending.count else { return 0 }
        var count = 0
        for byte in pending[offset...] where byte == separator { count += 1 }
        return count
    }

    /// `written` bytes from `offset` went out: how much of the line being
    /// written is out now.
    private func notePartialLine(written: Int) {
        guard let separator = lineSeparator else { return }
        var index = offset &+ written
        while index > offset {
            index &-= 1
            if pending[index] == separator { partialLineBytes = offset &+ written &- index &- 1; return }
        }
        partialLineBytes &+= written
    }

    /// A regular file that failed (a full disk) ends on a whole line: the
    /// part of the line being written that went out is cut off again, so
    /// that the file holds whole lines or nothing of a line (the route owns
    /// what it wrote; a file shared with another writer could lose that
    /// writer's bytes written after ours, which is why only the length of
    /// our own partial line is cut, from the end).
    private func endOnWholeLine() {
        guard partialLineBytes > 0, let fd else { return }
        guard let info = FD.status(fd), info.kind == .regular, info.size >= partialLineBytes else { return }
        if FD.truncate(fd, to: info.size - partialLineBytes) == nil { partialLineBytes = 0 }
    }

    private func fail(_ reason: String) {
        endOnWholeLine()
        apply(.writeFailed)
        failureReason = reason
        discardPending()
        onFailure?(self, reason)
        // Nothing is left to wait for: whoever paused for us may resume.
        checkDrained()
        onEmptied?()
    }

    /// The end of a run that cannot wait any longer: what is still unwritten
    /// is dropped. Returns how many bytes and lines that was.
    func abandonPending() -> (bytes: Int, lines: Int) {
        let bytes = unwrittenBytes
        let before = droppedLines
        apply(.emptied)
        discardPending()
        return (bytes, droppedLines - before)
    }

    /// A `|COMMAND` child that has not exited yet (reaped without waiting).
    var commandRunning: Bool {
        if case .command(let process) = target { return !process.reapIfExited() }
        return false
    }

    /// Asks a `|COMMAND` child still running to stop (SIGTERM to its process group).
    func stopCommand() {
        if case .command(let process) = target { process.send(.terminate) }
    }

    /// The `|COMMAND` child, for the route table's copies of its output.
    var command: Subprocess? {
        if case .command(let process) = target { return process }
        return nil
    }

    /// The user-facing reason for a failed write: the reader went away, the
    /// disk is full, or the strerror text.
    private func reason(for error: IOError) -> String {
        if error.isBrokenPipe {
            if case .command = target { return "command exited" }
            return "closed"
        }
        if error.isDiskFull { return "disk full" }
        if error.isBadDescriptor { return "bad file descriptor" }
        return error.reason
    }
}
