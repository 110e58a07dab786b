import WSTransport

/// Buffered writer for stdout (or any output fd) on the event loop. Message
/// lines are appended to `pending`; `flush()` writes as much as the fd takes
/// and waits for writability for the rest, so a slow reader never blocks the
/// loop (which also serves the socket). `isBackedUp` tells the producer to
/// stop reading the socket until the reader catches up.
final class OutputWriter {
    let fd: Int32
    private let loop: EventLoop
    /// Bytes to write start at `offset`; appended by the formatter.
    var pending: [UInt8] = []
    private var offset = 0
    private var watching = false
    /// Above this many unwritten bytes the producer pauses.
    let highWater: Int
    var onDrained: (() -> Void)?
    var onFailure: ((String) -> Void)?
    private(set) var failed = false

    init(fd: Int32, loop: EventLoop, highWater: Int = 4 << 20) {
        self.fd = fd
        self.loop = loop
        self.highWater = highWater
        pending.reserveCapacity(256 << 10)
        StdioMode.prepare(fd)
    }

    var unwrittenBytes: Int { pending.count - offset }
    var isBackedUp: Bool { unwrittenBytes > highWater }
    var isEmpty: Bool { unwrittenBytes == 0 }

    func flush() {
        guard !failed else { pending.removeAll(keepingCapacity: true); offset = 0; return }
        while offset < pending.count {
            let result = pending.withUnsafeBytes { all in
                FD.write(fd, UnsafeRawBufferPointer(rebasing: all[offset...]))
            }
            switch result {
            case .bytes(let n):
                offset += n
            case .wouldBlock:
                waitForWritable()
                return
            case .eof, .error:
                fail(result)
                return
            }
        }
        pending.removeAll(keepingCapacity: pending.capacity <= 4 << 20)
        offset = 0
        if watching { loop.unwatch(fd); watching = false }
        onDrained?()
    }

    private func waitForWritable() {
        // Drop the written prefix once it dominates, so a long backlog does not
        // keep every byte ever written alive.
        if offset > 1 << 20 && offset > pending.count / 2 {
            pending.removeFirst(offset)
            offset = 0
        }
        guard !watching else { return }
        watching = true
        loop.watch(fd, .write) { [unowned self] _ in self.flush() }
    }

    private func fail(_ result: IOResult) {
        failed = true
        pending.removeAll(keepingCapacity: false)
        offset = 0
        if watching { loop.unwatch(fd); watching = false }
        var reason = "write error"
        if case .error(let text) = result { reason = text }
        onFailure?(reason)
    }
}
