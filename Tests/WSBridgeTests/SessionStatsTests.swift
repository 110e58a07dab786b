import XCTest
@testable import WSBridge
import WSJSON

/// The --stats summary line (wspipe(1): OPTIONS, Diagnostics).
final class SessionStatsTests: XCTestCase {
    func testZeroLine() {
        XCTAssertEqual(String(decoding: SessionStats().jsonLine(), as: UTF8.self),
                       #"{"$stats":{"messages_out":0,"bytes_out":0,"messages_in":0,"bytes_in":0,"#
                       + #""reconnects":0,"invalid_lines":0,"unacked":0,"not_sent":0,"unconfirmed":0,"unconfirmed_lines":[],"#
                       + #""unread":0,"unread_lines":[]}}"# + "\n")
    }

    func testEveryCounterInItsPlace() {
        var stats = SessionStats()
        stats.messagesOut = 1
        stats.bytesOut = 22
        stats.messagesIn = 333
        stats.bytesIn = 4_444
        stats.reconnects = 5
        stats.invalidLines = 6
        stats.unacked = 7
        stats.notSent = 8_589_934_592
        var first = LineTally(), second = LineTally()
        for line in [15_259, 16_290, 15_300] { first.add(tag: line) }
        second.add(tag: 40_001)
        second.add(tag: MessageTag.unnumbered)
        stats.addUnconfirmed(first)
        stats.addUnconfirmed(second)
        var unread = LineTally()
        for line in [15_000, 15_258] { unread.add(tag: line) }
        stats.addUnread(unread)
        let line = stats.jsonLine()
        XCTAssertEqual(String(decoding: line, as: UTF8.self),
                       #"{"$stats":{"messages_out":1,"bytes_out":22,"messages_in":333,"bytes_in":4444,"#
                       + #""reconnects":5,"invalid_lines":6,"unacked":7,"not_sent":8589934592,"unconfirmed":5,"#
                       + #""unconfirmed_lines":[[15259,16290],[40001,40001]],"unread":2,"unread_lines":[[15000,15258]]}}"# + "\n")
        XCTAssertEqual(Array(line.dropLast()).withUnsafeBytes { JSONScanner.validate($0) },
                       .valid(needsCompaction: false))
    }
}
