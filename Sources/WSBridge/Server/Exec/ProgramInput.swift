import WSTransport

/// The stdin of an --exec program: the lines of its client's messages,
/// written without ever blocking the loop. Above the high water the client
/// is no longer read (`isBackedUp`) until the program has taken the backlog
/// down to the low water (`onDrained`), so a program that does not read
/// costs at most the high water, and nothing is dropped.
final class ProgramInput {
    static let highWater = 1 << 20
    static let lowWater = 256 << 10

    private let process: Subprocess
    private let loop: EventLoop
    /// Lines to write start at `offset`; the formatter appends complete lines.
    var pending: [UInt8] = []
    private var offset = 0
    private var watching = false
    private var backedUp = false
    private var closesWhenWritten = false
    /// The program closed its stdin (or exited): what comes later is dropped.
    private(set) var failed = false
    /// Runs when a backed-up input falls below the low water (or fails).
    var onDrained: (() -> Void)?
    /// Runs once, when a write finds the program's stdin closed.
    var onFailed: (() -> Void)?

    /// Writes to `process`'s stdin pipe, which the process owns and closes.
    init(process: Subprocess, loop: EventLoop) {
        self.process = process
        self.loop = loop
    }

    private var fd: Int32 { process.inputFD }

    var unwrittenBytes: Int { pending.count - offset }

    /// Above the high water, or still above the low water since.
    var isBackedUp: Bool {
        if !backedUp && unwrittenBytes > Self.highWater { backedUp = true }
        return backedUp
    }

    /// Writes what the pipe takes now and waits for writability for the rest.
    func flush() {
        guard fd >= 0, !failed else { pending.removeAll(keepingCapacity: true); offset = 0; return }
        while offset < pending.count {
            let result = pending.withUnsafeBytes { FD.write(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            switch result {
            case .bytes(let n) where n > 0:
                offset += n
            case .bytes, .wouldBlock:
                compact()
                watch()
                checkDrained()
                return
            case .eof, .error:
                fail()
                return
            }
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 1 << 20)
        offset = 0
        unwatch()
        checkDrained()
        if closesWhenWritten { close() }
    }

    /// The client left: the program reads EOF once everything it sent is written.
    func closeAfterWriting() {
        closesWhenWritten = true
        if unwrittenBytes == 0 || failed { close() } else { flush() }
    }

    /// Closes the pipe now; what is unwritten is dropped (the program is gone
    /// or being stopped).
    func close() {
        unwatch()
        process.closeInput()
        pending.removeAll()
        offset = 0
    }

    private func fail() {
        failed = true
        pending.removeAll()
        offset = 0
        unwatch()
        onFailed?()
        checkDrained()
        if closesWhenWritten { close() }
    }

    private func checkDrained() {
        guard backedUp, unwrittenBytes < Self.lowWater else { return }
        backedUp = false
        onDrained?()
    }

    /// Drops the written prefix once it dominates the buffer.
    private func compact() {
        guard offset > 1 << 20 && offset > pending.count / 2 else { return }
        pending.removeFirst(offset)
        offset = 0
    }

    private func watch() {
        guard !watching else { return }
        watching = true
        loop.watch(fd, .write) { [weak self] _ in self?.flush() }
    }

    private func unwatch() {
        guard watching else { return }
        watching = false
        if fd >= 0 { loop.unwatch(fd) }
    }
}
