import XCTest
import WSCore
import WSTransport
@testable import WSBridge

/// A kernel the test scripts: what it holds, what waits to be read, the
/// acknowledgements it stamped, the arrival of the last read, its window.
final class ScriptedKernel: KernelQueue {
    var stamps = false
    var bytesWritten = 0
    var unacknowledged: Int? = 0
    var holdsUnreadInput = false
    var acknowledgements: [(Int, Int64)] = []
    var lastArrival: Int64?
    var window: (acknowledged: Int, window: Int)?
    private(set) var asked = 0

    func start(stamps wanted: Bool) -> Bool { stamps && wanted }

    func unacknowledgedBytes() -> Int? {
        asked += 1
        return unacknowledged
    }

    func takeAcknowledgements(_ body: (Int, Int64) -> Void) -> Int {
        defer { acknowledgements.removeAll() }
        for (offset, nanos) in acknowledgements { body(offset, nanos) }
        return acknowledgements.count
    }

    func receiveWindow() -> (acknowledged: Int, window: Int)? { window }
}

/// `DeliveryMonitor` on a scripted kernel and a manual clock: when it asks
/// the kernel, when it looks at the input, its look timer, and (with the
/// kernel's stamps) what a sign of life is credited with.
final class DeliveryMonitorTests: XCTestCase {
    private let kernel = ScriptedKernel()
    private let clock = ManualScheduler()
    private var monitor: DeliveryMonitor!
    private var canLook = true
    private var readsSoon = 0
    private var released: [DeliveryAccount.Release] = []

    private func start() {
        monitor = DeliveryMonitor(kernel: kernel, scheduler: clock)
        monitor.canLookAtInput = { [unowned self] in self.canLook }
        monitor.readSoon = { [unowned self] in self.readsSoon += 1 }
        monitor.release = { [unowned self] in self.released.append($0) }
        monitor.wallClock = { 0 }
        monitor.start()
    }

    /// `count` messages of 10 bytes, tagged 1, 2, ...; written.
    private func sendAndWrite(_ count: Int) {
        for _ in 0..<count {
            let next = monitor.account.queuedRecords
            monitor.update { $0.recorded(tag: next + 1, end: (next + 1) * 10) }
        }
        kernel.bytesWritten += count * 10
        monitor.wrote(count * 10)
    }

    /// A read that brought one message, the last thing it held.
    private func message(arrival: Int64? = nil, gone: Bool = false) {
        kernel.lastArrival = arrival
        monitor.bytesRead += 1
        monitor.arrived()
        monitor.readBegins()
        monitor.update { $0.signOfLife() }
        monitor.readEnded(endsBetweenMessages: true, peerGone: gone)
    }

    private var confirmed: Int { monitor.account.confirmedRecords }

    // MARK: the bound

    func testWhenTheChannelStopsItAsksThenLooks() {
        start()
        sendAndWrite(3)
        kernel.unacknowledged = 10
        clock.advance(by: DeliveryAccount.queryInterval)
        monitor.stopped()
        XCTAssertEqual(kernel.asked, 1)
        XCTAssertEqual(monitor.account.acknowledgedRecords, 2)
        XCTAssertEqual(monitor.account.confirmableRecords, 2, "nothing waited to be read")
        message()
        XCTAssertEqual(confirmed, 2)
    }

    func testInputThatWaitsIsReadSoonAndConfirmsNothingYet() {
        start()
        sendAndWrite(1)
        kernel.holdsUnreadInput = true
        clock.advance(by: DeliveryAccount.queryInterval)
        monitor.stopped()
        XCTAssertEqual(readsSoon, 1)
        XCTAssertEqual(monitor.account.confirmableRecords, 0, "what waits may have been sent before the acknowledgement")
        message()
        XCTAssertEqual(confirmed, 0)
    }

    func testNoLookWhileAFrameIsUnderWayOrReadingHasNotStarted() {
        start()
        sendAndWrite(1)
        canLook = false
        clock.advance(by: DeliveryAccount.queryInterval)
        monitor.stopped()
        XCTAssertEqual(monitor.account.confirmableRecords, 0)
    }

