import XCTest
@testable import WSTransport
@testable import WSBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// RouteTable and Destination (wspipe(1): ROUTING): which destination a message goes to,
/// and how files, commands and fds receive lines, fail and push back.
final class RouteTableTests: XCTestCase {
    private var directory = ""
    private var loop = EventLoop()
    private var failures: [(name: String, reason: String)] = []
    private var tables: [RouteTable] = []

    override func setUp() {
        super.setUp()
        signal(SIGPIPE, SIG_IGN)
        var template = Array("/tmp/wspipe-routes-XXXXXX".utf8CString)
        directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        loop = EventLoop()
        failures = []
        tables = []
    }

    override func tearDown() {
        for table in tables { table.finish() }   // reap every child
        tables = []
        StdioMode.restoreAll()                   // the test runner's stdout/stderr
        try? FileManager.default.removeItem(atPath: directory)
        super.tearDown()
    }

    // MARK: helpers

    private func table(_ routes: [String], typeKey: [String] = ["type"],
                       file: StaticString = #filePath, line: UInt = #line) throws -> RouteTable {
        let specs = try routes.map { try RouteSpec.parse($0).get() }
        let table = try RouteTable(routes: specs, typeKey: typeKey, loop: loop) { [unowned self] destination, reason in
            self.failures.append((destination.name, reason))
        }
        tables.append(table)
        return table
    }

