import XCTest
import WSCore
@testable import WSBridge

/// The pure delivery account and the client's kept frames: what a sign of
/// life, a pong and the kernel's word confirm, what comes back after a drop,
/// tagged, with its fate (issue 19; issue 35: the account stands alone).
final class DeliveryAccountTests: XCTestCase {
    private var connection = Connection(role: .client, maxMessageSize: 1 << 20)
    private var account = DeliveryAccount()
    private var kept = KeptFrames()

    /// Sends text messages tagged `firstTag`, `firstTag` + 1, ...
    private func send(_ messages: [[UInt8]], firstTag: Int = 1, binary: Bool = false) {
        for (i, m) in messages.enumerated() {
            m.withUnsafeBytes { binary ? connection.sendBinary($0) : connection.sendText($0) }
            account.recorded(tag: firstTag + i, end: kept.released + connection.output.readableBytes)
        }
    }

    private func text(_ strings: String...) -> [[UInt8]] { strings.map { Array($0.utf8) } }

    /// The transport wrote `count` more bytes (plain TCP: its bytes are the frames').
    @discardableResult
    private func wrote(_ count: Int) -> DeliveryAccount.Actions {
        account.wrote(count, transportTotal: account.written + count)
    }

    /// Writes everything queued and not written yet.
    private func writeAll() {
        wrote(kept.released + connection.output.readableBytes - account.written)
    }

    /// The kernel says it holds `unacknowledged` bytes.
    private func kernelHolds(_ unacknowledged: Int, release: Bool = true) {
        let freed = account.kernelHolds(unacknowledged, transportTotal: account.written, now: 0, bytesRead: 0,
                                        release: release)
        if let freed { kept.apply(freed, in: &connection) }
    }

    /// A read that brought a message.
    private func signOfLife(arrival: Int64? = nil) {
        if let arrival { account.arrived(arrival) }
        account.readBegins()
        account.signOfLife()
        account.readEnded(endsBetweenMessages: true, peerGone: false)
    }

    private func ping(_ text: String) {
        Array(text.utf8).withUnsafeBytes { connection.sendPing($0); account.pinged($0) }
    }

    private func pong(_ text: String) -> Bool {
        account.readBegins()
        defer { account.readEnded(endsBetweenMessages: true, peerGone: false) }
        return Array(text.utf8).withUnsafeBytes { account.pongReceived($0) }
    }

    /// After the end: the frames still kept, with their fates.
    private func drain(unacknowledged: Int?) -> [(Opcode, [UInt8], DeliveryAccount.Fate)] {
        account.ended(unacknowledged: unacknowledged, transportTotal: account.written)
        if let settled = account.releaseSettled() { kept.apply(settled, in: &connection) }
        var result: [(Opcode, [UInt8], DeliveryAccount.Fate)] = []
        kept.drain(from: &connection, account: account) { result.append(($0, Array($1), $2)) }
        return result
    }

    private var released: (unread: LineTally, unconfirmed: LineTally) { account.releasedFates() }

    // MARK: kept frames

    func testWrittenFramesStayUntilAcknowledgedInFull() {
        send([Array("a".utf8), [UInt8](repeating: 7, count: 300)])   // 7 + 308 bytes
        wrote(7 + 308)
        kernelHolds(308 - 10)
        XCTAssertEqual(connection.output.readableBytes, 308, "the first frame released, the half-acknowledged one kept")
        kernelHolds(0)
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(kept.released, account.written)
    }

    func testDrainSaysWhatTheKernelStillHeld() {
        let payloads: [[UInt8]] = [Array("one".utf8), [UInt8](repeating: 1, count: 70_000), Array("three".utf8)]
        send(payloads)
        "ping".utf8.withContiguousStorageIfAvailable { connection.sendPing(UnsafeRawBufferPointer($0)) }
        writeAll()
        // The kernel still holds the last 20 bytes: the ping (10) and "three" (11) in part.
        let back = drain(unacknowledged: 20)
        XCTAssertEqual(back.map { $0.1 }, payloads, "every data message, no ping")
        XCTAssertEqual(back.map { $0.2.tag }, [1, 2, 3])
        XCTAssertEqual(back.map { $0.2.acknowledged }, [true, true, false])
        XCTAssertEqual(back.map { $0.2.written }, [true, true, true])
        XCTAssertEqual(back.map { $0.2.confirmed }, [false, false, false], "the peer never gave a sign of life")
        XCTAssertTrue(back.allSatisfy { $0.0 == Opcode.text })
        XCTAssertTrue(connection.output.isEmpty)
    }

