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
final class ChildOutput {
    enum Stream { case output, errors }

    let process: Subprocess
    let destination: Destination
    private let stream: Stream
    private let loop: EventLoop?
    /// The end of a line not yet complete.
    private var carry: [UInt8] = []
    private var watching = false
    private var paused = false
    /// EOF, a failed read or destination, or the rest taken after the child's exit.
    private(set) var finished = false

    static let maxLineBytes = 64 << 10

    /// Copies `process`'s `stream` pipe (which must exist) to `destination`;
    /// reads on `loop` when given (a blocking caller uses `pumpBlocking`).
    init(_ stream: Stream, of process: Subprocess, to destination: Destination, loop: EventLoop?) {
        self.stream = stream
        self.process = process
        self.destination = destination
        self.loop = loop
        watch()
    }

    /// The pipe's read end; -1 once closed.
    var fd: Int32 { stream == .output ? process.outputFD : process.errorFD }

    /// The destination drained below its low water: read again.
    func resume() {
        guard paused, !finished else { return }
        paused = false
        watch()
    }

    /// The child has been reaped: what its pipe holds now is the rest (a
    /// process it left behind holding the pipe is not waited for), then the
    /// pipe is closed.
    func finishAfterExit() {
        guard !finished else { return }
        while !finished, readOnce() {}
        end()
    }

    /// Reads once; false when nothing more can be read now (would block,
    /// EOF, failure, or paused for back-pressure).
    @discardableResult
    private func readOnce() -> Bool {
        guard !finished, fd >= 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        switch chunk.withUnsafeMutableBytes({ FD.read(fd, into: $0) }) {
        case .bytes(let n):
            carry.append(contentsOf: chunk[..<n])
            forwardCompleteLines()
            return !finished && !paused
        case .wouldBlock:
            return false
        case .eof, .error:
            end()
            return false
        }
    }

    private func forwardCompleteLines() {
        var cut = carry.lastIndex(of: 10).map { $0 + 1 } ?? 0
        if cut == 0 && carry.count >= Self.maxLineBytes { cut = carry.count }
        guard cut > 0 else { return }
        destination.pending.append(contentsOf: carry[..<cut])
        carry.removeFirst(cut)
        destination.flush()
        if destination.failed { return end() }
        if destination.isBackedUp { pause() }
    }

    /// No more: the unfinished line goes as it is, the pipe is closed.
    private func end() {
        guard !finished else { return }
        finished = true
        unwatch()
        if !carry.isEmpty && !destination.failed {
            destination.pending.append(contentsOf: carry)
            destination.flush()
        }
        carry.removeAll()
        if stream == .output { process.closeOutput() } else { process.closeErrors() }
    }

    private func pause() {
        paused = true
        unwatch()
    }

    private func watch() {
        guard let loop, !watching, !finished, fd >= 0 else { return }
        watching = true
        loop.watch(fd, .read) { [unowned self] _ in
            while self.readOnce() {}
        }
    }

    private func unwatch() {
        guard watching else { return }
        watching = false
        if fd >= 0 { loop?.unwatch(fd) }
    }

    /// Off the loop, at the end of a run: copies what `relays` read until
    /// each has ended or its child has been reaped (then the rest), writing
    /// their destinations out as it goes (blocking). Unreaped children are
    /// reaped here, which may wait for them.
    static func pumpBlocking(_ relays: [ChildOutput]) {
        for relay in relays { relay.unwatch() }
        while true {
            for relay in relays where !relay.finished && relay.process.reapIfExited() {
                relay.readAll()
                relay.end()
            }
            let open = relays.filter { !$0.finished }
            if open.isEmpty { break }
            for fd in FD.waitUntilReadable(open.map(\.fd), timeoutMillis: 50) {
                guard let relay = open.first(where: { $0.fd == fd }) else { continue }
                relay.readAll()
            }
            for relay in open { relay.destination.writePendingBlocking() }
        }
        for relay in relays { relay.destination.writePendingBlocking() }
    }

    /// Reads until the pipe would block, ignoring back-pressure (a blocking
    /// caller writes the destination out itself).
    private func readAll() {
        paused = false
        while !finished, fd >= 0 {
            var chunk = [UInt8](repeating: 0, count: 16 << 10)
            switch chunk.withUnsafeMutableBytes({ FD.read(fd, into: $0) }) {
            case .bytes(let n):
                destination.pending.append(contentsOf: carry)
                destination.pending.append(contentsOf: chunk[..<n])
                carry.removeAll()
            case .wouldBlock:
                return
            case .eof, .error:
                return end()
            }
        }
    }
}
