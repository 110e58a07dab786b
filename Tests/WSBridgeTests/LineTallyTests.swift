import XCTest
@testable import WSBridge

/// `LineTally`: counting tags, and a connection's tally without the
/// messages it queued again (its last ones).
final class LineTallyTests: XCTestCase {
    private func tally(_ tags: [Int]) -> LineTally {
        var tally = LineTally()
        for tag in tags { tally.add(tag: tag) }
        return tally
    }

    func testUncountedTagsAreNotCountedAndWrittenBeforeKeepsTheLine() {
        let t = tally([MessageTag.uncounted, 7 | MessageTag.writtenBefore, MessageTag.unnumbered])
        XCTAssertEqual(t, LineTally(count: 2, first: 7, last: 7))
        XCTAssertEqual(t.lines, "stdin:7")
    }

    func testDroppingTheLastMessagesEndsTheRangeBeforeThem() {
        let carried = tally([3, 4, 6, 7, 8])
        XCTAssertEqual(carried.droppingLast(tally([7, 8])), LineTally(count: 3, first: 3, last: 6))
        XCTAssertEqual(carried.droppingLast(LineTally()), carried)
        // An invalid line 5 between them: the range may hold a line never counted.
        XCTAssertEqual(carried.droppingLast(tally([6, 7, 8])), LineTally(count: 2, first: 3, last: 5))
    }

    func testDroppingEverythingLeavesNothing() {
        let carried = tally([1, 2])
        XCTAssertTrue(carried.droppingLast(carried).isEmpty)
        XCTAssertEqual(carried.droppingLast(carried).lines, nil)
    }

    func testMessagesWithoutLinesStayCounted() {
        let typed = tally([MessageTag.unnumbered, MessageTag.unnumbered, MessageTag.unnumbered])
        XCTAssertEqual(typed.droppingLast(tally([MessageTag.unnumbered])), LineTally(count: 2, first: 0, last: 0))
    }
}
