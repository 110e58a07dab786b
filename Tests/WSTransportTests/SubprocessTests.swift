import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What posix_spawn gives every child (Sources/README.md, Porting and
/// Children): a process group of its own (POSIX_SPAWN_SETPGROUP), SIGPIPE
/// at its default though wspipe ignores it (POSIX_SPAWN_SETSIGDEF), no
/// signal blocked (POSIX_SPAWN_SETSIGMASK), and wspipe's environment with
/// the variables added. The calls differ on Darwin (optional attribute
/// types, `_NSGetEnviron`): each test states one behaviour a port keeps.
final class SubprocessTests: XCTestCase {
    private var children: [Subprocess] = []

    override func tearDown() {
        for child in children { child.terminate(graceNanos: 0) }
        children.removeAll()
    }

    private func spawn(_ command: String, environment: [String] = []) throws -> Subprocess {
        let child = try Subprocess.spawn(command, .init(input: .null, output: .pipe, environment: environment))
        children.append(child)
        return child
    }

    /// The signal that ended the child, or nil when it exited.
    private func signal(of child: Subprocess) -> Int32? {
        let status = child.wait()
        guard status >= 0, status & 0x7f != 0 else { return nil }
        return status & 0x7f
    }

    /// What the child wrote to its stdout, to the end.
    private func output(of child: Subprocess) -> String {
        var text: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        var entry = pollfd(fd: child.outputFD, events: Int16(POLLIN), revents: 0)
        while poll(&entry, 1, 10_000) == 1 {
            let n = buffer.withUnsafeMutableBytes { read(child.outputFD, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            text += buffer[..<n]
        }
        return String(decoding: text, as: UTF8.self)
    }

    func testAChildLeadsAProcessGroupOfItsOwn() throws {
        let child = try spawn("exec sleep 60")
        XCTAssertEqual(getpgid(child.pid), child.pid, "the child leads its group")
        XCTAssertNotEqual(getpgid(child.pid), getpgrp(), "not wspipe's group")
        child.send(.terminate)
        XCTAssertEqual(signal(of: child), SIGTERM, "signalled as a group")
    }

    /// Ignored signals stay ignored across exec: without SETSIGDEF a shell
    /// started by wspipe could not even be killed by SIGPIPE.
    func testSIGPIPEIsAtItsDefaultThoughWspipeIgnoresIt() throws {
        ignoreSIGPIPE()
        let child = try spawn("kill -PIPE $$; echo survived")
        XCTAssertEqual(signal(of: child), SIGPIPE, "output: \(output(of: child))")
    }

    /// A signal blocked in the thread that spawns is not blocked in the child.
    func testNoSignalIsBlockedInAChild() throws {
        var usr1 = sigset_t()
        sigemptyset(&usr1)
        sigaddset(&usr1, SIGUSR1)
        var before = sigset_t()
        XCTAssertEqual(pthread_sigmask(SIG_BLOCK, &usr1, &before), 0)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        let child = try spawn("kill -USR1 $$; echo survived")
        XCTAssertEqual(signal(of: child), SIGUSR1, "output: \(output(of: child))")
    }

    /// wspipe's environment (`environ`; `_NSGetEnviron()` on Darwin), with
    /// the added variables replacing those of the same name.
    func testTheEnvironmentIsWspipesWithTheAddedVariables() throws {
        setenv("WSPIPE_SPAWN_TEST", "inherited", 1)
        setenv("WSPIPE_SPAWN_REPLACED", "old", 1)
        defer { unsetenv("WSPIPE_SPAWN_TEST"); unsetenv("WSPIPE_SPAWN_REPLACED") }
        let child = try spawn(#"printf '%s %s %s' "$WSPIPE_SPAWN_TEST" "$WSPIPE_SPAWN_REPLACED" "$WSPIPE_SPAWN_ADDED""#,
                              environment: ["WSPIPE_SPAWN_REPLACED=new", "WSPIPE_SPAWN_ADDED=added"])
        XCTAssertEqual(output(of: child), "inherited new added")
        XCTAssertEqual(child.wait(), 0)
    }
}