    func testUnknownKernelStateCountsNothingAsAcknowledged() {
        send(text("x"))
        writeAll()
        XCTAssertEqual(drain(unacknowledged: nil).map { $0.2.acknowledged }, [false])
    }

    func testUnwrittenFramesComeBackUnacknowledged() {
        send(text("a", "b"))
        wrote(3)
        let back = drain(unacknowledged: 0)
        XCTAssertEqual(back.map { $0.2.acknowledged }, [false, false], "a frame written in part is not acknowledged")
        XCTAssertEqual(back.map { $0.2.written }, [false, false])
    }

    // MARK: the bound (no timestamps)

    /// Issue 19: a sign of life used to confirm everything written, the
    /// kernel's own send buffer included.
    func testSignOfLifeConfirmsWhatTheTCPHadAcknowledgedNotWhatWasWritten() {
        send(text("a", "b"))
        wrote(14)
        kernelHolds(7)   // "b" still in the kernel
        account.inputSeenEmpty()
        signOfLife()
        send(text("c"), firstTag: 3)
        wrote(7)
        let back = drain(unacknowledged: 0)
        XCTAssertEqual(back.map { $0.2.tag }, [2, 3], "the confirmed frame is settled")
        XCTAssertEqual(back.map { $0.2.confirmed }, [false, false])
        XCTAssertEqual(back.map { $0.2.acknowledged }, [true, true])
    }

    func testASignOfLifeWithoutAFreshAnswerConfirmsNothing() {
        send(text("a", "b"))
        wrote(14)
        XCTAssertTrue(account.hasUnacknowledged)
        account.inputSeenEmpty()
        signOfLife()   // the kernel was never asked: nothing is known acknowledged
        XCTAssertEqual(drain(unacknowledged: 0).map { $0.2.confirmed }, [false, false])
    }

    /// Issue 19's race: a sign of life read late, after the kernel said the
    /// peer's TCP acknowledged more while it waited, confirms only what was
    /// acknowledged before every input was last seen read.
    func testASignOfLifeConfirmsOnlyWhatWasAcknowledgedBeforeTheInputWasLastSeenRead() {
        send(text("a", "b"))
        wrote(7)
        kernelHolds(0)   // "a" acknowledged
        account.inputSeenEmpty()   // nothing to read: a later message was sent later
        send(text("c", "d"), firstTag: 3)
        writeAll()
        // The peer's message arrives; before it is read the kernel says "b"-"d" were acknowledged.
        account.readBegins()
        kernelHolds(0)
        account.signOfLife()
        account.readEnded(endsBetweenMessages: true, peerGone: false)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:2-4", "acknowledged while the message waited: unconfirmed")
        account.inputSeenEmpty()
        signOfLife()
        XCTAssertEqual(released.unconfirmed.count, 0, "the next sign of life, sent after that look, confirms them")
    }

    /// A look notes what was acknowledged without letting the frames go: a
    /// 1009 right after them must still find the one it refused.
    func testALookConfirmsFramesStillKept() {
        send(text("a", "b"))
        writeAll()
        kernelHolds(0, release: false)
        XCTAssertEqual(released.unconfirmed.count, 0, "nothing released")
        account.inputSeenEmpty()
        XCTAssertEqual(account.confirmableRecords, 2)
        signOfLife()
        XCTAssertEqual(drain(unacknowledged: 0).map { $0.2.tag }, [], "confirmed and acknowledged: settled")
    }

