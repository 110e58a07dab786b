import XCTest
import WSTransport
@testable import WSBridge
@testable import WSMessages
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// StdinPump reading a pipe on a real event loop: lines become messages,
/// invalid ones are counted, pause stops the reading, EOF ends it once.
final class StdinPumpTests: XCTestCase {
    private var loop = EventLoop()
    private var readEnd: Int32 = -1
    private var writeEnd: Int32 = -1
    private var delivered: [String] = []
    private var batches = 0
    private var ends = 0
    private var accept = true

    override func setUp() {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        (readEnd, writeEnd) = (fds[0], fds[1])
    }

    override func tearDown() {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }

    private func pump(format: LineFormat = .json, strict: Bool = false) -> StdinPump {
        let settings = StdinPump.Settings(format: format, separator: 10, lenient: false, strict: strict,
                                          maxPendingBytes: 1 << 20)
        return StdinPump(fd: readEnd, loop: loop, settings: settings, log: Diagnostics(verbosity: 0, quiet: true),
                         deliver: { [unowned self] message in
                             switch message {
                             case .text(let b): self.delivered.append("t:" + String(decoding: b, as: UTF8.self))
                             case .binary(let b): self.delivered.append("b:\(Array(b))")
                             }
                             return self.accept
                         },
                         afterBatch: { [unowned self] in self.batches += 1 },
                         onEnd: { [unowned self] in self.ends += 1 })
    }

    private func send(_ text: String) { writeAll(writeEnd, Array(text.utf8)) }

    private func closeWriter() {
        close(writeEnd)
        writeEnd = -1
    }

    func testLinesBecomeMessagesAndEOFEndsOnce() {
        let p = pump()
        p.resume()
        send("{\"a\":1}\n\n{\"$binary\":\"AAE=\"}\n{\"b\":")
        closeWriter()
        runLoop(loop) { self.ends > 0 }
        XCTAssertEqual(delivered, ["t:{\"a\":1}", "b:[0, 1]"])
        XCTAssertEqual(ends, 1)
        XCTAssertEqual(p.rejectedLines, 1, "the unfinished value at EOF is reported")
        XCTAssertTrue(p.finished)
        XCTAssertGreaterThan(batches, 0)
    }

    func testInvalidLinesAreCountedNotSent() {
        let p = pump()
        p.resume()
        send("hello\n{\"ok\":true}\n")
        closeWriter()
        runLoop(loop) { self.ends > 0 }
        XCTAssertEqual(delivered, ["t:{\"ok\":true}"])
        XCTAssertEqual(p.rejectedLines, 1)
    }

    func testStrictStopsAtTheFirstInvalidLine() {
        let p = pump(strict: true)
        p.resume()
        send("{\"a\":1}\nnope\n{\"b\":2}\n")
        runLoop(loop) { self.ends > 0 }
        XCTAssertEqual(delivered, ["t:{\"a\":1}"])
        XCTAssertTrue(p.finished)
    }

    func testRefusedMessagesCountAsUnsent() {
        let p = pump(format: .text)
        accept = false
        p.resume()
        send("x\ny\n")
        closeWriter()
        runLoop(loop) { self.ends > 0 }
        XCTAssertEqual(p.unsentLines, 2)
    }

    func testPausedPumpReadsNothing() {
        let p = pump(format: .text)
        p.resume()
        p.pause()
        send("held\n")
        var rounds = 0
        runLoop(loop) { rounds += 1; return rounds > 20 }
        XCTAssertTrue(delivered.isEmpty)
        p.resume()
        runLoop(loop) { !self.delivered.isEmpty }
        XCTAssertEqual(delivered, ["t:held"])
        XCTAssertEqual(p.lineNumber, 1)
    }
}
