#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Write end of the self-pipe, read by the C signal handler. A global because
/// a signal handler cannot capture context; written before any handler is
/// installed and only read afterwards.
nonisolated(unsafe) private var signalPipeWriteFD: Int32 = -1

/// Async-signal-safe: one write(2) of the signal number, errno preserved so the
/// interrupted code sees its own errno.
private func forwardSignal(_ sig: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: sig)
    _ = write(signalPipeWriteFD, &byte, 1)
    errno = saved
}

/// Self-pipe for signals (SIGINT, SIGTERM...): the handler writes the signal
/// number to a pipe the loop watches. Also ignores SIGPIPE process-wide.
///
/// Watch `fd` for .read and call `drain()` in the handler. One instance per
/// process (a second one takes over the signals).
public final class SignalWatcher {
    public let fd: Int32
    private let writeFD: Int32

    public init(signals: [Signal]) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw TransportError.posix("pipe") }
        // Non-blocking both ways: the handler must never block on a full pipe
        // (a burst of signals just loses duplicates), and drain() stops when empty.
        guard makeNonBlockingCloexec(ends[0]), makeNonBlockingCloexec(ends[1]) else {
            let e = TransportError.posix("fcntl")
            sysClose(ends[0]); sysClose(ends[1])
            throw e
        }
        fd = ends[0]
        writeFD = ends[1]
        signalPipeWriteFD = writeFD
        ignoreSIGPIPE()
        for sig in signals { try install(sig.rawValue) }
    }

    /// Signal numbers received since the last drain, in arrival order.
    public func drain() -> [Signal] {
        var out: [Signal] = []
        var buf = [UInt8](repeating: 0, count: 64)
        while case .bytes(let n) = buf.withUnsafeMutableBytes({ FD.read(fd, into: $0) }) {
            out.append(contentsOf: buf[0..<n].map { Signal(rawValue: Int32($0)) })
        }
        return out
    }

    /// SA_RESTART so blocking writes to a tty or file are resumed instead of
    /// failing with EINTR; poll(2) still returns EINTR, which the loop retries.
    private func install(_ sig: Int32) throws {
        var action = sigaction()
        #if os(Linux)
        action.__sigaction_handler.sa_handler = { forwardSignal($0) }
        #else
        action.__sigaction_u.__sa_handler = { forwardSignal($0) }
        #endif
        action.sa_flags = SA_RESTART
        sigemptyset(&action.sa_mask)
        guard sigaction(sig, &action, nil) == 0 else { throw TransportError.posix("sigaction \(sig)") }
    }
}
