import XCTest
import WSCore
@testable import WSBridge

/// `Redelivery.decide`, row by row as wspipe(1) RECONNECT AND REPLAY's table
/// of what becomes of a message a connection held when it ended (issue 35).
final class RedeliveryTests: XCTestCase {
    typealias Frame = Redelivery.Frame
    typealias Fate = DeliveryAccount.Fate

    private func frame(_ tag: Int, written: Bool = true, acknowledged: Bool = false, confirmed: Bool = false,
                       unread: Bool = false, held: Bool = false, size: Int = 10, binary: Bool = false) -> Frame {
        Frame(fate: Fate(tag: tag, written: written, acknowledged: acknowledged, confirmed: confirmed, unread: unread),
              size: size, isBinary: binary, held: held)
    }

    private let dropped = Redelivery.Ending(lastIfNothingLeft: false, lastIfFramesLeft: false)
    private let lastOne = Redelivery.Ending()
    private let none = (unread: LineTally(), unconfirmed: LineTally())

    private func decide(_ frames: [Frame], _ ending: Redelivery.Ending,
                        released: (unread: LineTally, unconfirmed: LineTally)? = nil) -> Redelivery.Decision {
        Redelivery.decide(frames, released: released ?? none, ending)
    }

    private func tally(_ tags: Int...) -> LineTally {
        var tally = LineTally()
        for tag in tags { tally.add(tag: tag) }
        return tally
    }

    /// Row "the server answered wspipe's Close": it read every frame before it.
    func testTheServerAnsweredTheClose() {
        var ending = lastOne
        ending.confirmedAll = true
        let decision = decide([frame(1), frame(2, written: false)], ending, released: (tally(3), tally(4)))
        XCTAssertEqual(decision, Redelivery.Decision(), "nothing again, nothing in doubt")
    }

    /// Row "confirmed": settled.
    func testConfirmedIsSettled() {
        let decision = decide([frame(1, acknowledged: true, confirmed: true)], dropped)
        XCTAssertEqual(decision.again, [])
        XCTAssertTrue(decision.unconfirmed.isEmpty && decision.unread.isEmpty)
    }

    /// Row "unread": reported, never sent again (its TCP has it).
    func testUnreadIsReportedNotSentAgain() {
        let decision = decide([frame(1, acknowledged: true, unread: true), frame(2, acknowledged: true)], dropped,
                              released: (tally(0), LineTally()))
        XCTAssertEqual(decision.unread, { var t = tally(0); t.add(tag: 1); return t }())
        XCTAssertEqual(decision.unconfirmed, tally(2))
        XCTAssertEqual(decision.again, [])
    }

    /// Row "unconfirmed": acknowledged after the server last spoke, not sent again.
    func testAcknowledgedAfterTheServerLastSpokeIsUnconfirmed() {
        let decision = decide([frame(5, acknowledged: true)], dropped, released: (LineTally(), tally(3, 4)))
        XCTAssertEqual(decision.unconfirmed.lines, "stdin:3-5")
        XCTAssertEqual(decision.unconfirmed.count, 3)
        XCTAssertTrue(decision.unacknowledged.isEmpty, "it reached the server's machine")
        XCTAssertEqual(decision.again, [])
    }

    /// Row "written, not acknowledged": again when a connection follows, at least once.
    func testWrittenNotAcknowledgedGoesAgainWhenAConnectionFollows() {
        let decision = decide([frame(1, acknowledged: true), frame(2), frame(3, written: false)], dropped)
        XCTAssertEqual(decision.again, [1, 2])
        XCTAssertFalse(decision.last)
    }

    /// The same row when no connection follows: unconfirmed and never acknowledged (exit status 6).
    func testWrittenNotAcknowledgedOnTheLastConnectionIsUnacknowledged() {
        let decision = decide([frame(2), frame(3, written: false)], lastOne)
        XCTAssertEqual(decision.unconfirmed, tally(2))
        XCTAssertEqual(decision.unacknowledged, tally(2))
        XCTAssertEqual(decision.again, [1], "never written: it stays queued, to be reported not sent")
        XCTAssertTrue(decision.last)
    }

    /// Whether a connection follows is asked with whether frames are left:
    /// one the server's TCP never acknowledged is.
    func testWhetherFramesAreLeftDecidesWhichAnswerCounts() {
        let ending = Redelivery.Ending(lastIfNothingLeft: true, lastIfFramesLeft: false)
        XCTAssertFalse(decide([frame(1)], ending).last)
        XCTAssertTrue(decide([frame(1, acknowledged: true)], ending).last)
    }

    /// Row "the closing handshake completed": what was written reached the
    /// server's TCP ahead of the last Close; only unwritten lines are owed.
    func testAfterAHandshakeOnlyUnwrittenLinesAreOwed() {
        var ending = Redelivery.Ending(reachedPeer: true, lastIfNothingLeft: true, lastIfFramesLeft: false)
        var decision = decide([frame(1), frame(2)], ending)
        XCTAssertTrue(decision.last, "written, so nothing is owed")
        XCTAssertEqual(decision.unconfirmed, tally(1, 2))
        XCTAssertTrue(decision.unacknowledged.isEmpty, "counted as acknowledged on the last connection")
        decision = decide([frame(1), frame(2, written: false)], ending)
        XCTAssertFalse(decision.last)
        XCTAssertEqual(decision.again, [0, 1], "a connection follows: what the kernel did not see acknowledged goes too")
        ending.lastIfFramesLeft = true
        decision = decide([frame(1), frame(2, written: false), frame(-1, written: false)], ending)
        XCTAssertEqual(decision.again, [1], "a connection's own message is never owed")
    }

    /// Row "refused (1009, 1003)": set aside, reported; the rest goes again.
    func testARefusedMessageIsSetAsideAndTheRestGoesAgain() {
        var ending = dropped
        ending.refusal = .messageTooBig
        let frames = [frame(1, acknowledged: true, confirmed: true), frame(2, acknowledged: true, size: 5),
                      frame(3, acknowledged: true, size: 500), frame(4, size: 5), frame(5, written: false)]
        let decision = decide(frames, ending, released: (tally(0), tally(0)))
        XCTAssertEqual(decision.refused, 2, "the largest written since the last sign of life")
        XCTAssertEqual(decision.again, [1, 3, 4], "not shown read before it, and everything after it")
        XCTAssertTrue(decision.unconfirmed.isEmpty && decision.unread.isEmpty, "no doubt: the server said where it stopped")
    }

    /// A refusal on a connection that carried nothing written blames nothing.
    func testARefusalBlamesNoMessageNeverWritten() {
        var ending = dropped
        ending.refusal = .unsupportedData
        let decision = decide([frame(1, written: false, binary: true)], ending)
        XCTAssertNil(decision.refused)
        XCTAssertEqual(decision.again, [0])
    }

    /// Row "held for --ack" and the connection's own messages: the resume's,
    /// or sent again anyway; never queued again here.
    func testHeldAndConnectionOnlyMessagesAreNotQueuedAgain() {
        let decision = decide([frame(1, held: true), frame(MessageTag.uncounted), frame(3)], dropped)
        XCTAssertEqual(decision.again, [2])
    }
}
