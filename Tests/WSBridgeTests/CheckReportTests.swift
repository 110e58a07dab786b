import XCTest
@testable import WSBridge

/// What --check writes: the pytest-like report and the JUnit XML
/// (wspipe(1): CHECKING A SERVER).
final class CheckReportTests: XCTestCase {
    private let report = CheckReport(path: "tests/chat.ndjson", format: .record, connections: 1, settleNanos: 100_000_000,
                                     typeKey: ["type"])

    func testADifferenceReadsLikeAnAssertion() {
        var failure = CheckFailure(kind: .differs(Difference(path: KeyPath(segments: [.key(Array("room".utf8)),
                                                                                       .key(Array("topic".utf8))]),
                                                             kind: .differs, expected: Array(#""general""#.utf8),
                                                             actual: Array(#""random""#.utf8)),
                                                  actual: Array(#"{"room":{"topic":"random"}}"#.utf8), early: nil),
                                   status: .checkFailed, connection: 1)
        failure.line = 7
        failure.expected = Array(#"{"room":{"topic":"general"}}"#.utf8)
        failure.messageNumber = 2
        failure.messageCount = 3
        XCTAssertEqual(report.lines(for: failure), [
            "tests/chat.ndjson:7: message 2 of 3 differs at room.topic",
            "  expected: \"general\"",
            "  actual:   \"random\"",
            "  - {\"room\":{\"topic\":\"general\"}}",
            "  + {\"room\":{\"topic\":\"random\"}}",
        ])
    }

    func testOtherFailures() {
        var failure = CheckFailure(kind: .unexpected(actual: Array(#"{"type":"debug"}"#.utf8)), status: .checkFailed,
                                   connection: 1)
        failure.line = 9
        failure.lineIsLastExpected = true
        XCTAssertEqual(report.lines(for: failure), [
            "tests/chat.ndjson: a message the recording does not have, after the last one expected "
                + "(the last one expected is at tests/chat.ndjson:9)",
            "  + {\"type\":\"debug\"}",
            "  --allow-extra debug would skip messages of this type",
        ])
        let har = CheckReport(path: "app.har", format: .har, connections: 2, settleNanos: 0, typeKey: ["type"])
        var timeout = CheckFailure(kind: .timedOut(nanos: 1_500_000_000, instead: nil), status: .checkFailed, connection: 2)
        timeout.line = 4
        timeout.messageNumber = 1
        timeout.messageCount = 2
        XCTAssertEqual(har.lines(for: timeout).first,
                       "app.har: connection 2, frame 4: connection 2, message 1 of 2 did not come within 1.5s (--check-timeout)")
        XCTAssertEqual(CheckReport.duration(100_000_000), "100ms")
        XCTAssertEqual(CheckReport.duration(5_000_000_000), "5s")
        XCTAssertEqual(CheckReport.summary(passed: 2, failed: 1), "2 passed, 1 failed")
    }

    func testJUnitXML() {
        var junit = JUnitReport()
        junit.timestamp = "2026-11-28T10:00:00.000Z"
        junit.cases = [
            JUnitReport.Case(name: "ok.ndjson", classname: "tests.ws", file: "tests/ws/ok.ndjson", seconds: 0.1234),
            JUnitReport.Case(name: "bad.ndjson", classname: "tests", file: "tests/bad.ndjson", seconds: 2,
                             lines: ["bad.ndjson:3: differs at a", "  + {\"a\":\"<&>\u{1B}[31m\"}"]),
            JUnitReport.Case(name: "down.ndjson", classname: "tests", file: "tests/down.ndjson", seconds: 0,
                             lines: ["down.ndjson: could not connect"], isError: true),
        ]
        XCTAssertEqual(junit.failures, 1)
        XCTAssertEqual(junit.errors, 1)
        let xml = junit.xml(totalSeconds: 2.5)
        XCTAssertTrue(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"wspipe --check\" "
                                    + "tests=\"3\" failures=\"1\" errors=\"1\" time=\"2.500\">"), xml)
        XCTAssertTrue(xml.contains(#"<testcase name="ok.ndjson" classname="tests.ws" file="tests/ws/ok.ndjson" time="0.123"/>"#))
        XCTAssertTrue(xml.contains(#"<failure message="bad.ndjson:3: differs at a" type="check">"#))
        XCTAssertTrue(xml.contains(#"{&quot;a&quot;:&quot;&lt;&amp;&gt;\u{1b}[31m&quot;}"#), xml)
        XCTAssertTrue(xml.contains(#"<error message="down.ndjson: could not connect" type="connection">"#))
        XCTAssertFalse(xml.contains("\u{1B}"))
        XCTAssertEqual(JUnitReport.classname(of: "tests/ws/a.ndjson", current: "here"), "tests.ws")
        XCTAssertEqual(JUnitReport.classname(of: "./a.ndjson", current: "here"), "here")
        XCTAssertEqual(JUnitReport.classname(of: "a.ndjson", current: "here"), "here")
        XCTAssertEqual(JUnitReport.baseName("tests/ws/a.ndjson"), "a.ndjson")
    }
}