    func testTheLookTimerRunsWhileBytesAreInFlight() {
        start()
        sendAndWrite(2)
        kernel.unacknowledged = 20
        monitor.stopped()
        XCTAssertEqual(clock.pendingCount, 1, "bytes in flight")
        kernel.unacknowledged = 10
        clock.advance(by: DeliveryAccount.fastLook)
        XCTAssertEqual(monitor.account.confirmableRecords, 1, "the timer asked and looked")
        kernel.unacknowledged = 0
        clock.advance(by: DeliveryAccount.fastLook)
        XCTAssertEqual(monitor.account.confirmableRecords, 2)
        XCTAssertEqual(clock.pendingCount, 0, "all acknowledged: no timer")
    }

    func testEveryCheckStepWrittenReleasesWhatWasAcknowledged() {
        start()
        let step = DeliveryAccount.checkStep / 10
        kernel.unacknowledged = 100
        sendAndWrite(step + 1)
        XCTAssertEqual(released.count, 1)
        XCTAssertEqual(released[0].end, (step + 1) * 10 - 100)
    }

    // MARK: the kernel's stamps

    func testAStampedSignOfLifeIsCreditedWithWhatWasAcknowledgedBeforeItArrived() {
        kernel.stamps = true
        start()
        XCTAssertTrue(monitor.exact)
        sendAndWrite(4)
        kernel.acknowledgements = [(10, 1_000_000), (20, 2_000_000), (30, 3_000_000)]
        XCTAssertTrue(monitor.errorQueueReady(), "POLLERR: stamps waited")
        XCTAssertFalse(monitor.errorQueueReady(), "POLLERR with no stamp is the socket's own")
        message(arrival: 2_500_000)
        XCTAssertEqual(confirmed, 2, "acknowledged before 2.5 ms: two messages")
        XCTAssertEqual(monitor.account.readCredit, DeliveryAccount.ReadCredit(last: 2, others: 0))
        message(arrival: 2_990_000)
        XCTAssertEqual(confirmed, 3, "stamped 10 µs after it arrived: the acknowledgement its segment carried")
    }

