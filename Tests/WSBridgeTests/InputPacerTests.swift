import XCTest
import WSTransport
@testable import WSBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// --rate: the pacer's grid, and a StdinPump that paces a pipe's lines.
final class InputPacerTests: XCTestCase {
    func testFirstMessageGoesAtOnceThenOneAnInterval() {
        var p = InputPacer(intervalNanos: 100)
        XCTAssertEqual(p.delay(now: 5_000), 0)
        p.sent(now: 5_000)
        XCTAssertEqual(p.delay(now: 5_000), 100)
        XCTAssertEqual(p.delay(now: 5_060), 40)
        XCTAssertEqual(p.delay(now: 5_100), 0)
    }

    func testSmallLatenessKeepsTheGrid() {
        var p = InputPacer(intervalNanos: 100)
        p.sent(now: 0)
        p.sent(now: 130)   // due at 100, 30 late
        XCTAssertEqual(p.delay(now: 130), 70, "due at 200, not 230: no drift")
        p.sent(now: 210)
        XCTAssertEqual(p.delay(now: 210), 90)
    }

    func testLongPauseStartsANewGridWithoutABurst() {
        var p = InputPacer(intervalNanos: 100)
        p.sent(now: 0)
        p.sent(now: 1_000)   // due at 100: 900 late
        XCTAssertEqual(p.delay(now: 1_000), 100, "the next one still waits a whole interval")
    }

    func testStdinPumpPacesLinesAndEndsAfterTheLast() {
        let loop = EventLoop()
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var times: [Int64] = []
        var ended = false
        let interval: Int64 = 20_000_000
        let settings = StdinPump.Settings(format: .json, separator: 10, lenient: false, strict: false,
                                          maxPendingBytes: 1 << 20, rateIntervalNanos: interval)
        let pump = StdinPump(fd: fds[0], loop: loop, settings: settings, log: Diagnostics(verbosity: 0, quiet: true),
                             deliver: { _ in times.append(monotonicNanos()); return true },
                             afterBatch: {}, onEnd: { ended = true })
        pump.resume()
        // All at once, and a last line without a newline: pacing, not the input, spaces them.
        writeAll(fds[1], Array("{\"n\":1}\n\n{\"n\":2}\n{\"n\":3}\n{\"n\":4}\n{\"n\":5}".utf8))
        close(fds[1])
        runLoop(loop) { ended }
        XCTAssertEqual(times.count, 5)
        // On the grid the first message starts: message k not before k
        // intervals after it. (Two neighbours may be closer than an interval
        // when the first of them was late: the grid does not drift.)
        for (k, time) in times.enumerated() {
            XCTAssertGreaterThanOrEqual(time - times[0], Int64(k) * interval - 2_000_000, "message \(k) went out early")
        }
    }

    func testPausedPumpWaitsAndResumesPacing() {
        let loop = EventLoop()
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        var count = 0
        let settings = StdinPump.Settings(format: .json, separator: 10, lenient: false, strict: false,
                                          maxPendingBytes: 1 << 20, rateIntervalNanos: 5_000_000)
        var pump: StdinPump!
        pump = StdinPump(fd: fds[0], loop: loop, settings: settings, log: Diagnostics(verbosity: 0, quiet: true),
                         deliver: { _ in count += 1; if count == 2 { pump.pause() }; return true },
                         afterBatch: {}, onEnd: {})
        pump.resume()
        writeAll(fds[1], Array("1\n2\n3\n4\n".utf8))
        runLoop(loop) { count == 2 }
        var waited = false
        loop.schedule(afterNanos: 50_000_000) { waited = true }
        runLoop(loop) { waited }
        XCTAssertEqual(count, 2, "nothing goes out while paused")
        pump.resume()
        runLoop(loop) { count == 4 }
    }
}
