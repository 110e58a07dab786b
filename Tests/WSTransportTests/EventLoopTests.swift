import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#endif

final class EventLoopTests: XCTestCase {
    override func setUp() {
        ignoreSIGPIPE()
    }

    /// Runs until a handler calls stop(), with a guard timer against a loop
    /// that would otherwise never return (the guard keeps the loop running:
    /// handlers must stop it).
    private func runWithDeadline(_ loop: EventLoop, seconds: Int64 = 10) {
        var expired = false
        let deadline = loop.schedule(afterNanos: seconds * 1_000_000_000) { expired = true; loop.stop() }
        loop.run()
        loop.cancel(deadline)
        XCTAssertFalse(expired, "the loop did not finish within \(seconds)s")
    }

    // MARK: timers

    /// The heap hands timers out by deadline, whatever the scheduling order.
    func testTimersFireInDeadlineOrder() {
        var queue = TimerQueue()
        var fired: [Int] = []
        for deadline in [30, 10, 20, 0, 25, 5] { _ = queue.schedule(deadline: Int64(deadline)) { fired.append(deadline) } }
        while let callback = queue.popDue(now: 100) { callback() }
        XCTAssertEqual(fired, [0, 5, 10, 20, 25, 30])
    }

    /// On the loop: a timer scheduled later with an earlier deadline fires first.
    func testLoopFiresTheEarlierDeadlineFirst() {
        let loop = EventLoop()
        var fired: [String] = []
        let late = loop.schedule(afterNanos: 10_000_000_000) { fired.append("late") }
        loop.schedule(afterNanos: 1_000_000) { fired.append("early"); loop.cancel(late) }
        loop.run()
        XCTAssertEqual(fired, ["early"])
    }

    /// Equal deadlines fire in the order they were scheduled.
    func testEqualDeadlinesKeepSchedulingOrder() {
        var queue = TimerQueue()
        var fired: [Int] = []
        for name in 0..<50 { _ = queue.schedule(deadline: 100) { fired.append(name) } }
        while let callback = queue.popDue(now: 100) { callback() }
        XCTAssertEqual(fired, Array(0..<50))
    }

    /// A timer at the end of time neither fires at once (a wrapped deadline
    /// was in the past) nor traps while the loop computes its poll timeout.
    func testATimerAtTheEndOfTimeWaits() {
        let loop = EventLoop()
        var fired: [String] = []
        loop.schedule(afterNanos: Int64.max) { fired.append("never") }
        loop.schedule(afterNanos: Int64.max - 5) { fired.append("never either") }
        loop.schedule(afterNanos: 20_000_000) { fired.append("soon"); loop.stop() }
        loop.run()
        XCTAssertEqual(fired, ["soon"])
    }

    func testNothingFiresBeforeItsDeadline() {
        var queue = TimerQueue()
        _ = queue.schedule(deadline: 200) {}
        XCTAssertNil(queue.popDue(now: 199))
        XCTAssertEqual(queue.nextDeadline(), 200)
        XCTAssertNotNil(queue.popDue(now: 200))
        XCTAssertTrue(queue.isEmpty)
    }

    func testCancelledTimerNeverFires() {
        let loop = EventLoop()
        var fired: [String] = []
        let a = loop.schedule(afterNanos: 1_000_000) { fired.append("a") }
        loop.schedule(afterNanos: 2_000_000) { fired.append("b") }
        loop.cancel(a)
        loop.cancel(a)   // twice: a no-op
        loop.run()
        XCTAssertEqual(fired, ["b"])
    }

    /// Zero (and negative) delays run on the loop's next turn, never inside schedule().
    func testZeroDelayRunsOnTheNextTurn() {
        let loop = EventLoop()
        var fired: [String] = []
        loop.schedule(afterNanos: 0) { fired.append("zero") }
        loop.schedule(afterNanos: -5_000_000_000) { fired.append("negative") }
        XCTAssertEqual(fired, [])
        loop.run()
        XCTAssertEqual(fired, ["zero", "negative"])
    }

    /// Both timers are due in the same turn; the first cancels the second.
    func testCancelFromInsideATimer() {
        let loop = EventLoop()
        var fired: [String] = []
        var second: EventLoop.TimerID?
        loop.schedule(afterNanos: 0) {
            fired.append("first")
            if let second { loop.cancel(second) }
        }
        second = loop.schedule(afterNanos: 0) { fired.append("second") }
        loop.schedule(afterNanos: 0) { fired.append("third") }
        loop.run()
        XCTAssertEqual(fired, ["first", "third"])
    }

    func testTimerCancellingItselfAndSchedulingAnother() {
        let loop = EventLoop()
        var fired: [String] = []
        var me: EventLoop.TimerID?
        me = loop.schedule(afterNanos: 0) {
            fired.append("once")
            if let me { loop.cancel(me) }
            loop.schedule(afterNanos: 0) { fired.append("next") }
        }
        loop.run()
        XCTAssertEqual(fired, ["once", "next"])
    }

    /// A timer re-armed many times (a ping timeout per message) leaves dead
    /// entries behind; the heap compacts them away and keeps the order.
    func testManyCancellationsKeepOrder() {
        var queue = TimerQueue()
        var fired: [Int] = []
        var ids: [UInt64] = []
        for k in 0..<1000 { ids.append(queue.schedule(deadline: Int64(1000 - k)) { fired.append(k) }) }
        for (k, id) in ids.enumerated() where k % 10 != 0 { queue.cancel(id) }
        while let callback = queue.popDue(now: 10_000) { callback() }
        XCTAssertEqual(fired, Array(stride(from: 990, through: 0, by: -10)))
        XCTAssertTrue(queue.isEmpty)
    }

