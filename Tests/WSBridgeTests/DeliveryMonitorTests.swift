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

    func start() -> Bool { stamps }

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
        kernel.acknowledgements = [(10, 1_000), (20, 2_000), (30, 3_000)]
        XCTAssertTrue(monitor.errorQueueReady(), "POLLERR: stamps waited")
        XCTAssertFalse(monitor.errorQueueReady(), "POLLERR with no stamp is the socket's own")
        message(arrival: 2_500)
        XCTAssertEqual(confirmed, 2, "acknowledged before 2.5 µs: two messages")
        message(arrival: 3_000)
        XCTAssertEqual(confirmed, 2, "an acknowledgement stamped with the message's own arrival came with it")
        message(arrival: 3_001)
        XCTAssertEqual(confirmed, 3)
    }

    func testStampsAreDrainedBeforeASignOfLifeIsCredited() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        kernel.acknowledgements = [(20, 1_000)]   // not announced by POLLERR yet
        message(arrival: 5_000)
        XCTAssertEqual(confirmed, 2)
    }

    func testAMessageThatDidNotEndTheReadIsCreditedWithTheReadBefore() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        message(arrival: 1_000)
        kernel.acknowledgements = [(10, 1_500), (20, 2_500)]
        kernel.lastArrival = 3_000
        monitor.arrived()
        monitor.readBegins()
        monitor.update { $0.signOfLife() }
        monitor.update { $0.otherEvent() }   // a ping after the message, in the same read
        monitor.readEnded(endsBetweenMessages: true, peerGone: false)
        XCTAssertEqual(confirmed, 0, "it arrived after 1 µs, perhaps before the acknowledgements")
        message(arrival: 4_000)
        XCTAssertEqual(confirmed, 2)
    }

    func testAReadWithoutAStampConfirmsOnlyWhatCameBeforeTheReadBefore() {
        kernel.stamps = true
        start()
        sendAndWrite(2)
        kernel.acknowledgements = [(20, 1_500)]
        message(arrival: nil)
        XCTAssertEqual(confirmed, 0, "no stamp yet: nothing is known of its arrival")
        message(arrival: 1_000)
        XCTAssertEqual(confirmed, 0)
        message(arrival: nil)
        XCTAssertEqual(confirmed, 0, "it came after 1 µs, no more is known")
        message(arrival: 2_000)
        XCTAssertEqual(confirmed, 2)
    }

    func testWithStampsTheChannelNeitherAsksNorLooksWhenItStops() {
        kernel.stamps = true
        start()
        sendAndWrite(1)
        clock.advance(by: DeliveryAccount.queryInterval)
        monitor.stopped()
        XCTAssertEqual(kernel.asked, 0)
        XCTAssertEqual(clock.pendingCount, 0)
    }
}
