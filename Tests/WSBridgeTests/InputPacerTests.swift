import XCTest
import WSTransport
@testable import WSBridge
@testable import WSMessages
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

/// --rate and --idle-timeout on a manual clock: the rules to the nanosecond,
/// without waiting. The pipe is still read on a real loop; only time is the
/// test's.
final class ManualClockTimingTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    private func pacedPump(_ clock: ManualScheduler, loop: EventLoop, fd: Int32, intervalNanos: Int64,
                           times: @escaping (Int64, String) -> Void, ended: @escaping () -> Void) -> StdinPump {
        let settings = StdinPump.Settings(format: .text, separator: 10, lenient: false, strict: false,
                                          maxPendingBytes: 1 << 20, rateIntervalNanos: intervalNanos)
        return StdinPump(fd: fd, loop: loop, clock: clock, settings: settings, log: Diagnostics(verbosity: 0, quiet: true),
                         deliver: { message in
                             if case .text(let bytes) = message { times(clock.now, String(decoding: bytes, as: UTF8.self)) }
                             return true
                         },
                         afterBatch: {}, onEnd: ended)
    }

    func testRateReleasesOneLineAnIntervalOnTheClock() {
        let loop = EventLoop()
        let clock = ManualScheduler()
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var sent: [(Int64, String)] = []
        var ended = false
        let pump = pacedPump(clock, loop: loop, fd: fds[0], intervalNanos: 100 * ms,
                             times: { sent.append(($0 / 1_000_000, $1)) }, ended: { ended = true })
        pump.resume()
        writeAll(fds[1], Array("a\nb\nc\nd".utf8))
        close(fds[1])
        runLoop(loop) { sent.count == 1 }
        XCTAssertEqual(pump.phase, .pacing(.lines), "the rest waits for the pacer, stdin unread")
        clock.advance(by: 99 * ms)
        XCTAssertEqual(sent.count, 1, "not a nanosecond early")
        clock.advance(by: 1 * ms)
        XCTAssertEqual(sent.count, 2)
        clock.advance(by: 100 * ms)
        XCTAssertEqual(sent.map(\.1), ["a", "b", "c"])
        // The turn after c finds no complete line: stdin is read again, and
        // its EOF leaves the unterminated last line waiting for its turn.
        clock.advance(by: 100 * ms)
        XCTAssertEqual(pump.phase, .reading)
        runLoop(loop) { pump.phase == .pacing(.end) || ended }
        XCTAssertFalse(ended, "the end waits for the last line's turn")
        clock.advance(by: 0)
        XCTAssertTrue(ended)
        XCTAssertEqual(sent.map(\.0), [0, 100, 200, 300])
        XCTAssertEqual(sent.map(\.1), ["a", "b", "c", "d"])
        XCTAssertEqual(clock.pendingCount, 0)
    }

    func testPauseCancelsThePacerAndResumeKeepsTheGrid() {
        let loop = EventLoop()
        let clock = ManualScheduler()
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        var sent: [Int64] = []
        let pump = pacedPump(clock, loop: loop, fd: fds[0], intervalNanos: 10 * ms,
                             times: { t, _ in sent.append(t / 1_000_000) }, ended: {})
        pump.resume()
        writeAll(fds[1], Array("1\n2\n3\n".utf8))
        runLoop(loop) { sent.count == 1 }
        pump.pause()
        XCTAssertEqual(pump.phase, .paused(holding: .lines))
        XCTAssertEqual(clock.pendingCount, 0, "no timer while paused")
        clock.advance(by: 50 * ms)
        XCTAssertEqual(sent, [0])
        pump.resume()
        XCTAssertEqual(clock.pendingCount, 1)
        clock.advance(by: 0)
        XCTAssertEqual(sent, [0, 50], "long overdue: it goes at once, on a new grid")
        clock.advance(by: 9 * ms)
        XCTAssertEqual(sent, [0, 50])
        clock.advance(by: 1 * ms)
        XCTAssertEqual(sent, [0, 50, 60])
    }

    func testIdleTimeoutCountsFromTheLastMessage() {
        let clock = ManualScheduler()
        var reasons: [ClientLifecycle.StopReason] = []
        let ending = ScriptedEnding(until: nil, idleNanos: 1000, clock: clock) { reasons.append($0) }
        clock.advance(by: 5000)
        XCTAssertTrue(reasons.isEmpty, "the clock starts at the connection")
        ending.connected()
        clock.advance(by: 600)
        ending.received()
        clock.advance(by: 400)
        XCTAssertTrue(reasons.isEmpty, "600 ns since the message")
        clock.advance(by: 599)
        XCTAssertTrue(reasons.isEmpty)
        clock.advance(by: 1)
        XCTAssertEqual(reasons, [.idleTimeout])
        XCTAssertEqual(clock.pendingCount, 0)
        ending.received()
        ending.connected()
        clock.advance(by: 10_000)
        XCTAssertEqual(reasons, [.idleTimeout], "it fires once")
    }
}
