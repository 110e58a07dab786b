import XCTest
@testable import WSBridge
@testable import WSMessages

/// The timed and matching parts of the scripted peer on a hand-driven
/// clock: --heartbeat and its timeout, the --replay player, --answer's
/// matching by type.
final class ScriptedPeerTests: XCTestCase {
    private let ms: Int64 = 1_000_000
    private var clock = ManualScheduler()

    // MARK: Heartbeat

    private var beats = 0
    private var silences = 0

    private func heartbeat(interval: Int64? = 100, timeout: Int64? = 250) -> Heartbeat {
        let h = Heartbeat(scheduler: clock, intervalNanos: interval.map { $0 * ms }, timeoutNanos: timeout.map { $0 * ms },
                          now: { [unowned self] in self.clock.now },
                          beat: { [unowned self] in self.beats += 1 }, onSilent: { [unowned self] in self.silences += 1 })
        h.start()
        return h
    }

    func testBeatsEveryInterval() {
        let h = heartbeat(timeout: nil)
        defer { h.stop() }
        clock.advance(by: 99 * ms)
        XCTAssertEqual(beats, 0)
        clock.advance(by: 1 * ms)
        XCTAssertEqual(beats, 1)
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(beats, 11)
        XCTAssertEqual(silences, 0)
    }

    func testSilenceIsCountedFromTheLastRead() {
        let h = heartbeat()
        clock.advance(by: 200 * ms)
        h.heard()                       // at 200
        clock.advance(by: 249 * ms)     // 449
        XCTAssertEqual(silences, 0)
        clock.advance(by: 1 * ms)       // 450: 250 since the read
        XCTAssertEqual(silences, 1)
        let beatsThen = beats
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(silences, 1, "once; everything stopped")
        XCTAssertEqual(beats, beatsThen)
    }

    func testReadsKeepItAliveAndStopEndsIt() {
        let h = heartbeat(interval: nil)
        for _ in 0 ..< 20 {
            clock.advance(by: 100 * ms)
            h.heard()
        }
        XCTAssertEqual(silences, 0)
        XCTAssertEqual(beats, 0, "no --heartbeat: nothing sent")
        h.stop()
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(silences, 0)
        XCTAssertEqual(clock.pendingCount, 0)
    }

    // MARK: ReplayPlayer

