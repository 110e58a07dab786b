import XCTest
import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A clock the test moves by hand: timers fire in deadline order when
/// `advance` passes them, never on their own.
final class ManualScheduler: TimerScheduling {
    private(set) var now: Int64 = 0
    private var timers: [(id: UInt64, deadline: Int64, callback: () -> Void)] = []
    private var nextID: UInt64 = 1

    var pendingCount: Int { timers.count }
    var nowNanos: Int64 { now }

    @discardableResult
    func schedule(afterNanos: Int64, _ callback: @escaping () -> Void) -> EventLoop.TimerID {
        let id = nextID
        nextID += 1
        timers.append((id, now + max(0, afterNanos), callback))
        return EventLoop.TimerID(raw: id)
    }

    func cancel(_ timer: EventLoop.TimerID) {
        timers.removeAll { EventLoop.TimerID(raw: $0.id) == timer }
    }

    func advance(by nanos: Int64) {
        let target = now + nanos
        while let next = timers.filter({ $0.deadline <= target }).min(by: { $0.deadline < $1.deadline }) {
            timers.removeAll { $0.id == next.id }
            now = next.deadline
            next.callback()
        }
        now = target
    }
}

/// Two connected non-blocking stream sockets.
func makeSocketPair() -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    #if os(Linux)
    let type = Int32(SOCK_STREAM.rawValue)
    #else
    let type = SOCK_STREAM
    #endif
    precondition(socketpair(AF_UNIX, type, 0, &fds) == 0, "socketpair")
    for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
    return (fds[0], fds[1])
}

/// Runs `loop` until `done` holds (checked after every loop round and
/// timer) or a generous deadline passes; fails the test on the deadline.
func runLoop(_ loop: EventLoop, until done: @escaping () -> Bool, file: StaticString = #filePath, line: UInt = #line) {
    var timedOut = false
    let deadline = loop.schedule(afterNanos: 10_000_000_000) { timedOut = true; loop.stop() }
    func poll() {
        if done() { loop.stop(); return }
        loop.schedule(afterNanos: 1_000_000) { poll() }
    }
    poll()
    loop.run()
    loop.cancel(deadline)
    XCTAssertFalse(timedOut, "the condition never held", file: file, line: line)
}

/// Writes all of `bytes` to a (possibly non-blocking) fd, waiting when full.
func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    _ = bytes.withUnsafeBytes { FD.writeAll(fd, $0) }
}

/// Reads what is available now from a non-blocking fd.
func readAvailable(_ fd: Int32) -> [UInt8] {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { return out }
        out += chunk[0..<n]
    }
}