    func testStopBeforeRunReturnsAtOnce() {
        let loop = EventLoop()
        var fired = false
        loop.schedule(afterNanos: 0) { fired = true }
        loop.stop()
        loop.run()
        XCTAssertFalse(fired)
        loop.run()
        XCTAssertTrue(fired)
    }

    // MARK: fds

    func testReadableFDIsReported() throws {
        let loop = EventLoop()
        let p = try Pipe()
        p.send("x")
        var seen: EventLoop.Readiness = []
        loop.watch(p.read, .read) { ready in seen = ready; loop.unwatch(p.read); loop.stop() }
        runWithDeadline(loop)
        XCTAssertTrue(seen.contains(.readable))
        p.closeBoth()
    }

    /// The handler of a lower fd unwatches a ready fd and reuses its number
    /// for a new, idle registration in the same round: the new handler must
    /// not get the old registration's readiness.
    func testReusedFDNumberDoesNotInheritStaleReadiness() throws {
        let loop = EventLoop()
        let trigger = try Pipe()
        let old = try Pipe()
        XCTAssertLessThan(trigger.read, old.read, "the trigger must come first in the poll array")
        trigger.send("t")
        old.send("o")
        let reusedNumber = old.read
        var oldCalls = 0, newCalls = 0
        var replacement: Pipe?
        loop.watch(old.read, .read) { _ in oldCalls += 1 }
        loop.watch(trigger.read, .read) { _ in
            loop.unwatch(trigger.read)
            loop.unwatch(old.read)
            old.closeBoth()
            // A new, empty pipe whose read end takes the old number.
            let fresh = try! Pipe()
            fresh.moveRead(to: reusedNumber)
            replacement = fresh
            loop.watch(fresh.read, .read) { _ in newCalls += 1; loop.unwatch(fresh.read); loop.stop() }
            // Ends the test after this round and one more.
            loop.schedule(afterNanos: 0) { loop.schedule(afterNanos: 0) { loop.stop() } }
        }
        runWithDeadline(loop)
        XCTAssertEqual(oldCalls, 0, "the old registration was gone before its turn")
        XCTAssertEqual(newCalls, 0, "the new registration got the stale POLLIN of the old pipe")
        // It still hears about its own data.
        replacement?.send("n")
        runWithDeadline(loop)
        XCTAssertEqual(newCalls, 1)
        replacement?.closeBoth()
        trigger.closeBoth()
    }

    /// An fd unwatched by an earlier handler of the same round is not reported.
    func testUnwatchedInTheSameRoundIsNotReported() throws {
        let loop = EventLoop()
        let a = try Pipe(), b = try Pipe()
        a.send("a")
        b.send("b")
        var calls: [String] = []
        loop.watch(a.read, .read) { _ in
            calls.append("a")
            loop.unwatch(a.read)
            loop.unwatch(b.read)
            loop.schedule(afterNanos: 0) { loop.schedule(afterNanos: 0) { loop.stop() } }
        }
        loop.watch(b.read, .read) { _ in calls.append("b") }
        runWithDeadline(loop)
        XCTAssertEqual(calls, ["a"])
        a.closeBoth()
        b.closeBoth()
    }

    /// Interest [] still reports a hang-up (the writer closed).
    func testHangupIsReportedWithoutInterest() throws {
        let loop = EventLoop()
        let p = try Pipe()
        p.closeWrite()
        var seen: EventLoop.Readiness = []
        loop.watch(p.read, []) { ready in seen = ready; loop.unwatch(p.read); loop.stop() }
        runWithDeadline(loop)
        XCTAssertTrue(seen.contains(.hangup))
        XCTAssertFalse(seen.contains(.readable))
        p.closeBoth()
    }

    /// setInterest to [] silences a readable fd; back to .read reports it again.
    func testSetInterestPausesAndResumes() throws {
        let loop = EventLoop()
        let p = try Pipe()
        p.send("x")
        var calls = 0
        loop.watch(p.read, .read) { _ in
            calls += 1
            loop.setInterest(p.read, [])
            loop.schedule(afterNanos: 1_000_000) {
                if calls == 1 { loop.setInterest(p.read, .read) } else { loop.unwatch(p.read); loop.stop() }
            }
        }
        runWithDeadline(loop)
        XCTAssertEqual(calls, 2)
        p.closeBoth()
    }
}

/// A non-blocking pipe for loop tests.
final class Pipe {
    private(set) var read: Int32
    private(set) var write: Int32

    init() throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw TransportError.posix("pipe") }
        read = fds[0]
        write = fds[1]
        _ = makeNonBlockingCloexec(read)
        _ = makeNonBlockingCloexec(write)
    }

    /// dup2 the read end onto `number` (which must be free).
    func moveRead(to number: Int32) {
        guard read != number else { return }
        precondition(dup2(read, number) == number)
        FD.close(read)
        read = number
        _ = makeNonBlockingCloexec(read)
    }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { FD.writeAll(write, $0) }
    }

    func closeWrite() {
        if write >= 0 { FD.close(write); write = -1 }
    }

    func closeBoth() {
        closeWrite()
        if read >= 0 { FD.close(read); read = -1 }
    }
}