    func testALookAtTheInputCutsTheUnconfirmedRun() {
        send(text("a", "b"))
        writeAll()
        kernelHolds(0)
        account.inputSeenEmpty()
        account.readBegins()   // the read that will bring the sign of life begins here
        send(text("c", "d"), firstTag: 3)
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:1-4")
        account.signOfLife()
        account.readEnded(endsBetweenMessages: true, peerGone: false)
        XCTAssertEqual(released.unconfirmed.count, 2, "confirmed up to the look, not a whole merged run left")
        XCTAssertEqual(released.unconfirmed.lines, "stdin:3-4")
    }

    func testASignOfLifeReadAfterThePeerWentConfirmsNothing() {
        send(text("a"))
        writeAll()
        kernelHolds(0)
        account.inputSeenEmpty()
        account.readBegins()
        account.signOfLife()
        account.readEnded(endsBetweenMessages: true, peerGone: true)
        XCTAssertEqual(account.confirmedRecords, 0)
    }

    func testTheKernelIsAskedOnlyEveryCheckStep() {
        let big = [UInt8](repeating: 0, count: 30_000)
        send([big, big, big])
        XCTAssertEqual(wrote(30_000), [])
        XCTAssertEqual(wrote(30_000), [])
        XCTAssertTrue(wrote(30_000).contains(.release), "past 64 KiB written")
        kernelHolds(80_000)
        XCTAssertEqual(wrote(0), [], "the next ask waits for another step")
    }

    /// The channel asks again when it stops only if the peer sent something
    /// or 10 ms went by; the look timer slows while nothing moves.
    func testLooksAskTheKernelOnlyWhenTheAnswerMayHaveMoved() {
        send(text("a"))
        writeAll()
        XCTAssertEqual(account.stopped(now: 0, bytesRead: 0), [.lookAtInput, .armLookTimer], "asked at 0 already")
        XCTAssertEqual(account.stopped(now: 1_000_000, bytesRead: 5), [.askKernel, .lookAtInput, .armLookTimer])
        _ = account.kernelHolds(7, transportTotal: 7, now: 1_000_000, bytesRead: 5, release: false)
        XCTAssertEqual(account.stopped(now: 2_000_000, bytesRead: 5), [.lookAtInput, .armLookTimer])
        XCTAssertEqual(account.stopped(now: 11_000_001, bytesRead: 5), [.askKernel, .lookAtInput, .armLookTimer])
        XCTAssertEqual(account.lookTimerFired(), [.lookAtInput, .armLookTimer])
        XCTAssertEqual(account.lookInterval, DeliveryAccount.fastLook * 2, "nothing moved: slower")
        for _ in 0..<10 { _ = account.lookTimerFired() }
        XCTAssertEqual(account.lookInterval, DeliveryAccount.slowLook)
        _ = account.kernelHolds(0, transportTotal: 7, now: 0, bytesRead: 5, release: false)
        XCTAssertEqual(account.lookTimerFired(), .lookAtInput, "all acknowledged: no timer")
        XCTAssertEqual(account.lookInterval, DeliveryAccount.fastLook, "it moved: fast again")
    }

    // MARK: pongs

    func testAPongConfirmsExactlyWhatWasQueuedBeforeItsPing() {
        send(text("a", "b"))
        ping("k-1")
        send(text("c"), firstTag: 3)
        writeAll()
        XCTAssertTrue(pong("k-1"))
        let back = drain(unacknowledged: nil)
        XCTAssertEqual(back.map { $0.2.tag }, [1, 2, 3])
        XCTAssertEqual(back.map { $0.2.confirmed }, [true, true, false])
    }

    func testAPongToNoPingOfOursIsASignOfLife() {
        send(text("a"))
        ping("k-1")
        account.readBegins()
        XCTAssertFalse(Array("other".utf8).withUnsafeBytes { account.pongReceived($0) })
        XCTAssertTrue(account.spoke)
    }

    func testAPongAnswersOlderPingsToo() {
        send(text("a"))
        ping("k-1")
        send(text("b"), firstTag: 2)
        ping("k-2")
        send(text("c"), firstTag: 3)
        writeAll()
        XCTAssertTrue(pong("k-2"))
        XCTAssertFalse(pong("k-1"), "answered by the later pong already")
        XCTAssertEqual(drain(unacknowledged: nil).map { $0.2.confirmed }, [true, true, false])
    }

