import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
private let resourceNOFILE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#else
private let resourceNOFILE = RLIMIT_NOFILE
#endif

/// The event loop's wait for character devices with select(2), the one
/// macOS needs (its poll reports POLLNVAL for a terminal), forced here on
/// Linux; and the Linux fact that makes poll enough without it.
final class EventLoopSelectTests: XCTestCase {
    private var terminal: PseudoTerminal!
    private var pair: [Int32] = [-1, -1]

    override func setUpWithError() throws {
        ignoreSIGPIPE()
        terminal = try PseudoTerminal()
        XCTAssertEqual(socketpair(AF_UNIX, sockStream, 0, &pair), 0)
        XCTAssertTrue(makeNonBlockingCloexec(pair[0]))
        XCTAssertTrue(makeNonBlockingCloexec(pair[1]))
    }

    override func tearDown() {
        terminal?.close()
        for fd in pair where fd >= 0 { close(fd) }
    }

    private func runWithDeadline(_ loop: EventLoop, seconds: Int64 = 10) {
        var expired = false
        let deadline = loop.schedule(afterNanos: seconds * 1_000_000_000) { expired = true; loop.stop() }
        loop.run()
        loop.cancel(deadline)
        XCTAssertFalse(expired, "the loop did not finish within \(seconds)s")
    }

    private func put(_ fd: Int32, _ text: String) {
        XCTAssertEqual(Array(text.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, text.utf8.count)
    }

    private func readAll(_ fd: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 256)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n > 0 ? String(decoding: bytes[..<n], as: UTF8.self) : ""
    }

