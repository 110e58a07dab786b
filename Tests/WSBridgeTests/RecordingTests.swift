import XCTest
@testable import WSBridge
@testable import WSMessages

/// --record lines and --replay's reading of them (wspipe(1): SCRIPTED PEER):
/// every message comes back byte for byte, and the schedule keeps the
/// recorded spacing.
final class RecordingTests: XCTestCase {
    private func line(_ message: OutgoingMessage, _ direction: RecordLine.Direction = .in, tMs: Int64 = 5,
                      conn: Int = 1, source: MessageSource = .input) -> String {
        String(decoding: RecordLine.message(tMs: tMs, direction, conn: conn, message, source: source), as: UTF8.self)
    }

    private func text(_ s: String, _ direction: RecordLine.Direction = .in, tMs: Int64 = 5, conn: Int = 1,
                      source: MessageSource = .input) -> String {
        Array(s.utf8).withUnsafeBytes { line(.text($0), direction, tMs: tMs, conn: conn, source: source) }
    }

    private func parse(_ text: String) throws -> Recording {
        try Recording(parsing: Array(text.utf8))
    }

    func testLines() {
        XCTAssertEqual(text(#"{"a":1}"#), #"{"t_ms":5,"dir":"in","conn":1,"msg":{"a":1}}"# + "\n")
        XCTAssertEqual(text("not json\n", .out, tMs: 0, conn: 3, source: .answer),
                       #"{"t_ms":0,"dir":"out","conn":3,"msg":{"$text":"not json\n"},"src":"answer"}"# + "\n")
        XCTAssertEqual([UInt8](arrayLiteral: 0, 1, 255).withUnsafeBytes { line(.binary($0)) },
                       #"{"t_ms":5,"dir":"in","conn":1,"msg":{"$binary":"AAH/"}}"# + "\n")
        XCTAssertEqual(String(decoding: RecordLine.event(tMs: 9, conn: 2, Array(#"{"$event":"connected"}"#.utf8) + [10]),
                              as: UTF8.self),
                       #"{"t_ms":9,"dir":"event","conn":2,"msg":{"$event":"connected"}}"# + "\n")
    }

    /// Whatever a message holds, the recording gives it back exactly.
    func testEveryMessageComesBackExactly() throws {
        let texts = [#"{"a":1}"#, #"{"a": 1}"#, " {\"a\":1}", "{\"a\":\n1}", "[1,2]", "42", #""s""#,
                     #"{"$text":"x"}"#, #"{"$binary":"AA=="}"#, "plain text", "", "tab\tand \"quotes\" \\ 😀", "{"]
        var file = ""
        for t in texts { file += text(t, .out) }
        file += [UInt8](arrayLiteral: 0, 0x80, 10, 13).withUnsafeBytes { line(.binary($0), .out) }
        let recording = try parse(file)
        XCTAssertEqual(recording.entries.count, texts.count + 1)
        for (entry, original) in zip(recording.entries, texts) {
            XCTAssertEqual(entry.message?.isBinary, false)
            XCTAssertEqual(entry.message?.bytes, Array(original.utf8), original)
        }
        XCTAssertEqual(recording.entries.last?.message?.isBinary, true)
        XCTAssertEqual(recording.entries.last?.message?.bytes, [0, 0x80, 10, 13])
    }

    func testFieldsAndBlankLines() throws {
        let recording = try parse(
            "\n" + #"{"t_ms":12,"dir":"event","conn":2,"msg":{"$event":"connected","time":"x"}}"# + "\n  \n"
                + #"{"conn":2,"msg":{"x":1},"dir":"out","t_ms":30.9,"src":"heartbeat"}"#)
        XCTAssertEqual(recording.entries.count, 2)
        XCTAssertEqual(recording.entries[0].event, "connected")
        XCTAssertEqual(recording.entries[0].conn, 2)
        XCTAssertEqual(recording.entries[1].tMs, 30)
        XCTAssertEqual(recording.entries[1].source, "heartbeat")
        XCTAssertEqual(recording.messageCount.out, 1)
    }

    func testBadLinesAreRefusedWithTheirNumber() {
        func refusal(_ text: String) -> String? {
            do { _ = try parse(text); return nil } catch { return (error as? RecordingError)?.description }
        }
        let good = #"{"t_ms":1,"dir":"in","msg":1}"#
        XCTAssertEqual(refusal(good + "\n{\"t_ms\":1,\n"), "line 2: column 11: unexpected end of input")
        XCTAssertEqual(refusal(good + "\n" + #"{"t_ms":1,"dir":"sideways","msg":1}"#),
                       #"line 2: expected "dir": "in", "out" or "event""#)
        XCTAssertEqual(refusal(#"{"t_ms":-4,"dir":"in","msg":1}"#), #"line 1: expected "t_ms": a number of milliseconds"#)
        XCTAssertEqual(refusal(#"{"t_ms":1e20,"dir":"in","msg":1}"#), #"line 1: expected "t_ms": a number of milliseconds"#,
                       "an exponent is not dropped like a fraction (1e20 was read as 1)")
        XCTAssertNil(refusal(#"{"t_ms":1.75,"dir":"in","msg":1}"#))
        XCTAssertEqual(refusal(#"{"t_ms":1,"dir":"in"}"#), #"line 1: no "msg""#)
        XCTAssertEqual(refusal(#"{"t_ms":1,"dir":"in","msg":{"$binary":"!!"}}"#), #"line 1: invalid base64 in "$binary""#)
        XCTAssertNil(refusal(good))
    }

    // MARK: the schedule

    private let ms: Int64 = 1_000_000

    private func schedule(_ lines: [String], _ direction: RecordLine.Direction, speed: Double = 1,
                          rate: Int64? = nil) throws -> [(Int64, String)] {
        let recording = try parse(lines.joined(separator: "\n"))
        return ReplaySchedule(recording, direction: direction, speed: speed, rateIntervalNanos: rate).items.map {
            ($0.offsetNanos / ms, String(decoding: $0.message.bytes, as: UTF8.self))
        }
    }

    private let session = [
        #"{"t_ms":0,"dir":"event","conn":1,"msg":{"$event":"connecting"}}"#,
        #"{"t_ms":100,"dir":"event","conn":1,"msg":{"$event":"connected"}}"#,
        #"{"t_ms":150,"dir":"out","conn":1,"msg":{"n":1}}"#,
        #"{"t_ms":160,"dir":"in","conn":1,"msg":{"r":1}}"#,
        #"{"t_ms":170,"dir":"out","conn":1,"msg":{"type":"pong"},"src":"answer"}"#,
        #"{"t_ms":400,"dir":"out","conn":1,"msg":{"n":2}}"#,
        #"{"t_ms":900,"dir":"event","conn":2,"msg":{"$event":"connected"}}"#,
        #"{"t_ms":950,"dir":"in","conn":2,"msg":{"r":2}}"#,
        #"{"t_ms":1000,"dir":"out","conn":2,"msg":{"n":3}}"#,
    ]

    func testRecordedSpacingPerConnection() throws {
        let out = try schedule(session, .out)
        XCTAssertEqual(out.map(\.0), [50, 300, 400], "from the connection's start, then message to message")
        XCTAssertEqual(out.map(\.1), [#"{"n":1}"#, #"{"n":2}"#, #"{"n":3}"#], "without the answer wspipe made")
        let incoming = try schedule(session, .in)
        XCTAssertEqual(incoming.map(\.0), [60, 110])
    }

    func testSpeedAndRate() throws {
        XCTAssertEqual(try schedule(session, .out, speed: 2).map(\.0), [25, 150, 200])
        XCTAssertEqual(try schedule(session, .out, speed: 0.5).map(\.0), [100, 600, 800])
        XCTAssertEqual(try schedule(session, .out, rate: 10 * ms).map(\.0), [0, 10, 20])
    }

    /// A hostile file: times past a year are its line's error; sums of steps
    /// that would pass Int64 (a trap) stop one past the limit, which the plan
    /// refuses.
    func testTimesAreRangeChecked() throws {
        for tMs in ["31536000001", "9000000000000000000", "99999999999999999999999"] {
            XCTAssertThrowsError(try parse(#"{"t_ms":\#(tMs),"dir":"in","conn":1,"msg":1}"#)) { error in
                XCTAssertEqual(error as? RecordingError, RecordingError(
                    line: 1, reason: "\"t_ms\" is more than 31536000000 (8760h (a year)), the longest recording wspipe replays"))
            }
        }
        var lines: [String] = []
        for conn in 1...400 {
            lines.append(#"{"t_ms":0,"dir":"event","conn":\#(conn),"msg":{"$event":"client_connected"}}"#)
            lines.append(#"{"t_ms":31536000000,"dir":"in","conn":\#(conn),"msg":\#(conn)}"#)
        }
        let recording = try parse(lines.joined(separator: "\n"))
        let offsets = ReplaySchedule(recording, direction: .in, speed: 1e-300, rateIntervalNanos: nil).items.map(\.offsetNanos)
        XCTAssertEqual(offsets.count, 400)
        XCTAssertEqual(offsets.max(), DurationLimit.maxNanos + 1)
        XCTAssertEqual(recording.playbackNanos(server: true, speed: 1, rateIntervalNanos: nil), DurationLimit.maxNanos + 1)
        XCTAssertEqual(recording.playbackNanos(server: true, speed: 1, rateIntervalNanos: DurationLimit.maxNanos),
                       DurationLimit.maxNanos + 1)
        XCTAssertEqual(recording.playbackNanos(server: false, speed: 1, rateIntervalNanos: nil), 0, "no message out")
        let one = try parse(lines[0] + "\n" + lines[1])
        XCTAssertEqual(one.playbackNanos(server: true, speed: 1, rateIntervalNanos: nil), DurationLimit.maxNanos)
    }

    /// A recording without events starts with its first message; time never runs backwards.
    func testNoConnectionStartAndTimesGoingBack() throws {
        let lines = [#"{"t_ms":500,"dir":"in","conn":7,"msg":1}"#, #"{"t_ms":450,"dir":"in","conn":7,"msg":2}"#,
                     #"{"t_ms":470,"dir":"in","conn":7,"msg":3}"#]
        XCTAssertEqual(try schedule(lines, .in).map(\.0), [0, 0, 20])
    }
}
