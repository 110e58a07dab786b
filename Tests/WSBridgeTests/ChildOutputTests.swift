import XCTest
@testable import WSBridge
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// ChildOutput: a child's own stdout pipe copied to a destination, whole
/// lines at a time, in each phase (reading, paused, blocking, finished).
final class ChildOutputTests: XCTestCase {
    private var loop = EventLoop()
    /// The destination writes to this pipe; the test reads the other end.
    private var sink: (read: Int32, write: Int32) = (-1, -1)
    private var processes: [Subprocess] = []

    override func setUp() {
        signal(SIGPIPE, SIG_IGN)   // as wspipe: a write to a pipe without a reader is EPIPE
        loop = EventLoop()
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        sink = (fds[0], fds[1])
        for fd in [sink.read, sink.write] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)   // or the children would hold the sink open
        }
    }

    override func tearDown() {
        for process in processes { process.terminate(graceNanos: 0) }
        close(sink.read)
        close(sink.write)
    }

    private func child(_ command: String) throws -> Subprocess {
        let process = try Subprocess.spawn(command, .init(input: .pipe, output: .pipe))
        processes.append(process)
        return process
    }

    private func destination(highWater: Int = 4 << 20, lowWater: Int = 1 << 20) -> Destination {
        Destination(name: "sink", spec: .fd(sink.write), target: .borrowed(sink.write), loop: loop,
                    highWater: highWater, lowWater: lowWater)
    }

    private func text(_ destination: Destination) -> String {
        String(decoding: destination.pending, as: UTF8.self)
    }

    func testWholeLinesGoAsTheyComeAndTheRestAtTheEnd() throws {
        // The child writes a line and a half, then waits for a line on its stdin.
        let process = try child("printf 'one\\ntw'; read -r _; printf 'o\\nthree'")
        let target = destination()
        let relay = ChildOutput(.output, of: process, to: target, loop: loop)
        XCTAssertEqual(relay.phase, .reading)
        var received: [UInt8] = []
        runLoop(loop) { received += readAvailable(self.sink.read); return received.count >= 4 }
        XCTAssertEqual(String(decoding: received, as: UTF8.self), "one\n", "the half line waits")
        _ = "\n".withCString { write(process.inputFD, $0, 1) }
        runLoop(loop) { received += readAvailable(self.sink.read); return relay.finished }
        received += readAvailable(sink.read)
        XCTAssertEqual(String(decoding: received, as: UTF8.self), "one\ntwo\nthree", "at EOF the rest as it is")
        XCTAssertEqual(process.outputFD, -1, "the pipe is closed")
    }

    func testABackedUpDestinationPausesTheReadingUntilItDrains() throws {
        let process = try child("i=0; while [ $i -lt 200 ]; do echo 0123456789012345678901234567890123456789; i=$((i+1)); done")
        let target = destination(highWater: 1024, lowWater: 256)
        let relay = ChildOutput(.output, of: process, to: target, loop: loop)
        // Nobody reads the sink pipe yet: fill it first, so the destination backs up.
        let filler = [UInt8](repeating: 0x2E, count: 1 << 16)
        while case .bytes = filler.withUnsafeBytes({ FD.write(sink.write, $0) }) {}
        runLoop(loop) { relay.phase == .paused }
        XCTAssertTrue(target.isBackedUp)
        let heldBack = target.unwrittenBytes
        // The sink is read: the destination drains, the relay resumes and finishes.
        var received: [UInt8] = []
        target.onDrained = { relay.resume() }
        runLoop(loop) { received += readAvailable(self.sink.read); return relay.finished && target.isEmpty }
        received += readAvailable(sink.read)
        XCTAssertGreaterThan(heldBack, 1024)
        XCTAssertEqual(received.filter { $0 != 0x2E }.count, 200 * 41, "every line, once")
    }

    func testAFailedDestinationClosesThePipeSoTheChildSeesEPIPE() throws {
        let process = try child("while echo line; do :; done")
        close(sink.read)   // the reader is gone: the destination's next write fails
        sink.read = -1
        let relay = ChildOutput(.output, of: process, to: destination(), loop: loop)
        runLoop(loop) { relay.finished }
        process.wait()
        XCTAssertEqual(process.waitStatus.map { $0 & 0x7f }, SIGPIPE,
                       "the child's next write got SIGPIPE, as on the shared pipe: \(process.exitDescription)")
    }

    func testAfterTheExitTheRestIsTakenThoughAProcessLeftBehindHoldsThePipe() throws {
        // The background sleep keeps the pipe open: no EOF.
        let process = try child("sleep 30 & printf 'last line\\npart'")
        let target = destination()
        let relay = ChildOutput(.output, of: process, to: target, loop: nil)
        XCTAssertEqual(relay.phase, .blocking)
        let deadline = monotonicNanos() + 5_000_000_000
        while !process.reapIfExited() && monotonicNanos() < deadline { usleep(1000) }
        relay.finishAfterExit()
        XCTAssertTrue(relay.finished)
        XCTAssertEqual(String(decoding: readAvailable(sink.read), as: UTF8.self), "last line\npart")
        XCTAssertTrue(target.isEmpty)
    }

    func testPumpBlockingWaitsForTheChildrenAndWritesEverythingOut() throws {
        let first = try child("cat")
        let second = try child("printf 'b\\n'")
        let target = destination()
        let relays = [ChildOutput(.output, of: first, to: target, loop: loop),
                      ChildOutput(.output, of: second, to: target, loop: loop)]
        _ = "a\n".withCString { write(first.inputFD, $0, 2) }
        first.closeInput()
        ChildOutput.pumpBlocking(relays)
        XCTAssertTrue(relays.allSatisfy(\.finished))
        XCTAssertTrue(target.isEmpty, "written out")
        let received = String(decoding: readAvailable(sink.read), as: UTF8.self)
        XCTAssertEqual(received.split(separator: "\n").sorted(), ["a", "b"])
        XCTAssertEqual([first.wait(), second.wait()], [0, 0])
    }
}
