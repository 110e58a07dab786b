#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The wait where poll(2) cannot wait for a character device (macOS reports
/// POLLNVAL for a terminal; Sources/README.md, Porting): select(2) waits for
/// everything, the devices and the other fds alike, and poll(2), without
/// waiting, then tells the other fds' exact readiness (a hang-up or an error
/// is not something select can say). One more system call a round, in the
/// sessions that have a terminal (or /dev/null) to wait for.
///
/// What select cannot do: watch an fd at FD_SETSIZE (1024) or above. Such
/// fds (a server with a thousand clients and a terminal on stdin) are left
/// to the poll without waiting, and select then waits at most 10 ms a round.
/// An fd watched with no interest is in no set: its hang-up is seen at the
/// next round something else ends (poll would wake for it).
extension EventLoop {
    /// The longest select(2) waits while some fd is beyond its sets.
    static let selectSliceMillis: Int32 = 10

    /// One round; false when select(2) itself failed (`failure` is set).
    func waitWithSelect(timeoutMillis: Int32) -> Bool {
        countSelectWait()
        var read = DescriptorSet()
        var write = DescriptorSet()
        var highest: Int32 = -1
        func add(_ fd: Int32, _ interest: Interest) {
            if interest.contains(.read) { read.insert(fd) }
            if interest.contains(.write) { write.insert(fd) }
            if !interest.isEmpty { highest = max(highest, fd) }
        }
        for (fd, serial) in selectFDs {
            if let (interest, _) = slot(fd, serial: serial), fd < DescriptorSet.capacity { add(fd, interest) }
        }
        let others = pollInterests
        var allFit = true
        for (fd, interest) in others where !interest.isEmpty {
            if fd < DescriptorSet.capacity { add(fd, interest) } else { allFit = false }
        }
        var timeout = timeoutMillis
        if !allFit { timeout = timeout < 0 ? Self.selectSliceMillis : min(timeout, Self.selectSliceMillis) }
        var limit = timeval()
        limit.tv_sec = .init(timeout / 1000)
        limit.tv_usec = .init((timeout % 1000) * 1000)
        let n = timeout < 0 ? select(highest + 1, &read.raw, &write.raw, nil, nil)
                            : select(highest + 1, &read.raw, &write.raw, nil, &limit)
        var closed = false
        if n < 0 {
            let e = currentErrno()
            switch e {
            case EINTR, EAGAIN: return true
            // An fd closed while watched: poll would say POLLNVAL for it alone.
            case EBADF: closed = true
            default:
                fail(.posix("select", errno: e))
                return false
            }
        }
        if !others.isEmpty && pollNow() > 0 { dispatchReady() }
        dispatchSelected(read: read, write: write, closed: closed)
        return true
    }

    /// The character devices' handlers, with what select said of them (and
    /// `.error` for one that was closed while watched, as POLLNVAL).
    private func dispatchSelected(read: DescriptorSet, write: DescriptorSet, closed: Bool) {
        for (fd, serial) in selectFDs {
            // Unwatched (or watched again) by a handler earlier in this round.
            guard let (interest, handler) = slot(fd, serial: serial) else { continue }
            var ready: Readiness = []
            if closed && fcntl(fd, F_GETFD) < 0 {
                ready.insert(.error)
            } else if !closed && fd < DescriptorSet.capacity {
                if read.contains(fd) && interest.contains(.read) { ready.insert(.readable) }
                if write.contains(fd) && interest.contains(.write) { ready.insert(.writable) }
            }
            if !ready.isEmpty { handler(ready) }
            if isStopped { return }
        }
    }
}

/// An fd_set, without the FD_SET macros Swift cannot import: fd N is bit N
/// of the set's bytes (glibc keeps it in 64-bit words, Darwin in 32-bit
/// ones, both least significant bit first; on a little-endian machine both
/// put it in byte N/8, bit N%8).
struct DescriptorSet {
    var raw = fd_set()

    /// FD_SETSIZE: the fds a set can hold.
    static var capacity: Int32 { Int32(MemoryLayout<fd_set>.size * 8) }

    mutating func insert(_ fd: Int32) {
        precondition(fd >= 0 && fd < Self.capacity, "DescriptorSet: fd \(fd) out of range")
        withUnsafeMutableBytes(of: &raw) { $0[Int(fd) >> 3] |= UInt8(1) << UInt8(fd & 7) }
    }

    func contains(_ fd: Int32) -> Bool {
        guard fd >= 0 && fd < Self.capacity else { return false }
        return withUnsafeBytes(of: raw) { $0[Int(fd) >> 3] & (UInt8(1) << UInt8(fd & 7)) != 0 }
    }
}