    /// A ping put ahead of frames not written yet (issue 33): its pong
    /// confirms only the frames before it, and the others end later.
    func testAPingAheadOfQueuedFramesConfirmsOnlyWhatWentBeforeIt() {
        send(text("a", "b", "c"))
        wrote(7)
        account.inserted(9, at: 7)
        Array("p".utf8).withUnsafeBytes { account.pinged($0, before: 1) }
        XCTAssertEqual(account.records(upTo: 7), 1)
        XCTAssertEqual(account.records(upTo: 16 + 7), 2, "b now ends 9 bytes later")
        XCTAssertTrue(pong("p"))
        XCTAssertEqual(account.confirmedRecords, 1)
    }

    func testReleasedFramesAreUnconfirmedUntilAPongOrASignOfLife() {
        send(text("a", "b"))
        ping("k-1")
        send(text("c", "d"), firstTag: 3)
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.count, 4)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:1-4")
        XCTAssertTrue(pong("k-1"))
        XCTAssertEqual(released.unconfirmed.count, 2, "the frames before the ping are confirmed")
        XCTAssertEqual(released.unconfirmed.lines, "stdin:3-4")
        signOfLife()
        XCTAssertEqual(released.unconfirmed.count, 2, "no look at the input saw it all read since")
        account.inputSeenEmpty()
        signOfLife()
        XCTAssertEqual(released.unconfirmed.count, 0)
    }

    func testManyRunsMergeOnTheSafeSide() {
        for n in 1...(DeliveryAccount.maxRuns + 10) {
            send([Array("m".utf8)], firstTag: n)
            ping("k-\(n)")
        }
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.count, DeliveryAccount.maxRuns + 10)
        // Only the last 16 pings are remembered, and the oldest runs were merged:
        // a pong confirms whole runs only, never part of one.
        let last = DeliveryAccount.maxRuns + 10
        XCTAssertTrue(pong("k-\(last - 1)"))
        XCTAssertEqual(released.unconfirmed.count, 1)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:\(last)")
    }

    /// Issue 30: what the peer read, by an echo or its window, is no longer
    /// counted with the run it ends in, when each record of the run is the
    /// next stdin line; a run with a gap counts whole (the safe side).
    func testAConfirmationInsideALinearRunCutsIt() {
        send(text("a", "b", "c", "d", "e", "f", "g", "h", "i", "j"))
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:1-10")
        account.echoed(record: 3)
        XCTAssertEqual(released.unconfirmed.count, 6)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:5-10")
    }

    func testARunWithAGapInItsLinesCountsWhole() {
        send(text("a", "b"), firstTag: 1)
        send(text("d", "e"), firstTag: 4)   // line 3 was refused: never sent
        writeAll()
        kernelHolds(0)
        account.echoed(record: 0)
        XCTAssertEqual(released.unconfirmed.count, 4, "no record is known to be line 2 or later")
        account.echoed(record: 3)
        XCTAssertEqual(released.unconfirmed.count, 0)
    }

    /// The window's mark falls inside the runs: they are at most `runBytes`
    /// long, so what may be unread is counted to a run's start, not to the
    /// start of everything released since the last cut.
    func testTheWindowsMarkEndsWithinARunOfWhatItRead() {
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 94)   // 100 bytes a masked frame
        for n in 1...600 { send([line], firstTag: n) }
        writeAll()
        XCTAssertEqual(account.written, 60_000)
        kernelHolds(0)
        account.inputSeenEmpty()
        account.window(acknowledgedTransport: 60_000, window: 40_000)
        account.window(acknowledgedTransport: 60_000, window: 25_000)   // read at least 30,000 bytes
        signOfLife()
        let perRun = (100 + DeliveryAccount.runBytes) / 100
        XCTAssertEqual(account.confirmedRecords, perRun, "the last run that ends before byte 30,000")
        XCTAssertEqual(released.unread.count, 600 - perRun)
        XCTAssertLessThanOrEqual(released.unread.count, 300 + perRun)
        XCTAssertEqual(released.unread.lines, "stdin:\(perRun + 1)-600")
    }

    func testOnlyCountedTagsAreCounted() {
        send(text("on-connect"), firstTag: MessageTag.uncounted)
        send(text("typed"), firstTag: MessageTag.unnumbered)
        send(text("line"), firstTag: 7 | MessageTag.writtenBefore)
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.count, 2, "the on-connect message is sent again anyway")
        XCTAssertEqual(released.unconfirmed.lines, "stdin:7")
    }

    func testReleasedRunsAreTalliedFromTheirEnds() {
        // No uncounted record: the count is the run's length, the lines come from its ends.
        for tag in [MessageTag.unnumbered, 5, MessageTag.unnumbered, 6 | MessageTag.writtenBefore, 7, MessageTag.unnumbered] {
            send(text("m"), firstTag: tag)
        }
        writeAll()
        kernelHolds(0)
        XCTAssertEqual(released.unconfirmed.count, 6)
        XCTAssertEqual(released.unconfirmed.lines, "stdin:5-7")
    }

    /// The server sent a message back as it was: it read it, and all before it.
    func testAnEchoConfirmsTheMessageItEchoesAndThoseBefore() {
        send(text("a", "b", "c"))
        writeAll()
        account.echoed(record: 1)
        XCTAssertEqual(drain(unacknowledged: 0).map { $0.2.confirmed }, [false], "a and b confirmed and settled")
        account.echoed(record: 99)   // not one of ours: nothing
    }

    // MARK: the server's account

    func testAServerKeepsOnlyTheAccount() {
        var server = Connection(role: .server, maxMessageSize: 1 << 20)
        var account = DeliveryAccount()
        for n in 1...4 {
            Array("m\(n)".utf8).withUnsafeBytes { server.sendText($0) }
            account.recorded(tag: n, end: account.written + server.output.readableBytes)
        }
        let frame = 4   // "mN" unmasked: 2 + 2 bytes
        server.consumeOutput(3 * frame)
        _ = account.wrote(3 * frame, transportTotal: 3 * frame)
        _ = account.kernelHolds(frame, transportTotal: 3 * frame, now: 0, bytesRead: 0, release: true)   // two acknowledged
        account.ended(unacknowledged: frame, transportTotal: 3 * frame)
        var fates = account.fates(confirmedAll: false)
        XCTAssertEqual(fates.unconfirmed.count, 3)
        XCTAssertEqual(fates.unconfirmed.lines, "stdin:1-3")
        XCTAssertEqual(fates.unacknowledged.lines, "stdin:3")
        XCTAssertEqual(fates.notSent.lines, "stdin:4")
        account.inputSeenEmpty()
        account.readBegins()
        account.signOfLife()
        account.readEnded(endsBetweenMessages: true, peerGone: false)
        fates = account.fates(confirmedAll: false)
        XCTAssertEqual(fates.unconfirmed.lines, "stdin:3", "what its TCP acknowledged before the sign of life is confirmed")
        XCTAssertEqual(account.fates(confirmedAll: true), DeliveryAccount.Fates())
    }

    // MARK: compression

    func testCompressedFramesComeBackAsTheirOriginals() {
        connection = Connection(role: .client, maxMessageSize: 1 << 20, compression: DeflateParameters())
        let messages = ["one", "two", String(repeating: "three ", count: 100)]
        for (i, text) in messages.enumerated() {
            kept.keep(original: Array(text.utf8), record: account.queuedRecords)
            Array(text.utf8).withUnsafeBytes { connection.sendText($0) }
            account.recorded(tag: i + 1, end: kept.released + connection.output.readableBytes)
        }
        Array("p".utf8).withUnsafeBytes { connection.sendPing($0) }
        XCTAssertEqual(kept.originalBytes, messages.reduce(0) { $0 + $1.utf8.count })
        let first = connection.withOutput { KeptFrames.frameLength(at: $0)! }
        wrote(first + 2)   // "one" written, "two" cut
        kernelHolds(2)
        XCTAssertEqual(kept.originalBytes, 3 + 600, "the released frame's original goes with it")
        var back: [String] = []
        account.ended(unacknowledged: 2, transportTotal: account.written)
        kept.drain(from: &connection, account: account) { _, payload, _ in back.append(String(decoding: payload, as: UTF8.self)) }
        XCTAssertEqual(back, Array(messages.dropFirst()), "exact payloads, in order, no ping")
        XCTAssertEqual(kept.originalBytes, 0)
    }

    func testBinaryOpcodeIsKept() {
        send([[0, 255]], binary: true)
        let back = drain(unacknowledged: nil)
        XCTAssertEqual(back.count, 1)
        XCTAssertEqual(back[0].0, Opcode.binary)
        XCTAssertEqual(back[0].1, [0, 255])
    }

    func testFrameLengthOfEachEncoding() {
        XCTAssertEqual(([0x81, 0x05] as [UInt8]).withUnsafeBytes { KeptFrames.frameLength(at: $0) }, 7)
        XCTAssertEqual(([0x82, 0xFE, 0x01, 0x00] as [UInt8]).withUnsafeBytes { KeptFrames.frameLength(at: $0) }, 4 + 4 + 256)
        XCTAssertEqual(([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] as [UInt8]).withUnsafeBytes { KeptFrames.frameLength(at: $0) },
                       10 + 65536)
        XCTAssertNil(([0x82, 0x7F, 0x00] as [UInt8]).withUnsafeBytes { KeptFrames.frameLength(at: $0) })
    }

    func testTheBoundaryAfterAFrameWrittenInPart() {
        send(text("a", "b"))   // 7 bytes each
        wrote(3)
        XCTAssertEqual(kept.boundary(from: 0, after: account.written, in: connection), 7)
        wrote(4)
        XCTAssertEqual(kept.boundary(from: 0, after: account.written, in: connection), 7)
        XCTAssertEqual(kept.boundary(from: 0, after: 0, in: connection), 0)
        XCTAssertEqual(kept.boundary(from: 7, after: 8, in: connection), 14, "past what TLS holds half written")
        XCTAssertEqual(kept.boundary(from: 0, after: 99, in: connection), 14, "the end at most")
    }
}

