import XCTest
import WSCore
@testable import WSBridge

/// Frames kept until the peer's TCP acknowledges them; what comes back after
/// a drop, tagged, with whether it was acknowledged and confirmed; what a
/// sign of life and a pong confirm (issue 19).
final class OutgoingFramesTests: XCTestCase {
    private var connection = Connection(role: .client, maxMessageSize: 1 << 20)
    private var tracker = OutgoingFrames()

    /// Sends text messages tagged 1, 2, 3, ... after `firstTag`.
    private func send(_ messages: [[UInt8]], firstTag: Int = 1, binary: Bool = false) {
        for (i, m) in messages.enumerated() {
            m.withUnsafeBytes { binary ? connection.sendBinary($0) : connection.sendText($0) }
            tracker.recorded(tag: firstTag + i, outputEnd: connection.output.readableBytes)
        }
    }

    private func drain(unacknowledged: Int?) -> [(Opcode, [UInt8], OutgoingFrames.Unsent)] {
        var result: [(Opcode, [UInt8], OutgoingFrames.Unsent)] = []
        _ = tracker.drain(from: &connection, unacknowledged: unacknowledged) { result.append(($0, Array($1), $2)) }
        return result
    }

    /// A read that brought a message: it confirms what was confirmable before it.
    private func signOfLife() {
        let confirmable = tracker.confirmableRecords
        tracker.noteSignOfLife()
        tracker.confirmSignOfLife(upTo: confirmable)
    }

    private func ping(_ text: String) {
        Array(text.utf8).withUnsafeBytes { connection.sendPing($0); tracker.pinged($0) }
    }

    private func pong(_ text: String) -> Bool {
        Array(text.utf8).withUnsafeBytes { tracker.pongReceived($0) }
    }

    func testWrittenFramesStayUntilAcknowledgedInFull() {
        send([Array("a".utf8), [UInt8](repeating: 7, count: 300)])   // 7 + 308 bytes
        _ = tracker.didWrite(7 + 308)
        XCTAssertEqual(tracker.unwrittenOffset, 315, "written but kept")
        tracker.acknowledged(unacknowledged: 308 - 10, in: &connection)
        XCTAssertEqual(connection.output.readableBytes, 308, "the first frame released, the half-acknowledged one kept")
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(tracker.unwrittenOffset, 0)
    }

    func testDrainSaysWhatTheKernelStillHeld() {
        let payloads: [[UInt8]] = [Array("one".utf8), [UInt8](repeating: 1, count: 70_000), Array("three".utf8)]
        send(payloads)
        "ping".utf8.withContiguousStorageIfAvailable { connection.sendPing(UnsafeRawBufferPointer($0)) }
        let total = connection.output.readableBytes
        _ = tracker.didWrite(total)
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
        send([Array("x".utf8)])
        _ = tracker.didWrite(connection.output.readableBytes)
        XCTAssertEqual(drain(unacknowledged: nil).map { $0.2.acknowledged }, [false])
    }