    func testAnAcknowledgementStampedLaterCameWithALaterSegment() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        kernel.acknowledgements = [(10, 1_000_000), (20, 2_000_000)]
        message(arrival: 1_000_000)
        XCTAssertEqual(confirmed, 1, "carried by the message's own segment: counted")
        message(arrival: 2_000_000 - AckTimeline.carried - 1)
        XCTAssertEqual(confirmed, 1, "stamped later than a segment's own acknowledgement is")
        message(arrival: 2_000_000 - AckTimeline.carried)
        XCTAssertEqual(confirmed, 2)
    }

    func testAMessageThatDidNotEndTheReadIsCreditedWithTheReadBefore() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        message(arrival: 1_000_000)
        kernel.acknowledgements = [(10, 1_500_000), (20, 2_500_000)]
        kernel.lastArrival = 3_000_000
        monitor.arrived()
        monitor.readBegins()
        monitor.update { $0.signOfLife() }
        monitor.update { $0.otherEvent() }   // a ping after the message, in the same read
        monitor.readEnded(endsBetweenMessages: true, peerGone: false)
        XCTAssertEqual(confirmed, 0, "it arrived after 1 ms, perhaps before the acknowledgements")
        message(arrival: 4_000_000)
        XCTAssertEqual(confirmed, 2)
    }

    /// Autobahn 3.4, 4.1.5, 4.2.5: the server echoed nothing after our
    /// echo, it broke the protocol; those bytes (and what follows them,
    /// undecoded) are its application's, a sign of life where they end the
    /// read, though no frame ends there.
    func testBytesThatBreakTheProtocolAreASignOfLife() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        kernel.acknowledgements = [(10, 1_000_000), (20, 2_000_000)]
        kernel.lastArrival = 3_000_000
        monitor.bytesRead += 1
        monitor.arrived()
        monitor.readBegins()
        monitor.update { $0.brokeProtocol() }
        monitor.readEnded(endsBetweenMessages: false, peerGone: false)
        XCTAssertEqual(confirmed, 2, "acknowledged before the broken bytes arrived")
        sendAndWrite(1)
        kernel.acknowledgements = [(30, 4_000_000)]
        kernel.lastArrival = 5_000_000
        monitor.arrived()
        monitor.readBegins()
        monitor.update { $0.otherEvent() }   // a half frame: no sign of life
        monitor.readEnded(endsBetweenMessages: false, peerGone: false)
        XCTAssertEqual(confirmed, 2, "an event that is no sign of life confirms nothing")
    }

    func testAReadWithoutAStampConfirmsOnlyWhatCameBeforeTheReadBefore() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        kernel.acknowledgements = [(20, 1_500_000)]
        message(arrival: nil)
        XCTAssertEqual(confirmed, 0, "no stamp yet: nothing is known of its arrival")
        message(arrival: 1_000_000)
        XCTAssertEqual(confirmed, 0)
        message(arrival: nil)
        XCTAssertEqual(confirmed, 0, "it came after 1 ms, no more is known")
        message(arrival: 2_000_000)
        XCTAssertEqual(confirmed, 2)
    }

    /// Issue 30 item 2: what the peer's TCP took and its application may not
    /// have read, by its window, is unread, not confirmed.
    func testTheWindowKeepsWhatMayBeUnreadFromBeingConfirmed() {
        kernel.stamps = true
        kernel.window = (0, 1000)
        start()
        sendAndWrite(10)   // 100 bytes
        kernel.acknowledgements = [(100, 1_000_000)]
        kernel.window = (100, 985)   // 15 bytes wait in its buffer: taken twice
        message(arrival: 2_000_000)
        XCTAssertEqual(monitor.account.spokenRecords, 10)
        XCTAssertEqual(confirmed, 7, "its window says 30 bytes may be unread")
        monitor.end()
        let fates = monitor.account.fates(confirmedAll: false)
        XCTAssertEqual(fates.unread.lines, "stdin:8-10")
        XCTAssertTrue(fates.unconfirmed.isEmpty)
        kernel.window = (100, 1000)
    }

    func testTheWindowLaterOpenConfirmsWhatWasUnread() {
        kernel.stamps = true
        kernel.window = (0, 1000)
        start()
        sendAndWrite(10)
        kernel.acknowledgements = [(100, 1_000_000)]
        kernel.window = (100, 900)
        message(arrival: 2_000_000)
        XCTAssertEqual(confirmed, 0)
        kernel.window = (100, 1000)
        message(arrival: 3_000_000)
        XCTAssertEqual(confirmed, 10, "read since")
    }

    func testWithStampsTheChannelNeverAsksTheKernelWhenItStops() {
        kernel.stamps = true
        start()
        sendAndWrite(1)
        message(arrival: 1_000)
        clock.advance(by: DeliveryAccount.queryInterval)
        monitor.stopped()
        XCTAssertEqual(kernel.asked, 0)
        XCTAssertEqual(clock.pendingCount, 0, "no look timer")
    }

    /// Linux turns arrival stamps on for the whole system a moment after a
    /// socket asks: until a read brings one, a look at the input when the
    /// channel stops gives an unstamped read a time it arrived after.
    func testWhileStampsAreMissingALookGivesUnstampedReadsAFloor() {
        kernel.stamps = true
        start()
        monitor.wallClock = { 5_000 }
        sendAndWrite(2)
        kernel.acknowledgements = [(20, 4_000)]
        monitor.stopped()
        message(arrival: nil)
        XCTAssertEqual(confirmed, 2, "acknowledged before the input was seen empty at 5 µs")
    }

    func testALookThatFindsInputWaitingGivesNoFloor() {
        kernel.stamps = true
        start()
        monitor.wallClock = { 5_000 }
        sendAndWrite(2)
        kernel.acknowledgements = [(20, 4_000)]
        kernel.holdsUnreadInput = true
        monitor.stopped()
        XCTAssertEqual(readsSoon, 1)
        message(arrival: nil)
        XCTAssertEqual(confirmed, 0)
    }
}