    private func schedule(_ offsets: [Int64]) -> ReplaySchedule {
        let lines = offsets.enumerated().map { #"{"t_ms":\#($0.element),"dir":"out","conn":1,"msg":\#($0.offset)}"# }
        return ReplaySchedule(try! Recording(parsing: Array(lines.joined(separator: "\n").utf8)), direction: .out,
                              speed: 1, rateIntervalNanos: nil)
    }

    func testPlaysOnScheduleAndEnds() {
        var sent: [(Int64, String)] = []
        var ended = false
        let player = ReplayPlayer(schedule: schedule([10, 10, 60, 160]), scheduler: clock, now: { [unowned self] in self.clock.now },
                                  deliver: { [unowned self] message, _ in
                                      if case .text(let t) = message { sent.append((self.clock.now / self.ms, String(decoding: t, as: UTF8.self))) }
                                      return true
                                  }, onEnd: { ended = true })
        player.start()
        XCTAssertEqual(sent.map(\.0), [0, 0], "the first message's offset is its own: it goes at once")
        clock.advance(by: 200 * ms)
        XCTAssertEqual(sent.map(\.0), [0, 0, 50, 150])
        XCTAssertEqual(sent.map(\.1), ["0", "1", "2", "3"])
        XCTAssertTrue(ended)
        XCTAssertEqual(player.remaining, 0)
    }

    func testBackPressureMovesTheRestBack() {
        var sent: [Int64] = []
        var open = true
        let player = ReplayPlayer(schedule: schedule([0, 100, 200, 300]), scheduler: clock, now: { [unowned self] in self.clock.now },
                                  deliver: { [unowned self] _, _ in sent.append(self.clock.now / self.ms); return true },
                                  canDeliver: { open })
        player.start()
        clock.advance(by: 50 * ms)
        open = false
        clock.advance(by: 500 * ms)     // the second one waits from 100 to 550
        XCTAssertEqual(sent, [0])
        open = true
        player.resume()
        XCTAssertEqual(sent, [0, 550])
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(sent, [0, 550, 650, 750], "no burst: the rest keeps its spacing")
    }

    func testStopLeavesTheRestUnplayedAndCountsUnsent() {
        var calls = 0
        let player = ReplayPlayer(schedule: schedule([0, 0, 100]), scheduler: clock, now: { [unowned self] in self.clock.now },
                                  deliver: { _, _ in calls += 1; return calls != 2 })
        player.start()
        XCTAssertEqual(player.unsent, 1)
        XCTAssertEqual(player.played, 1)
        player.stop()
        clock.advance(by: 1000 * ms)
        XCTAssertEqual(calls, 2)
        XCTAssertEqual(player.remaining, 1)
        XCTAssertEqual(player.tallyRemaining().phrase, "2 message(s) (--replay:2-3)", "with their lines in the recording")
    }

    /// Each message goes with its line of the recording, so that a report
    /// of it names that line (was: counted, without any line).
    func testMessagesCarryTheirRecordingLines() {
        var tags: [Int] = []
        let player = ReplayPlayer(schedule: schedule([0, 0, 0]), scheduler: clock, now: { [unowned self] in self.clock.now },
                                  deliver: { _, tag in tags.append(tag); return true })
        player.start()
        XCTAssertEqual(tags.map(MessageTag.replayLine(of:)), [1, 2, 3])
        XCTAssertEqual(tags.map(MessageTag.line(of:)), [0, 0, 0], "no stdin line")
        var tally = LineTally()
        for tag in tags { tally.add(tag: tag) }
        tally.add(tag: 7)
        XCTAssertEqual(tally.phrase, "4 message(s) (stdin:7, --replay:1-3)")
    }

    // MARK: AnswerTable

    func testAnswersByTypeInTheOrderGiven() throws {
        let pong = try MessageTemplate(#"{"type":"pong"}"#, scope: .message)
        let ack = try MessageTemplate(#"{"type":"ack","id":${.id}}"#, scope: .message)
        let hello = try MessageTemplate(#"{"hi":1}"#, scope: .message)
        var table = AnswerTable(rules: [AnswerRule(type: "ping", template: pong), AnswerRule(type: "é", template: hello),
                                        AnswerRule(type: "ping", template: ack)], typeKey: ["meta", "type"])
        func answers(_ json: String) -> [MessageTemplate] {
            var found: [MessageTemplate] = []
            Array(json.utf8).withUnsafeBytes { table.forEachAnswer(to: $0) { found.append($0) } }
            return found
        }
        XCTAssertEqual(answers(#"{"meta":{"type":"ping"},"id":3}"#), [pong, ack])
        XCTAssertEqual(answers(#"{"meta":{"type":"\u00e9"}}"#), [hello], "the type is compared unescaped")
        XCTAssertEqual(answers(#"{"type":"ping"}"#), [])
        XCTAssertEqual(answers(#"{"meta":{"type":["ping"]}}"#), [], "only a string is a type")
        XCTAssertEqual(answers(#"[1]"#), [])
    }

    /// `{"ping":N}`, `{"op":1}`, a plain text ping and a binary one were
    /// never answered (`$text` was accepted and never fired).
    func testAnswersToTypesThatAreNoString() throws {
        let one = try MessageTemplate(#"{"op":1}"#, scope: .message)
        let pong = try MessageTemplate(#"{"pong":${.ping}}"#, scope: .message)
        let text = try MessageTemplate(#"{"$text":"pong"}"#, scope: .message)
        let binary = try MessageTemplate(#"{"$binary":"AA=="}"#, scope: .message)
        let null = try MessageTemplate(#"{"n":1}"#, scope: .message)
        var table = AnswerTable(rules: [AnswerRule(type: "1", template: one), AnswerRule(type: ".ping", template: pong),
                                        AnswerRule(type: "$text", template: text), AnswerRule(type: "$binary", template: binary),
                                        AnswerRule(type: "null", template: null)],
                                typeKey: ["op"])
        func answers(_ json: String) -> [MessageTemplate] {
            var found: [MessageTemplate] = []
            Array(json.utf8).withUnsafeBytes { table.forEachAnswer(to: $0) { found.append($0) } }
            return found
        }
        XCTAssertEqual(answers(#"{"op":1,"d":null}"#), [one])
        XCTAssertEqual(answers(#"{"op": 1 }"#), [one], "blanks around a number do not count")
        XCTAssertEqual(answers(#"{"op":"1"}"#), [one], "the string 1 is type 1 too")
        XCTAssertEqual(answers(#"{"op":1.0}"#), [], "a number as written")
        XCTAssertEqual(answers(#"{"ping":1700000000}"#), [pong])
        XCTAssertEqual(answers(#"{"ping":{"at":1}}"#), [pong], "whatever the value")
        XCTAssertEqual(answers(#"{"op":null}"#), [null])
        XCTAssertEqual(answers(#"{"pong":1}"#), [])
        var plain: [MessageTemplate] = []
        table.forEachAnswer(toPlain: false) { plain.append($0) }
        XCTAssertEqual(plain, [text])
        plain = []
        table.forEachAnswer(toPlain: true) { plain.append($0) }
        XCTAssertEqual(plain, [binary])
        XCTAssertTrue(AnswerRule.isMalformedKeyPath(".a..b"))
        XCTAssertFalse(AnswerRule.isMalformedKeyPath(".a.b"))
        XCTAssertFalse(AnswerRule.isMalformedKeyPath("."), "a lone dot is a type like any other")
    }
}