    /// Linux's poll(2) waits for a terminal as for any fd (macOS's reports
    /// POLLNVAL): the assumption the event loop makes here without select.
    func testLinuxPollWaitsForATerminal() {
        var entry = pollfd(fd: terminal.slave, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 0), 0, "nothing typed yet")
        put(terminal.master, "x\n")
        XCTAssertEqual(poll(&entry, 1, 1000), 1)
        XCTAssertEqual(entry.revents & Int16(POLLNVAL), 0, "poll(2) supports terminals here")
        XCTAssertNotEqual(entry.revents & Int16(POLLIN), 0)
    }

    /// The default: select only where poll cannot, or when forced.
    func testTheFallbackIsChosenByPlatformOrByTheEnvironment() {
        #if os(Linux)
        let before = ProcessEnvironment.variable("WSPIPE_SELECT_TTYS")
        defer { if let before { setenv("WSPIPE_SELECT_TTYS", before, 1) } else { unsetenv("WSPIPE_SELECT_TTYS") } }
        unsetenv("WSPIPE_SELECT_TTYS")
        XCTAssertFalse(EventLoop().selectsCharacterDevices)
        setenv("WSPIPE_SELECT_TTYS", "1", 1)
        XCTAssertTrue(EventLoop().selectsCharacterDevices)
        #else
        XCTAssertTrue(EventLoop().selectsCharacterDevices)
        #endif
    }

    /// A terminal and a socket in one loop: the terminal through select,
    /// the socket's readiness from poll as before.
    func testATerminalAndASocketWaitTogether() {
        let loop = EventLoop(selectsCharacterDevices: true)
        var seen: [String] = []
        loop.watch(terminal.slave, .read) { [unowned self] ready in
            XCTAssertEqual(ready, .readable)
            seen.append("tty:" + self.readAll(self.terminal.slave).split(separator: "\n").joined())
            self.put(self.pair[1], "from the socket")
        }
        loop.watch(pair[0], .read) { [unowned self] ready in
            XCTAssertTrue(ready.contains(.readable))
            seen.append("socket:" + self.readAll(self.pair[0]))
            loop.stop()
        }
        XCTAssertEqual(loop.selectFDs.count, 0, "set up at the first round")
        loop.schedule(afterNanos: 20_000_000) { [unowned self] in self.put(self.terminal.master, "typed\n") }
        runWithDeadline(loop)
        XCTAssertEqual(seen, ["tty:typed", "socket:from the socket"])
        XCTAssertEqual(loop.selectFDs.map(\.fd), [terminal.slave], "the terminal went to select(2)")
        XCTAssertGreaterThan(loop.selectWaits, 0)
    }

    /// A socket's hang-up is one select cannot tell: the poll without waiting
    /// that follows it does, as the poll-only loop would.
    func testASocketsHangUpStillArrivesAsHangUp() {
        let loop = EventLoop(selectsCharacterDevices: true)
        loop.watch(terminal.slave, .read) { _ in XCTFail("nothing was typed") }
        var readiness: EventLoop.Readiness = []
        loop.watch(pair[0], .read) { ready in
            readiness = ready
            loop.unwatch(self.pair[0])
            loop.stop()
        }
        close(pair[1])
        pair[1] = -1
        runWithDeadline(loop)
        XCTAssertTrue(readiness.contains(.hangup), "got \(readiness)")
        XCTAssertGreaterThan(loop.selectWaits, 0)
    }

    /// Writable interest on a terminal, and on /dev/null (a character device
    /// too, which macOS's poll refuses as well).
    func testWritableTerminalAndDevNull() throws {
        let null = open("/dev/null", O_WRONLY)
        defer { close(null) }
        let loop = EventLoop(selectsCharacterDevices: true)
        var ready: Set<Int32> = []
        for fd in [terminal.slave, null] {
            loop.watch(fd, .write) { readiness in
                XCTAssertEqual(readiness, .writable)
                ready.insert(fd)
                loop.setInterest(fd, [])
                if ready.count == 2 { loop.stop() }
            }
        }
        runWithDeadline(loop)
        XCTAssertEqual(ready, [terminal.slave, null])
        XCTAssertEqual(loop.selectFDs.count, 2)
    }

    /// A terminal closed while watched: select(2) fails with EBADF for the
    /// whole set, where poll would mark that one fd POLLNVAL. The loop says
    /// `.error` to its handler alone and goes on.
    func testATerminalClosedWhileWatchedIsAnErrorNotTheLoopsEnd() {
        let loop = EventLoop(selectsCharacterDevices: true)
        let slave = dup(terminal.slave)
        var errors = 0
        loop.watch(slave, .read) { ready in
            XCTAssertEqual(ready, .error)
            errors += 1
            loop.unwatch(slave)
        }
        var timerFired = false
        loop.schedule(afterNanos: 5_000_000) { close(slave) }
        loop.schedule(afterNanos: 100_000_000) { timerFired = true; loop.stop() }
        runWithDeadline(loop)
        XCTAssertEqual(errors, 1)
        XCTAssertTrue(timerFired)
        XCTAssertNil(loop.failure)
    }

    /// An fd past FD_SETSIZE cannot be in select's sets: it is polled
    /// without waiting after select waits at most a slice, so it is served
    /// anyway (a server with a thousand clients and a terminal on stdin).
    func testAnFDBeyondSelectsSetsIsStillServed() throws {
        var limits = rlimit()
        XCTAssertEqual(getrlimit(resourceNOFILE, &limits), 0)
        let high = DescriptorSet.capacity + 50
        if limits.rlim_cur < rlim_t(high + 1) {
            guard limits.rlim_max >= rlim_t(high + 1) else { throw XCTSkip("the fd limit stays below \(high)") }
            var raised = limits
            raised.rlim_cur = rlim_t(high + 1)
            XCTAssertEqual(setrlimit(resourceNOFILE, &raised), 0)
        }
        defer { _ = setrlimit(resourceNOFILE, &limits) }
        XCTAssertEqual(dup2(pair[0], high), high)
        defer { close(high) }
        let loop = EventLoop(selectsCharacterDevices: true)
        loop.watch(terminal.slave, .read) { _ in XCTFail("nothing was typed") }
        var got = ""
        loop.watch(high, .read) { [unowned self] _ in
            got = self.readAll(high)
            loop.stop()
        }
        loop.schedule(afterNanos: 20_000_000) { [unowned self] in self.put(self.pair[1], "high") }
        runWithDeadline(loop)
        XCTAssertEqual(got, "high")
    }

    func testDescriptorSetBitsAreFDSet() {
        var set = DescriptorSet()
        for fd: Int32 in [0, 1, 7, 8, 63, 64, 65, DescriptorSet.capacity - 1] { set.insert(fd) }
        for fd: Int32 in 0 ..< DescriptorSet.capacity {
            XCTAssertEqual(set.contains(fd), [0, 1, 7, 8, 63, 64, 65, DescriptorSet.capacity - 1].contains(fd), "fd \(fd)")
        }
        XCTAssertFalse(set.contains(DescriptorSet.capacity))
        XCTAssertFalse(set.contains(-1))
        XCTAssertEqual(DescriptorSet.capacity, 1024, "FD_SETSIZE")
        // The kernel reads the same bits: select(2) on a set holding one
        // ready fd (the socket, with bytes waiting) reports that fd.
        put(pair[1], "x")
        var read = DescriptorSet()
        read.insert(pair[0])
        var zero = timeval()
        XCTAssertEqual(select(pair[0] + 1, &read.raw, nil, nil, &zero), 1)
        XCTAssertTrue(read.contains(pair[0]))
    }
}