    func testUnwrittenFramesComeBackUnacknowledged() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(3)
        let back = drain(unacknowledged: 0)
        XCTAssertEqual(back.map { $0.2.acknowledged }, [false, false], "a frame written in part is not acknowledged")
        XCTAssertEqual(back.map { $0.2.written }, [false, false])
    }

    /// Issue 19: a sign of life used to confirm everything written, the
    /// kernel's own send buffer included.
    func testSignOfLifeConfirmsWhatTheTCPHadAcknowledgedNotWhatWasWritten() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(14)
        tracker.acknowledged(unacknowledged: 7, in: &connection)   // "b" still in the kernel
        tracker.sawInputEmpty()
        signOfLife()
        send([Array("c".utf8)], firstTag: 3)
        _ = tracker.didWrite(7)
        let back = drain(unacknowledged: 0)
        XCTAssertEqual(back.map { $0.2.tag }, [2, 3], "the confirmed frame is settled")
        XCTAssertEqual(back.map { $0.2.confirmed }, [false, false])
        XCTAssertEqual(back.map { $0.2.acknowledged }, [true, true])
    }

    func testASignOfLifeWithoutAFreshAnswerConfirmsTheLastOne() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(14)
        XCTAssertTrue(tracker.hasUnacknowledged)
        tracker.sawInputEmpty()
        signOfLife()   // the kernel was never asked: nothing is known acknowledged
        XCTAssertEqual(drain(unacknowledged: 0).map { $0.2.confirmed }, [false, false])
    }

    func testAPongConfirmsExactlyWhatWasQueuedBeforeItsPing() {
        send([Array("a".utf8), Array("b".utf8)])
        ping("k-1")
        send([Array("c".utf8)], firstTag: 3)
        _ = tracker.didWrite(connection.output.readableBytes)
        XCTAssertTrue(pong("k-1"))
        XCTAssertFalse(tracker.spoke, "a pong to our ping says exactly what it read")
        let back = drain(unacknowledged: nil)
        XCTAssertEqual(back.map { $0.2.tag }, [1, 2, 3])
        XCTAssertEqual(back.map { $0.2.confirmed }, [true, true, false])
    }

    func testAPongToNoPingOfOursIsASignOfLife() {
        send([Array("a".utf8)])
        ping("k-1")
        XCTAssertFalse(pong("other"))
        XCTAssertTrue(tracker.spoke)
    }

    func testAPongAnswersOlderPingsToo() {
        send([Array("a".utf8)])
        ping("k-1")
        send([Array("b".utf8)], firstTag: 2)
        ping("k-2")
        send([Array("c".utf8)], firstTag: 3)
        _ = tracker.didWrite(connection.output.readableBytes)
        XCTAssertTrue(pong("k-2"))
        XCTAssertFalse(pong("k-1"), "answered by the later pong already")
        XCTAssertEqual(drain(unacknowledged: nil).map { $0.2.confirmed }, [true, true, false])
    }

    func testReleasedFramesAreUnconfirmedUntilAPongOrASignOfLife() {
        send([Array("a".utf8), Array("b".utf8)])
        ping("k-1")
        send([Array("c".utf8), Array("d".utf8)], firstTag: 3)
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 4)
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:1-4")
        XCTAssertTrue(pong("k-1"))
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 2, "the frames before the ping are confirmed")
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:3-4")
        signOfLife()
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 2, "no look at the input saw it all read since")
        tracker.sawInputEmpty()
        signOfLife()
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 0)
    }

    /// Issue 19's race: a sign of life read late, after the kernel said the
    /// peer's TCP acknowledged more while it waited, confirms only what was
    /// acknowledged before every input was last seen read.
    func testASignOfLifeConfirmsOnlyWhatWasAcknowledgedBeforeTheInputWasLastSeenRead() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(7)
        tracker.acknowledged(unacknowledged: 0, in: &connection)   // "a" acknowledged
        tracker.sawInputEmpty()                                     // nothing to read: a later message was sent later
        send([Array("c".utf8), Array("d".utf8)], firstTag: 3)
        _ = tracker.didWrite(connection.output.readableBytes - tracker.unwrittenOffset)
        // The peer's message arrives; before it is read the kernel says "b"-"d" were acknowledged.
        let confirmable = tracker.confirmableRecords
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        tracker.noteSignOfLife()
        tracker.confirmSignOfLife(upTo: confirmable)
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:2-4", "acknowledged while the message waited: unconfirmed")
        tracker.sawInputEmpty()
        signOfLife()
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 0, "the next sign of life, sent after that look, confirms them")
    }

    /// A look at the input notes what was acknowledged without letting the
    /// frames go: a 1009 right after them must still find the one it refused.
    func testALookConfirmsFramesStillKept() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection, release: false)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 0, "nothing released")
        tracker.sawInputEmpty()
        XCTAssertEqual(tracker.confirmableRecords, 2)
        signOfLife()
        XCTAssertEqual(drain(unacknowledged: 0).map { $0.2.tag }, [], "confirmed and acknowledged: settled")
    }

    func testALookAtTheInputCutsTheUnconfirmedRun() {
        send([Array("a".utf8), Array("b".utf8)])
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        tracker.sawInputEmpty()
        let confirmable = tracker.confirmableRecords
        send([Array("c".utf8), Array("d".utf8)], firstTag: 3)
        _ = tracker.didWrite(connection.output.readableBytes - tracker.unwrittenOffset)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:1-4")
        tracker.noteSignOfLife()
        tracker.confirmSignOfLife(upTo: confirmable)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 2, "confirmed up to the look, not a whole merged run left")
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:3-4")
    }

    func testManyRunsMergeOnTheSafeSide() {
        for n in 1...(OutgoingFrames.maxRuns + 10) {
            send([Array("m".utf8)], firstTag: n)
            ping("k-\(n)")
        }
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, OutgoingFrames.maxRuns + 10)
        // Only the last 16 pings are remembered, and the oldest runs were merged:
        // a pong confirms whole runs only, never part of one.
        let last = OutgoingFrames.maxRuns + 10
        XCTAssertTrue(pong("k-\(last - 1)"))
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 1)
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:\(last)")
    }

    func testOnlyCountedTagsAreCounted() {
        send([Array("on-connect".utf8)], firstTag: MessageTag.uncounted)
        send([Array("typed".utf8)], firstTag: MessageTag.unnumbered)
        send([Array("line".utf8)], firstTag: 7 | MessageTag.writtenBefore)
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 2, "the on-connect message is sent again anyway")
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:7")
    }

    func testReleasedRunsAreTalliedFromTheirEnds() {
        // No uncounted record: the count is the run's length, the lines come from its ends.
        for tag in [MessageTag.unnumbered, 5, MessageTag.unnumbered, 6 | MessageTag.writtenBefore, 7, MessageTag.unnumbered] {
            send([Array("m".utf8)], firstTag: tag)
        }
        _ = tracker.didWrite(connection.output.readableBytes)
        tracker.acknowledged(unacknowledged: 0, in: &connection)
        XCTAssertEqual(tracker.releasedUnconfirmed.count, 6)
        XCTAssertEqual(tracker.releasedUnconfirmed.lines, "stdin:5-7")
    }

    func testAServerKeepsOnlyTheAccount() {
        var server = Connection(role: .server, maxMessageSize: 1 << 20)
        var account = OutgoingFrames(keepsBytes: false)
        for n in 1...4 {
            Array("m\(n)".utf8).withUnsafeBytes { server.sendText($0) }
            account.recorded(tag: n, outputEnd: server.output.readableBytes)
        }
        let frame = 4   // "mN" unmasked: 2 + 2 bytes
        server.consumeOutput(3 * frame)
        _ = account.didWrite(3 * frame)
        XCTAssertEqual(account.unwrittenOffset, 0, "a server keeps no bytes")
        account.acknowledged(unacknowledged: frame, in: &server)   // the first two acknowledged
        var fates = account.fates(unacknowledged: frame, confirmedAll: false)
        XCTAssertEqual(fates.unconfirmed.count, 3)
        XCTAssertEqual(fates.unconfirmed.lines, "stdin:1-3")
        XCTAssertEqual(fates.unacknowledged.lines, "stdin:3")
        XCTAssertEqual(fates.notSent.lines, "stdin:4")
        account.sawInputEmpty()
        account.noteSignOfLife()
        account.confirmSignOfLife(upTo: account.confirmableRecords)
        fates = account.fates(unacknowledged: frame, confirmedAll: false)
        XCTAssertEqual(fates.unconfirmed.lines, "stdin:3", "what its TCP acknowledged before the sign of life is confirmed")
        XCTAssertEqual(account.fates(unacknowledged: 0, confirmedAll: true), OutgoingFrames.Fates())
    }

    func testTheKernelIsAskedOnlyEveryCheckStep() {
        let big = [UInt8](repeating: 0, count: 30_000)
        send([big, big, big])
        XCTAssertFalse(tracker.didWrite(30_000))
        XCTAssertFalse(tracker.didWrite(30_000))
        XCTAssertTrue(tracker.didWrite(30_000), "past 64 KiB written")
        tracker.acknowledged(unacknowledged: 80_000, in: &connection)
        XCTAssertFalse(tracker.didWrite(0), "the next look waits for another step")
    }

    func testCompressedFramesComeBackAsTheirOriginals() {
        var compressed = Connection(role: .client, maxMessageSize: 1 << 20, compression: DeflateParameters())
        var frames = OutgoingFrames()
        let messages = ["one", "two", String(repeating: "three ", count: 100)]
        for (i, text) in messages.enumerated() {
            Array(text.utf8).withUnsafeBytes { compressed.sendText($0) }
            frames.recorded(tag: i + 1, outputEnd: compressed.output.readableBytes, original: Array(text.utf8))
        }
        Array("p".utf8).withUnsafeBytes { compressed.sendPing($0) }
        XCTAssertEqual(frames.originalBytes, messages.reduce(0) { $0 + $1.utf8.count })
        let first = compressed.withOutput { OutgoingFrames.frameLength(at: $0)! }
        _ = frames.didWrite(first + 2)   // "one" written, "two" cut
        frames.acknowledged(unacknowledged: 2, in: &compressed)
        XCTAssertEqual(frames.originalBytes, 3 + 600, "the released frame's original goes with it")
        var back: [String] = []
        _ = frames.drain(from: &compressed, unacknowledged: 2) { _, payload, _ in back.append(String(decoding: payload, as: UTF8.self)) }
        XCTAssertEqual(back, Array(messages.dropFirst()), "exact payloads, in order, no ping")
        XCTAssertEqual(frames.originalBytes, 0)
    }

    func testBinaryOpcodeIsKept() {
        send([[0, 255]], binary: true)
        let back = drain(unacknowledged: nil)
        XCTAssertEqual(back.count, 1)
        XCTAssertEqual(back[0].0, Opcode.binary)
        XCTAssertEqual(back[0].1, [0, 255])
    }

    func testFrameLengthOfEachEncoding() {
        XCTAssertEqual(([0x81, 0x05] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 7)
        XCTAssertEqual(([0x82, 0xFE, 0x01, 0x00] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 4 + 4 + 256)
        XCTAssertEqual(([0x82, 0x7F, 0, 0, 0, 0, 0, 1, 0, 0] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) },
                       10 + 65536)
        XCTAssertNil(([0x82, 0x7F, 0x00] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) })
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
}