    private func tableError(_ routes: [String]) -> String? {
        do {
            let t = try table(routes)
            XCTFail("routes \(routes) accepted: \(t.destinations.map(\.name))")
            return nil
        } catch let error as RouteSpecError {
            return error.message
        } catch {
            XCTFail("unexpected \(error)")
            return nil
        }
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    private func contents(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? "<missing>"
    }

    private func route(_ json: String, in table: RouteTable) -> String {
        Array(json.utf8).withUnsafeBytes { table.destination(forJSON: $0) }.name
    }

    private func append(_ text: String, to destination: Destination) {
        destination.pending.append(contentsOf: Array(text.utf8))
    }

    /// Runs the loop until `stop` is called by a handler, or `seconds` pass.
    private func runLoop(seconds: Double) {
        let guardTimer = loop.schedule(afterNanos: Int64(seconds * 1e9)) { [loop] in loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
    }

    // MARK: defaults and special routes

    func testDefaultRoutes() throws {
        let t = try table([])
        XCTAssertEqual(t.fallback.name, "stdout")
        XCTAssertEqual(t.fallback.spec, .stdout)
        XCTAssertEqual(t.eventDestination.name, "stderr")
        XCTAssertTrue(t.textDestination === t.fallback)
        XCTAssertTrue(t.binaryDestination === t.fallback)
        XCTAssertFalse(t.usesTypeKey)
        XCTAssertEqual(route(#"{"type":"chat"}"#, in: t), "stdout")
        XCTAssertEqual(t.destinations.map(\.name), ["stdout", "stderr"])
    }

    func testSpecialRoutes() throws {
        let t = try table(["$text=\(path("text"))", "$binary=\(path("bin"))", "$event=\(path("events"))",
                           "*=\(path("rest"))"])
        XCTAssertEqual(t.textDestination.name, path("text"))
        XCTAssertEqual(t.binaryDestination.name, path("bin"))
        XCTAssertEqual(t.eventDestination.name, path("events"))
        XCTAssertEqual(t.fallback.name, path("rest"))
        XCTAssertFalse(t.usesTypeKey)
        XCTAssertEqual(route(#"{"type":"chat"}"#, in: t), path("rest"))
        // Nothing was opened for the unused defaults.
        XCTAssertFalse(t.destinations.contains { $0.spec == .stdout || $0.spec == .stderr })
    }

    func testFallbackOverrideKeepsEventsOnStderr() throws {
        let t = try table(["*=drop"])
        XCTAssertEqual(t.fallback.name, "drop")
        XCTAssertTrue(t.fallback.discards)
        XCTAssertTrue(t.textDestination === t.fallback)
        XCTAssertEqual(t.eventDestination.name, "stderr")
    }

    func testEventOverrideKeepsFallbackOnStdout() throws {
        let t = try table(["$event=stdout"])
        XCTAssertTrue(t.eventDestination === t.fallback)
        XCTAssertEqual(t.destinations.map(\.name), ["stdout"])
    }

    func testDuplicateRoutesFail() {
        XCTAssertEqual(tableError(["chat=drop", "chat=stdout"]), "more than one route for 'chat'")
        XCTAssertEqual(tableError(["*=drop", "*=drop"]), "more than one route for '*'")
    }

    // MARK: choosing by type

    func testTypeStrings() throws {
        let t = try table(["chat=drop", "ping=\(path("ping"))", "Chat=\(path("upper"))", "café=stderr"])
        XCTAssertTrue(t.usesTypeKey)
        XCTAssertEqual(route(#"{"type":"chat","text":"hi"}"#, in: t), "drop")
        XCTAssertEqual(route(#"{"id":1, "type" : "ping"}"#, in: t), path("ping"))
        XCTAssertEqual(route(#"{"type":"Chat"}"#, in: t), path("upper"))
        XCTAssertEqual(route(#"{"type":"café"}"#, in: t), "stderr")
        XCTAssertEqual(route(#"{"type":"cha"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"type":"chats"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"type":"CHAT"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"kind":"chat"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"data":{"type":"chat"}}"#, in: t), "stdout")
    }

    func testEscapedTypesCompareUnescaped() throws {
        let t = try table(["chat=drop", #"a"b=stderr"#, "café=\(path("cafe"))", "😀=\(path("emoji"))"])
        XCTAssertEqual(route(#"{"type":"ch\u0061t"}"#, in: t), "drop")
        XCTAssertEqual(route(#"{"type":"\u0063\u0068\u0061\u0074"}"#, in: t), "drop")
        XCTAssertEqual(route(#"{"type":"a\"b"}"#, in: t), "stderr")
        XCTAssertEqual(route(#"{"type":"caf\u00e9"}"#, in: t), path("cafe"))
        XCTAssertEqual(route(#"{"type":"\ud83d\ude00"}"#, in: t), path("emoji"))
        XCTAssertEqual(route(#"{"type":"ch\\at"}"#, in: t), "stdout")
        // The scratch buffer is reused: a shorter escaped value after a longer one.
        XCTAssertEqual(route(#"{"type":"c\u0068at"}"#, in: t), "drop")
    }

    func testEscapedKeys() throws {
        let t = try table(["chat=drop"])
        XCTAssertEqual(route(#"{"t\u0079pe":"chat"}"#, in: t), "drop")
    }

    func testDottedTypeKey() throws {
        let t = try table(["join=drop", "leave=stderr"], typeKey: ["event", "kind"])
        XCTAssertEqual(route(#"{"event":{"kind":"join","user":"a"}}"#, in: t), "drop")
        XCTAssertEqual(route(#"{"id":3,"event":{"at":1,"kind":"leave"}}"#, in: t), "stderr")
        XCTAssertEqual(route(#"{"kind":"join"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"event":"join"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"event":{"kind":{"kind":"join"}}}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"type":"join"}"#, in: t), "stdout")
    }

    func testNonStringTypesFallBack() throws {
        let t = try table(["1=drop", "true=drop", "null=drop", "chat=drop", "[]=drop"])
        for json in [#"{"type":1}"#, #"{"type":true}"#, #"{"type":null}"#, #"{"type":["chat"]}"#,
                     #"{"type":{"chat":"chat"}}"#, #"{"type":[]}"#, #"{"type":""}"#, #"["chat"]"#,
                     #""chat""#, "1", #"{}"#] {
            XCTAssertEqual(route(json, in: t), "stdout", json)
        }
    }

    func testWhitespaceAroundTheMessage() throws {
        let t = try table(["chat=drop"])
        XCTAssertEqual(route(" \n{ \"type\" :\t\"chat\" }\n", in: t), "drop")
    }

    func testDestinationForType() throws {
        let t = try table(["chat=drop"])
        XCTAssertEqual(Array("chat".utf8).withUnsafeBytes { t.destination(forType: $0) }.name, "drop")
        XCTAssertEqual(Array("chatty".utf8).withUnsafeBytes { t.destination(forType: $0) }.name, "stdout")
    }

    // MARK: sharing

    func testRoutesShareADestination() throws {
        let file = path("shared")
        let t = try table(["a=\(file)", "b=\(file)", "c=\(directory)/./shared", "d=fd:1", "e=stdout", "f=fd:2"])
        XCTAssertEqual(t.destinations.count, 3)   // the file, stdout, stderr
        let a = route(#"{"type":"a"}"#, in: t)
        XCTAssertEqual(a, file)
        XCTAssertEqual(route(#"{"type":"b"}"#, in: t), file)
        XCTAssertEqual(route(#"{"type":"c"}"#, in: t), file)
        XCTAssertEqual(route(#"{"type":"d"}"#, in: t), "stdout")
        XCTAssertEqual(route(#"{"type":"f"}"#, in: t), "stderr")
        XCTAssertTrue(t.eventDestination === t.destinations.first { $0.spec == .stderr })
    }

    // MARK: files

    func testFileIsCreated() throws {
        let file = path("new.log")
        let t = try table(["chat=\(file)"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
        let d = route(#"{"type":"chat"}"#, in: t)
        XCTAssertEqual(d, file)
        let destination = t.destinations.first { $0.name == file }!
        append("{\"type\":\"chat\"}\n", to: destination)
        destination.flush()
        XCTAssertTrue(destination.isEmpty)
        XCTAssertEqual(contents(file), "{\"type\":\"chat\"}\n")
        var st = stat()
        XCTAssertEqual(stat(file, &st), 0)
        XCTAssertEqual(st.st_mode & 0o077 & ~0o044, 0)   // at most 0644 (less the umask)
        t.finish()
    }

    func testFileIsAppendedTo() throws {
        let file = path("old.log")
        try "old line\n".write(toFile: file, atomically: false, encoding: .utf8)
        let t = try table(["*=\(file)"])
        append("one\n", to: t.fallback)
        t.flushAll()
        append("two\n", to: t.fallback)
        t.finish()
        XCTAssertEqual(contents(file), "old line\none\ntwo\n")
    }

    func testFileThatCannotBeOpened() {
        let message = tableError(["chat=\(directory)/missing/x.log"])
        XCTAssertEqual(message, "cannot open '\(directory)/missing/x.log': No such file or directory")
        XCTAssertEqual(tableError(["chat=\(directory)"]), "cannot open '\(directory)': Is a directory")
    }

    func testFailureReleasesWhatWasOpened() {
        let file = path("ok.log")
        XCTAssertNotNil(tableError(["a=\(file)", "b=|cat > \(path("cat.out"))", "c=\(directory)/missing/x"]))
        XCTAssertTrue(FileManager.default.fileExists(atPath: file))
    }

    func testDiskFull() throws {
        try XCTSkipUnless(FileManager.default.fileExists(atPath: "/dev/full"))
        let t = try table(["chat=/dev/full"])
        let full = t.destinations.first { $0.name == "/dev/full" }!
        append("x\n", to: full)
        full.flush()
        XCTAssertTrue(full.failed)
        XCTAssertEqual(full.failureReason, "disk full")
        XCTAssertTrue(t.hadFailure)
        XCTAssertEqual(failures.map(\.name), ["/dev/full"])
        XCTAssertEqual(failures.map(\.reason), ["disk full"])
        append("y\n", to: full)
        full.flush()
        XCTAssertTrue(full.isEmpty)
        XCTAssertEqual(failures.count, 1)
    }

    // MARK: fd:N

    func testFDToAPipe() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let t = try table(["chat=fd:\(fds[1])"])
        XCTAssertEqual(route(#"{"type":"chat"}"#, in: t), "fd:\(fds[1])")
        let d = t.destinations.first { $0.spec == .fd(fds[1]) }!
        append("a\nb\n", to: d)
        d.flush()
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fds[0], &buffer, 64)
        XCTAssertEqual(String(decoding: buffer[0 ..< max(n, 0)], as: UTF8.self), "a\nb\n")
        t.finish()
        XCTAssertNotEqual(fcntl(fds[1], F_GETFD), -1, "fd:N is not ours to close")
    }

    func testFDThatIsNotOpen() {
        XCTAssertEqual(tableError(["chat=fd:987"]), "fd:987: file descriptor 987 is not open")
    }

    func testFDWhoseReaderClosed() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[1]) }
        let t = try table(["chat=fd:\(fds[1])"])
        close(fds[0])
        let d = t.destinations.first { $0.spec == .fd(fds[1]) }!
        append("a\n", to: d)
        d.flush()
        XCTAssertEqual(failures.map(\.reason), ["closed"])
        XCTAssertEqual(failures.map(\.name), ["fd:\(fds[1])"])
    }

    func testFDClosedBehindOurBack() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        let t = try table(["chat=fd:\(fds[1])"])
        close(fds[1])
        let d = t.destinations.first { $0.spec == .fd(fds[1]) }!
        append("a\n", to: d)
        d.flush()
        XCTAssertEqual(d.failureReason, "bad file descriptor")
        XCTAssertEqual(failures.count, 1)
    }

    // MARK: commands

    func testCommandReceivesLines() throws {
        let out = path("cat.out")
        let t = try table(["chat=|cat > '\(out)'"])
        let d = t.destinations.first { $0.name == "|cat > '\(out)'" }!
        XCTAssertNotNil(d.commandPID)
        var expected = ""
        for i in 0 ..< 1000 {
            let line = "{\"type\":\"chat\",\"n\":\(i)}\n"
            expected += line
            append(line, to: d)
            if i % 100 == 0 { d.flush() }
        }
        t.finish()
        XCTAssertEqual(contents(out), expected)
        XCTAssertEqual(d.commandExitCode, 0)
        XCTAssertTrue(failures.isEmpty)
    }

    func testCommandThatExitsEarlyIsReportedOnceAndOthersKeepWorking() throws {
        let headOut = path("head.out")
        let other = path("other.log")
        let command = "|head -n 1 > '\(headOut)'"
        let t = try table(["a=\(command)", "b=\(other)"])
        let head = t.destinations.first { $0.name == command }!
        let file = t.destinations.first { $0.name == other }!
        var expected = ""
        for i in 0 ..< 300 {
            append("line \(i)\n", to: head)
            head.flush()
            append("other \(i)\n", to: file)
            expected += "other \(i)\n"
            file.flush()
            if head.failed && i > 5 { break }
            usleep(10_000)
        }
        XCTAssertTrue(head.failed)
        XCTAssertEqual(failures.map(\.name), [command])
        XCTAssertEqual(failures.map(\.reason), ["command exited"])
        XCTAssertTrue(t.hadFailure)
        // Later lines are dropped without another report.
        append("more\n", to: head)
        head.flush()
        XCTAssertTrue(head.isEmpty)
        append("last\n", to: file)
        expected += "last\n"
        t.finish()
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(contents(headOut), "line 0\n")
        XCTAssertEqual(contents(other), expected)
        XCTAssertFalse(file.failed)
    }

    func testCommandThatCannotRunExitsAndIsReported() throws {
        let command = "|exec /nonexistent/wspipe-test-binary 2>/dev/null"
        let t = try table(["a=\(command)"])
        let d = t.destinations.first { $0.name == command }!
        for _ in 0 ..< 300 where !d.failed {
            append("x\n", to: d)
            d.flush()
            usleep(10_000)
        }
        XCTAssertEqual(failures.map(\.reason), ["command exited"])
        t.finish()
        XCTAssertEqual(d.commandExitCode, 127)
    }

    #if os(Linux)
    func testCommandRunsWithDefaultSIGPIPE() throws {
        let out = path("status")
        let t = try table(["a=|grep SigIgn /proc/self/status > '\(out)'"])
        t.finish()
        let line = contents(out)
        XCTAssertTrue(line.hasPrefix("SigIgn:"), line)
        let mask = UInt64(line.dropFirst(7).trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) ?? ~0
        XCTAssertEqual(mask & (1 << (UInt64(SIGPIPE) - 1)), 0, "SIGPIPE is ignored in the child: \(line)")
    }
    #endif

    /// wspipe's stdout or stderr a non-blocking pipe (as StdioMode makes
    /// it): the command must not inherit it (its writes would fail with
    /// EAGAIN once the pipe is full). It gets a pipe of its own, copied to
    /// ours: `dd` writes 1 MiB and exits 0, and every byte arrives.
    func testCommandWritesOneMebibyteWhereOurStdioIsANonBlockingPipe() throws {
        for fd: Int32 in [1, 2] {
            let status = path("status-\(fd)")
            let received = try capturingNonBlockingPipe(on: fd) {
                let t = try table(["a=|dd if=/dev/zero bs=65536 count=16 >&\(fd) 2>/dev/null; echo $? > '\(status)'"])
                t.finish()
            }
            XCTAssertEqual(contents(status), "0\n", "dd on fd \(fd)")
            XCTAssertEqual(received.count, 1 << 20, "fd \(fd)")
            XCTAssertTrue(received.allSatisfy { $0 == 0 }, "fd \(fd)")
        }
    }

    /// Runs `body` with `fd` a non-blocking pipe that a thread reads; returns what it read.
    private func capturingNonBlockingPipe(on fd: Int32, _ body: () throws -> Void) throws -> [UInt8] {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let saved = dup(fd)
        dup2(fds[1], fd)
        close(fds[1])
        let readEnd = fds[0]
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var received: [UInt8] = []
        Thread.detachNewThread {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(readEnd, &chunk, chunk.count)
                // A slow reader: the pipe fills, which a child given our
                // non-blocking pipe would see as EAGAIN.
                if n > 0 { received += chunk[..<n]; usleep(2_000) } else if n == 0 || errno != EINTR { break }
            }
            done.signal()
        }
        var failure: Error?
        do { try body() } catch { failure = error }
        StdioMode.restoreAll()
        dup2(saved, fd)   // the pipe's last write end: the reader sees EOF
        close(saved)
        done.wait()
        close(readEnd)
        if let failure { throw failure }
        return received
    }

    func testCommandsDoNotInheritEachOthersPipes() throws {
        // A second child holding the first one's write end would keep the first
        // from seeing EOF for as long as the second runs.
        let one = path("one"), two = path("two")
        let first = try table(["a=|cat > '\(one)'"])
        let writeEnd = try XCTUnwrap(route(in: first, "a").fd)
        let second = try table(["b=|if [ -e /proc/self/fd/\(writeEnd) ]; then echo leaked; else echo clean; fi > '\(two)'"])
        append("1\n", to: route(in: first, "a"))
        first.finish()
        second.finish()
        XCTAssertEqual(contents(one), "1\n")
        #if os(Linux)
        XCTAssertEqual(contents(two), "clean\n")
        #endif
    }

    private func route(in table: RouteTable, _ type: String) -> Destination {
        Array("{\"type\":\"\(type)\"}".utf8).withUnsafeBytes { table.destination(forJSON: $0) }
    }

    // MARK: back-pressure

    /// A FIFO the command reads to its end before it starts on its stdin: the
    /// test decides when a slow reader catches up (`open` returns once the
    /// command has the FIFO open; closing it lets the command go on).
    private func gate(_ name: String) -> (path: String, release: () -> Void) {
        let fifo = path(name)
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        return (fifo, {
            let fd = open(fifo, O_WRONLY)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        })
    }

    /// Runs the loop until `condition` holds (checked every 5 ms) or `seconds` pass.
    private func runLoop(until condition: @escaping () -> Bool, seconds: Double) {
        let deadline = monotonicNanos() + Int64(seconds * 1e9)
        func check() {
            if condition() || monotonicNanos() > deadline { loop.stop(); return }
            loop.schedule(afterNanos: 5_000_000) { check() }
        }
        loop.schedule(afterNanos: 0) { check() }
        loop.run()
    }

    func testBackPressureFromASlowCommand() throws {
        let out = path("slow.out")
        let gate = gate("gate")
        let t = try table(["a=|cat '\(gate.path)'; exec cat > '\(out)'"])
        let d = route(in: t, "a")
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1023) + [0x0A]
        for _ in 0 ..< 5 * 1024 { d.pending.append(contentsOf: chunk) }   // 5 MiB
        XCTAssertTrue(d.isBackedUp, "above the high water before any write")
        d.flush()
        XCTAssertFalse(d.isEmpty)
        XCTAssertTrue(d.isBackedUp)
        XCTAssertTrue(t.isBackedUp)
        var drained = 0
        t.onDrained = { [loop] in
            drained += 1
            loop.stop()
        }
        // The command does not read: the loop waits, nothing drains.
        runLoop(seconds: 0.05)
        XCTAssertEqual(drained, 0)
        XCTAssertTrue(t.isBackedUp)
        gate.release()
        runLoop(seconds: 20)
        XCTAssertEqual(drained, 1)
        XCTAssertFalse(t.isBackedUp)
        XCTAssertFalse(d.isBackedUp)
        XCTAssertLessThan(d.unwrittenBytes, 1 << 20)
        t.finish()
        var st = stat()
        XCTAssertEqual(stat(out, &st), 0)
        XCTAssertEqual(Int(st.st_size), 5 << 20)
        XCTAssertTrue(failures.isEmpty)
    }

    func testHysteresisBetweenLowAndHighWater() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let d = Destination(name: "test", fd: fds[1], loop: loop, highWater: 1 << 20, lowWater: 256 << 10)
        var drained = 0
        d.onDrained = { drained += 1 }
        d.pending = [UInt8](repeating: 0x41, count: (1 << 20) + 1)
        XCTAssertTrue(d.isBackedUp)
        d.flush()                          // the pipe takes ~64 KiB
        XCTAssertTrue(d.isBackedUp)
        // Read until the backlog is under the high water but above the low one.
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while d.unwrittenBytes > 512 << 10 {
            XCTAssertGreaterThan(read(fds[0], &buffer, buffer.count), 0)
            d.flush()
        }
        XCTAssertTrue(d.isBackedUp, "still backed up until below the low water")
        XCTAssertEqual(drained, 0)
        while !d.isEmpty {
            XCTAssertGreaterThan(read(fds[0], &buffer, buffer.count), 0)
            d.flush()
        }
        XCTAssertFalse(d.isBackedUp)
        XCTAssertEqual(drained, 1)
        d.finish()
    }

    /// A large line goes from the caller's bytes to the fd when nothing
    /// waits before it; what the pipe does not take is kept, in order, and
    /// nothing is written out of turn while lines wait.
    func testLargeLinesAreWrittenThroughInOrder() throws {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        let d = Destination(name: "test", fd: fds[1], loop: loop)
        var drained = 0
        d.onDrained = { drained += 1 }
        let small = Array("{\"a\":1}".utf8)
        let large = [UInt8]((0 ..< 300_000).map { UInt8(0x61 + $0 % 26) })
        // Empty: written at once, and what the pipe (64 KiB) did not take
        // waits in `pending`, its terminator after it.
        XCTAssertTrue(small.withUnsafeBytes { d.writeThrough($0, terminator: 10) })
        XCTAssertTrue(d.isEmpty, "a short line fits the pipe")
        XCTAssertTrue(large.withUnsafeBytes { d.writeThrough($0, terminator: 10) })
        XCTAssertGreaterThan(d.unwrittenBytes, 0)
        XCTAssertLessThan(d.unwrittenBytes, large.count + 1)
        // Lines waiting: nothing goes ahead of them.
        XCTAssertFalse(small.withUnsafeBytes { d.writeThrough($0, terminator: nil) })
        d.pending.append(contentsOf: small)
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 << 10)
        while !d.isEmpty {
            let n = read(fds[0], &buffer, buffer.count)
            XCTAssertGreaterThan(n, 0)
            got += buffer[..<n]
            d.flush()
        }
        while case let n = read(fds[0], &buffer, buffer.count), n > 0 {
            got += buffer[..<n]
            if got.count >= small.count * 2 + large.count + 2 { break }
        }
        XCTAssertEqual(got, small + [10] + large + [10] + small)
        XCTAssertEqual(drained, 0, "write-through never runs the drained callback")
        d.finish()
    }

    func testDrainedOnlyWhenEveryBackedUpDestinationDrained() throws {
        let gateA = gate("a"), gateB = gate("b")
        let t = try table(["a=|cat '\(gateA.path)'; exec cat > /dev/null",
                           "b=|cat '\(gateB.path)'; exec cat > /dev/null"])
        let a = route(in: t, "a"), b = route(in: t, "b")
        let big = [UInt8](repeating: 0x41, count: (4 << 20) + 100_000)
        a.pending = big
        b.pending = big
        t.flushAll()
        XCTAssertTrue(a.isBackedUp && b.isBackedUp)
        var calls = 0
        t.onDrained = { [loop] in calls += 1; loop.stop() }
        gateA.release()
        runLoop(until: { !a.isBackedUp }, seconds: 20)
        XCTAssertFalse(a.isBackedUp)
        XCTAssertEqual(calls, 0, "b is still backed up")
        XCTAssertTrue(t.isBackedUp)
        gateB.release()
        runLoop(seconds: 20)
        XCTAssertEqual(calls, 1)
        XCTAssertFalse(t.isBackedUp)
        t.finish()
    }

    func testFailureWhileBackedUpCountsAsDrained() throws {
        let gate = gate("gate")
        let t = try table(["a=|cat '\(gate.path)'; exec head -c 10 > /dev/null"])
        let d = route(in: t, "a")
        d.pending = [UInt8](repeating: 0x41, count: 5 << 20)
        var drained = 0
        t.onDrained = { [loop] in drained += 1; loop.stop() }
        d.flush()
        XCTAssertTrue(t.isBackedUp)
        gate.release()
        runLoop(seconds: 20)
        XCTAssertTrue(d.failed)
        XCTAssertEqual(drained, 1)
        XCTAssertFalse(t.isBackedUp)
        XCTAssertEqual(failures.map(\.reason), ["command exited"])
    }

    // MARK: drop and finish

    func testDropDiscards() throws {
        let t = try table(["*=drop"])
        append("x\n", to: t.fallback)
        XCTAssertFalse(t.isEmpty)
        t.flushAll()
        XCTAssertTrue(t.isEmpty)
        XCTAssertFalse(t.isBackedUp)
        XCTAssertNil(t.fallback.fd)
    }

    func testFinishIsIdempotentAndLaterLinesAreDropped() throws {
        let file = path("f")
        let t = try table(["*=\(file)"])
        append("a\n", to: t.fallback)
        t.finish()
        t.finish()
        append("b\n", to: t.fallback)
        t.flushAll()
        XCTAssertTrue(t.isEmpty)
        XCTAssertEqual(contents(file), "a\n")
        XCTAssertFalse(t.hadFailure)
    }
}