/// Which message a 1009 or 1003 blames.
final class RefusedMessageTests: XCTestCase {
    typealias C = RefusedMessage.Candidate

    func testTooBigBlamesTheLargestSinceTheLastSignOfLife() {
        let candidates = [C(size: 9_000, isBinary: false, afterSignOfLife: false), C(size: 10, isBinary: false, afterSignOfLife: true),
                          C(size: 5_000, isBinary: false, afterSignOfLife: true), C(size: 5_000, isBinary: false, afterSignOfLife: true)]
        XCTAssertEqual(RefusedMessage.pick(candidates, code: .messageTooBig), 2, "the first of the largest, after the sign of life")
    }

    func testUnsupportedBlamesTheFirstBinaryElseTheFirst() {
        let text = C(size: 1, isBinary: false, afterSignOfLife: true)
        let binary = C(size: 1, isBinary: true, afterSignOfLife: true)
        XCTAssertEqual(RefusedMessage.pick([text, binary, binary], code: .unsupportedData), 1)
        XCTAssertEqual(RefusedMessage.pick([text, text], code: .unsupportedData), 0)
    }

    func testNothingSinceTheLastSignOfLifeLooksAtEverything() {
        let candidates = [C(size: 300, isBinary: false, afterSignOfLife: false), C(size: 1, isBinary: false, afterSignOfLife: false)]
        XCTAssertEqual(RefusedMessage.pick(candidates, code: .messageTooBig), 0)
        XCTAssertNil(RefusedMessage.pick([], code: .messageTooBig))
        XCTAssertTrue(RefusedMessage.isRefusal(.messageTooBig) && RefusedMessage.isRefusal(.unsupportedData))
        XCTAssertFalse(RefusedMessage.isRefusal(.goingAway))
    }

    /// Issue 30: a message never written cannot have been refused.
    func testAMessageNeverWrittenIsNeverBlamed() {
        let unwritten = C(size: 9_000, isBinary: true, afterSignOfLife: true, written: false)
        XCTAssertNil(RefusedMessage.pick([unwritten], code: .messageTooBig))
        XCTAssertEqual(RefusedMessage.pick([C(size: 1, isBinary: false, afterSignOfLife: true), unwritten], code: .messageTooBig), 0)
    }
}
