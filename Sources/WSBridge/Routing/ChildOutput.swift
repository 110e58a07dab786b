import WSTransport

/// What a child writes to the stdout or stderr it would have shared with
/// wspipe, when wspipe's is a pipe or a socket: the child got a pipe of its
/// own instead (`Subprocess`: no child gets a non-blocking descriptor), and
/// this copies it, on the loop, to wspipe's `Destination` for that fd. Whole
/// lines are appended, so a child's line never splits one of wspipe's (a
/// line longer than `maxLineBytes` goes in pieces); the rest at the end.
///
/// Back-pressure as for wspipe's own lines: while the destination is backed
/// up the pipe is not read, so the child blocks on it; `resume` reads again.
/// When the destination has failed (its reader is gone) the pipe is closed,
/// so the child gets EPIPE as it would have on the shared fd.
///
///     reading ─destination backed up─▶ paused ─resume─▶ reading
///        │ pumpBlocking (off the loop) ─▶ blocking
///        └ EOF, failure, the child reaped (the rest read) ─▶ finished   (from any phase)
final class ChildOutput {
    enum Stream { case output, errors }

    enum Phase: Equatable {
        /// Read when the loop says the pipe is readable.
        case reading
        /// Not read until the destination drains (`resume`).
        case paused
        /// Read by `pumpBlocking`, not by the loop.
        case blocking
        /// The pipe is closed.
        case finished
    }

    let process: Subprocess
    let destination: Destination
    private let stream: Stream
    private let loop: EventLoop?
    private(set) var phase = Phase.blocking
    /// The end of a line not yet complete.
    private var carry: [UInt8] = []

    static let maxLineBytes = 64 << 10

    /// Copies `process`'s `stream` pipe (which must exist) to `destination`,
    /// reading on `loop` (without one, only `pumpBlocking` reads it).
    init(_ stream: Stream, of process: Subprocess, to destination: Destination, loop: EventLoop?) {
        self.stream = stream
        self.process = process
        self.destination = destination
        self.loop = loop
        if loop != nil { enter(.reading) }
    }

    /// The pipe's read end; -1 once closed.
    var fd: Int32 { stream == .output ? process.outputFD : process.errorFD }

    var finished: Bool { phase == .finished }

    /// The destination drained below its low water: read again.
    func resume() {
        if phase == .paused { enter(.reading) }
    }

    /// The child has been reaped: what its pipe holds now is the rest (a
    /// process it left behind holding the pipe is not waited for), then the
    /// pipe is closed.
    func finishAfterExit() {
        guard phase != .finished else { return }
        while readOnce(ignoringBackPressure: true) {}
        enter(.finished)
    }

    /// One phase change, and what it means for the pipe: the loop watches
    /// it exactly while `reading`; `finished` closes it.
    private func enter(_ next: Phase) {
        let was = phase
        guard next != was else { return }
        phase = next
        if was == .reading, let loop, fd >= 0 { loop.unwatch(fd) }
        if next == .reading, let loop, fd >= 0 {
            loop.watch(fd, .read) { [unowned self] _ in
                while self.readOnce(ignoringBackPressure: false) {}
            }
        }
        if next == .finished { closePipe() }
    }

    /// Reads once; false when nothing more can be read now (would block,
    /// EOF, failure, or paused for back-pressure).
    private func readOnce(ignoringBackPressure: Bool) -> Bool {
        guard phase != .finished, fd >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        switch chunk.withUnsafeMutableBytes({ FD.read(fd, into: $0) }) {
        case .bytes(let n):
            carry.append(contentsOf: chunk[..<n])
            forwardCompleteLines(ignoringBackPressure: ignoringBackPressure)
            return phase != .finished && (ignoringBackPressure || phase != .paused)
        case .wouldBlock:
            return false
        case .eof, .error:
            enter(.finished)
            return false
        }
    }

    private func forwardCompleteLines(ignoringBackPressure: Bool) {
        var cut = carry.lastIndex(of: 10).map { $0 + 1 } ?? 0
        if cut == 0 && carry.count >= Self.maxLineBytes { cut = carry.count }
        guard cut > 0 else { return }
        destination.pending.append(contentsOf: carry[..<cut])
        carry.removeFirst(cut)
        if phase == .blocking { return }   // the blocking caller writes it out
        destination.flush()
        if destination.failed { return enter(.finished) }
        if !ignoringBackPressure && destination.isBackedUp { enter(.paused) }
    }

    /// The unfinished line goes as it is, and the pipe is closed.
    private func closePipe() {
        if !carry.isEmpty && !destination.failed {
            destination.pending.append(contentsOf: carry)
            destination.flush()
        }
        carry.removeAll()
        if stream == .output { process.closeOutput() } else { process.closeErrors() }
    }

    /// Off the loop, at the end of a run: copies what `relays` read until
    /// each has reached EOF or its child has exited (then the rest), writing
    /// their destinations out as it goes (blocking). A child is reaped here
    /// only if its pipe is still open when it exits; the caller waits for
    /// the others.
    static func pumpBlocking(_ relays: [ChildOutput]) {
        for relay in relays where relay.phase != .finished { relay.enter(.blocking) }
        while true {
            for relay in relays where relay.phase == .blocking && relay.process.reapIfExited() {
                relay.finishAfterExit()
            }
            let open = relays.filter { $0.phase == .blocking }
            for relay in relays { relay.destination.writePendingBlocking() }
            if open.isEmpty { break }
            for fd in FD.waitUntilReadable(open.map(\.fd), timeoutMillis: 50) {
                guard let relay = open.first(where: { $0.fd == fd }) else { continue }
                while relay.readOnce(ignoringBackPressure: true) {}
            }
        }
    }
}
