import XCTest
@testable import WSBridge
@testable import WSMessages

/// The one-shot rule (wspipe(1): OPTIONS, Ending, --linger and --reply):
/// what is owed, for how long, and what still closes early.
final class ReplyTrackerTests: XCTestCase {
    private let ms: Int64 = 1_000_000
    private let roundTrip: Int64 = 200_000   // 0.2 ms: loopback

    private func tracker(reply: [String]? = nil, match: UntilCondition? = nil, linger: Int64 = 1_000_000_000,
                         json: Bool = true) -> ReplyTracker {
        var t = ReplyTracker(replyPath: reply, match: match, lingerNanos: linger, readsJSON: json)
        t.connected(roundTripNanos: roundTrip)
        return t
    }

    private func send(_ t: inout ReplyTracker, _ text: String, at now: Int64 = 0, record: Int = 0) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { t.sent(.text($0), now: now, record: record) }
    }

    /// A read of `texts`, then its credit: what the server's TCP had
    /// acknowledged before its last message arrived, and before the others.
    private func read(_ t: inout ReplyTracker, _ texts: [String], acknowledged last: Int, others: Int = 0, at now: Int64 = 0) {
        for text in texts { receive(&t, text) }
        t.processed(now: now, credit: DeliveryAccount.ReadCredit(last: last, others: others))
    }

    // MARK: issue 30: greetings cannot pass for replies

    func testAGreetingThatArrivedBeforeTheRequestWasAcknowledgedPaysNothing() {
        var t = tracker()
        send(&t, #"{"type":"ping"}"#, record: 0)
        read(&t, [#"{"type":"welcome"}"#], acknowledged: 0)
        XCTAssertEqual(t.wait(now: 20 * ms), 1_000 * ms, "still owed: the greeting came before the server had the request")
        read(&t, [#"{"type":"pong"}"#], acknowledged: 1, at: 100 * ms)
        XCTAssertEqual(t.wait(now: 100 * ms), 15 * ms, "answered: the quiet time")
        XCTAssertNil(t.wait(now: 115 * ms))
    }

    func testAServerThatNeverAnswersIsWaitedForTheLinger() {
        var t = tracker(linger: 300 * ms)
        send(&t, #"{"type":"ping"}"#, record: 0)
        read(&t, [#"{"type":"welcome"}"#], acknowledged: 0)
        XCTAssertEqual(t.wait(now: 0), 300 * ms)
        XCTAssertNil(t.wait(now: 300 * ms))
        XCTAssertEqual(t.takeCloseReason(), .lingerRanOut(owed: 1))
    }

    /// Read together, the first message arrived before the read's last one:
    /// it is credited with what was acknowledged before the read before.
    func testInOneReadOnlyTheLastMessageIsCreditedWithTheReadsArrival() {
        var t = tracker()
        send(&t, "{\"q\":1}", record: 0)
        send(&t, "{\"q\":2}", record: 1)
        read(&t, [#"{"type":"welcome"}"#, "{\"a\":1}"], acknowledged: 2, others: 0)
        XCTAssertEqual(t.wait(now: 0), 1_000 * ms, "one request paid, one still owed")
        read(&t, ["{\"a\":2}"], acknowledged: 2)
        XCTAssertEqual(t.wait(now: ms), 14 * ms)
    }

    func testWithoutTheKernelsStampsEveryArrivalPaysAsBefore() {
        var t = tracker()
        send(&t, #"{"type":"ping"}"#)
        receive(&t, #"{"type":"welcome"}"#)
        t.processed(now: 0)
        XCTAssertEqual(t.wait(now: 0), 15 * ms, "the greeting pays: nothing tells it apart")
    }

    /// An exact echo says the server's application read the message it
    /// echoes (the delivery account confirms it by that).
    func testAnEchoNamesTheRecordItEchoes() {
        var t = tracker()
        send(&t, #"{"a":1}"#, record: 4)
        send(&t, #"{"a":2}"#, record: 5)
        receive(&t, #"{"greeting":1}"#)
        XCTAssertNil(t.takeEchoedRecord())
        receive(&t, #"{"a":1}"#)
        XCTAssertEqual(t.takeEchoedRecord(), 4)
        XCTAssertNil(t.takeEchoedRecord(), "once")
        receive(&t, #"{"a":2}"#)
        XCTAssertEqual(t.takeEchoedRecord(), 5)
    }

    func testReplyMatchWaitsForTheResultNotTheAck() {
        var t = tracker(reply: ["id"], match: UntilCondition(path: ["type"], value: "result"))
        send(&t, #"{"id":7,"op":"work"}"#)
        receive(&t, #"{"id":7,"type":"ack"}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "the ack carries the key, but is no result")
        receive(&t, #"{"id":7,"type":"result"}"#)
        XCTAssertNil(t.wait(now: 20 * ms))
        XCTAssertEqual(t.takeCloseReason(), .allReplied)
    }

    private func receive(_ t: inout ReplyTracker, _ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { t.received(text: $0) }
    }

    func testNothingSentNothingOwed() {
        var t = tracker()
        XCTAssertNil(t.wait(now: 0))
        receive(&t, #"{"type":"welcome"}"#)
        XCTAssertNil(t.wait(now: ms), "what came before the first send is no reply")
    }

    func testAnEchoIsWaitedForThenClosesAtOnce() {
        var t = tracker()
        send(&t, #"{"a":1}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "owed: the linger, from the moment everything is out")
        receive(&t, #"{"a":1}"#)
        XCTAssertNil(t.wait(now: 2 * ms), "sent back as it was: an echo server, no quiet time")
    }

    func testAnEchoAfterAGreetingAndOfEveryMessageClosesAtOnce() {
        var t = tracker()
        send(&t, #"{"type":"ping","id":1}"#)
        send(&t, "{\"n\":2}")
        receive(&t, #"{"type":"welcome"}"#)
        receive(&t, #"{"type":"ping","id":1}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "the second message is not back yet: owed")
        receive(&t, "{\"n\":2}")
        XCTAssertNil(t.wait(now: 2 * ms))
    }

    func testAnEchoServerOwesEveryMessageAGreetingDoesNotPayForTheLast() {
        var t = tracker()
        for n in 1...3 { send(&t, "{\"chat\":\(n)}") }
        receive(&t, #"{"type":"welcome"}"#)
        receive(&t, #"{"chat":1}"#)
        receive(&t, #"{"chat":2}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "three arrivals for three messages, but it echoes: the third is owed")
        receive(&t, #"{"chat":3}"#)
        XCTAssertNil(t.wait(now: 2 * ms))
    }

    func testAMessageAfterTheEchoOrANearEchoMeansQuietTime() {
        var t = tracker()
        send(&t, #"{"a":1}"#)
        receive(&t, #"{"a":1}"#)
        receive(&t, #"{"from":"bot"}"#)
        XCTAssertEqual(t.wait(now: ms), 15 * ms, "something came after the echo: wait for quiet")
        var near = tracker()
        send(&near, #"{"a":1}"#)
        receive(&near, #"{"a":2}"#)
        XCTAssertEqual(near.wait(now: ms), 15 * ms, "same length, other bytes: no echo")
        var bare = tracker()
        send(&bare, #"{"a":1}"#)
        bare.received(text: nil)
        XCTAssertEqual(bare.wait(now: ms), 15 * ms, "a binary message is no echo of a text one")
    }

    func testOnlyTheFirstShortMessagesAreKeptToCompare() {
        let long = "{\"pad\":\"" + String(repeating: "x", count: ReplyTracker.echoedBytes) + "\"}"
        var big = tracker()
        send(&big, long)
        receive(&big, long)
        XCTAssertEqual(big.wait(now: ms), 15 * ms, "too long to keep: counted, then quiet")
        var many = tracker()
        for n in 0...ReplyTracker.echoedMessages { send(&many, "{\"n\":\(n)}") }
        for n in 0...ReplyTracker.echoedMessages { receive(&many, "{\"n\":\(n)}") }
        XCTAssertEqual(many.wait(now: ms), 15 * ms, "more than were kept: counted, then quiet")
        many.connected(roundTripNanos: roundTrip)
        send(&many, #"{"a":1}"#)
        receive(&many, #"{"a":1}"#)
        XCTAssertNil(many.wait(now: ms), "a new connection keeps again")
    }

    func testTheQuietCountsFromTheReadThatBroughtTheMessage() {
        var t = tracker()
        send(&t, #"{"type":"ping"}"#)
        receive(&t, #"{"type":"pong"}"#)
        t.processed(now: 10 * ms)
        XCTAssertEqual(t.wait(now: 20 * ms), 5 * ms, "stdin ended 10 ms after the answer came")
        XCTAssertNil(t.wait(now: 25 * ms))
        t.processed(now: 30 * ms)
        XCTAssertNil(t.wait(now: 30 * ms), "nothing new arrived: the quiet is not restarted")
    }

    func testAGreetingDoesNotPayForARequestWithAnID() {
        var t = tracker()
        send(&t, #"{"type":"ping","id":1}"#)
        receive(&t, #"{"type":"welcome"}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "the greeting carries no id 1")
        XCTAssertEqual(t.wait(now: 300 * ms), 701 * ms)
        receive(&t, #"{"type":"pong","id":1}"#)
        XCTAssertEqual(t.wait(now: 301 * ms), 15 * ms)
    }

    func testWithoutAnIDAnyMessageAfterTheSendPaysThenQuietCoversTheRest() {
        var t = tracker()
        send(&t, #"{"type":"ping"}"#)
        receive(&t, #"{"type":"welcome"}"#)
        XCTAssertEqual(t.wait(now: ms), 15 * ms, "counted: a moment of quiet for the answer")
        receive(&t, #"{"type":"pong"}"#)
        XCTAssertEqual(t.wait(now: 5 * ms), 15 * ms, "the answer moved the quiet on")
        XCTAssertNil(t.wait(now: 20 * ms))
    }

    func testAnAckThenItsResultBothArrive() {
        var t = tracker()
        send(&t, #"{"op":"run","id":"r1"}"#)
        receive(&t, #"{"type":"ack","id":"r1"}"#)
        XCTAssertEqual(t.wait(now: ms), 15 * ms, "the ack answered: wait for quiet")
        receive(&t, #"{"type":"result","id":"r1"}"#)
        XCTAssertEqual(t.wait(now: 3 * ms), 15 * ms)
    }

    func testIDsCompareAsRawJSONAndManyAreCounted() {
        var t = tracker()
        send(&t, #"{"id": 7 ,"x":1}"#)
        send(&t, #"{"id":"7"}"#)
        receive(&t, #"{"id":7}"#)
        XCTAssertNotNil(t.wait(now: ms))
        XCTAssertGreaterThan(t.wait(now: ms)!, 500 * ms, "\"7\" is still owed")
        receive(&t, #"{"id":"7"}"#)
        XCTAssertEqual(t.wait(now: 2 * ms), 15 * ms)
    }

    func testOnlyTheFirstIDsAreFollowed() {
        var t = tracker()
        for n in 0..<(ReplyTracker.trackedIDs + 2) { send(&t, #"{"id":\#(n)}"#) }
        // The last two are counted: any two messages pay for them.
        for n in 0..<ReplyTracker.trackedIDs { receive(&t, #"{"id":\#(n)}"#) }
        XCTAssertGreaterThan(t.wait(now: ms)!, 500 * ms)
        receive(&t, #"{"tick":1}"#)
        receive(&t, #"{"tick":2}"#)
        XCTAssertEqual(t.wait(now: 2 * ms), 15 * ms)
    }

    /// Messages without an id use up the look as well: an upload is not
    /// scanned message by message, so an id after the first ones is counted.
    func testOnlyTheFirstMessagesAreLookedAtForAnID() {
        var t = tracker()
        for n in 0..<ReplyTracker.trackedIDs { send(&t, #"{"n":\#(n)}"#) }
        send(&t, #"{"id":"late"}"#)
        for n in 0..<ReplyTracker.trackedIDs { receive(&t, #"{"r":\#(n)}"#) }
        XCTAssertGreaterThan(t.wait(now: ms)!, 500 * ms)
        receive(&t, #"{"greeting":true}"#)
        XCTAssertEqual(t.wait(now: 2 * ms), 15 * ms, "any message pays for the id sent after the first ones")
    }

    func testAServerThatEchoesNoIDIsCountedInstead() {
        var t = tracker()
        send(&t, #"{"id":1}"#)
        for n in 0..<ReplyTracker.examinedArrivals { receive(&t, #"{"tick":\#(n)}"#) }
        XCTAssertGreaterThan(t.wait(now: ms)!, 500 * ms)
        receive(&t, #"{"tick":"last"}"#)
        XCTAssertEqual(t.wait(now: 2 * ms), 15 * ms, "past the limit, the id is counted")
    }

    func testASinkIsNotWaitedFor() {
        var t = tracker()
        for n in 0..<ReplyTracker.sinkEvidence { send(&t, #"{"log":\#(n)}"#, at: 0) }
        XCTAssertNil(t.wait(now: 50 * ms), "nothing came in 50 ms (ten round trips: 10 ms)")
        var quick = tracker()
        for n in 0..<ReplyTracker.sinkEvidence { send(&quick, #"{"log":\#(n)}"#, at: 0) }
        XCTAssertNotNil(quick.wait(now: 2 * ms), "2 ms after the send: it may still answer")
        var few = tracker()
        send(&few, #"{"type":"ping"}"#, at: 0)
        XCTAssertNotNil(few.wait(now: 50 * ms), "a request read 50 ms before stdin ended is still owed its reply")
    }

    func testTheReasonTheWaitEndedIsToldOnce() {
        var t = tracker(linger: 100 * ms)
        send(&t, #"{"id":1}"#)
        XCTAssertNotNil(t.wait(now: 0))
        XCTAssertNil(t.takeCloseReason(), "still waiting: no reason")
        XCTAssertNil(t.wait(now: 100 * ms))
        XCTAssertEqual(t.takeCloseReason(), .lingerRanOut(owed: 1))
        XCTAssertNil(t.takeCloseReason(), "told once")
        var quiet = tracker()
        send(&quiet, #"{"type":"ping"}"#)
        receive(&quiet, #"{"type":"pong"}"#)
        XCTAssertEqual(quiet.wait(now: ms), 15 * ms)
        XCTAssertNil(quiet.wait(now: 16 * ms))
        XCTAssertEqual(quiet.takeCloseReason(), .quiet(nanos: 15 * ms))
        var echo = tracker()
        send(&echo, #"{"a":1}"#)
        receive(&echo, #"{"a":1}"#)
        XCTAssertNil(echo.wait(now: ms))
        XCTAssertEqual(echo.takeCloseReason(), .allEchoed)
        var sink = tracker()
        for n in 0..<ReplyTracker.sinkEvidence { send(&sink, #"{"log":\#(n)}"#, at: 0) }
        XCTAssertNil(sink.wait(now: 50 * ms))
        XCTAssertEqual(sink.takeCloseReason(), .notAnswering(sent: ReplyTracker.sinkEvidence))
    }

    func testTheLingerBoundsEverything() {
        var t = tracker(linger: 100 * ms)
        send(&t, #"{"id":1}"#)
        XCTAssertEqual(t.wait(now: 0), 100 * ms)
        XCTAssertEqual(t.wait(now: 99 * ms), ms)
        XCTAssertNil(t.wait(now: 100 * ms))
        var zero = tracker(linger: 0)
        send(&zero, #"{"id":1}"#)
        XCTAssertNil(zero.wait(now: 0), "--linger 0 closes at once")
    }

    func testTheQuietGrowsWithTheRoundTrip() {
        var t = ReplyTracker(replyPath: nil, lingerNanos: 10_000 * ms, readsJSON: true)
        t.connected(roundTripNanos: 50 * ms)
        send(&t, #"{"a":1}"#)
        receive(&t, #"{"b":1}"#)
        XCTAssertEqual(t.wait(now: 60 * ms), 200 * ms, "four round trips of 50 ms")
    }

    func testRawModeCountsAndRecognisesAnEcho() {
        var echo = tracker(json: false)
        send(&echo, "hello")
        receive(&echo, "hello")
        XCTAssertNil(echo.wait(now: ms))
        var t = tracker(json: false)
        send(&t, #"{"id":1}"#)
        receive(&t, "hello")
        XCTAssertEqual(t.wait(now: ms), 15 * ms)
        t.received(text: nil)
        XCTAssertEqual(t.wait(now: 2 * ms), 15 * ms)
    }

    // MARK: --reply

    func testReplyOwesExactlyTheKeyedMessagesAndClosesAtOnce() {
        var t = tracker(reply: ["meta", "rid"])
        send(&t, #"{"meta":{"rid":"a"}}"#)
        send(&t, #"{"no":"key"}"#)
        send(&t, #"{"meta":{"rid":"b"}}"#)
        receive(&t, #"{"type":"welcome"}"#)
        receive(&t, #"{"meta":{"rid":"b"},"ok":true}"#)
        XCTAssertEqual(t.owedKeys, [Array(#""a""#.utf8)])
        XCTAssertNotNil(t.wait(now: ms))
        receive(&t, #"{"meta":{"rid":"a"}}"#)
        XCTAssertNil(t.wait(now: 2 * ms), "all in: no quiet time")
        XCTAssertEqual(t.owedKeys, [])
    }

    func testReplyKeysStayOwedAcrossConnectionsAndAreReportedInOrder() {
        var t = tracker(reply: ["id"], linger: 10 * ms)
        for n in [3, 1, 2] { send(&t, #"{"id":\#(n)}"#) }
        t.connected(roundTripNanos: roundTrip)
        receive(&t, #"{"id":1}"#)
        XCTAssertEqual(t.owedKeys.map { String(decoding: $0, as: UTF8.self) }, ["3", "2"])
        XCTAssertEqual(t.wait(now: 0), 10 * ms)
        XCTAssertNil(t.wait(now: 10 * ms), "the linger ran out")
        XCTAssertEqual(t.owedKeys.count, 2, "still owed: reported at the end")
    }

    func testReplyWithNothingKeyedClosesAtOnce() {
        var t = tracker(reply: ["id"])
        send(&t, #"{"type":"ping"}"#)
        XCTAssertNil(t.wait(now: 0))
    }
}

/// Reply latency (wspipe(1): --stats reply_ms): measured where the matching
/// rule pairs a reply with its request, from the request's send.
final class ReplyLatencyTests: XCTestCase {
    private func text(_ s: String, _ body: (OutgoingMessage) -> Void) {
        Array(s.utf8).withUnsafeBytes { body(.text($0)) }
    }

    private func received(_ tracker: inout ReplyTracker, _ s: String, at now: Int64) -> ReplyTracker.Reply? {
        Array(s.utf8).withUnsafeBytes { tracker.received(text: $0, now: now) }
    }

    func testReplyByKey() {
        var tracker = ReplyTracker(replyPath: ["id"], lingerNanos: 0, readsJSON: true)
        tracker.connected(roundTripNanos: 0)
        text(#"{"id":1}"#) { tracker.sent($0, now: 100) }
        text(#"{"id":2}"#) { tracker.sent($0, now: 150) }
        XCTAssertNil(received(&tracker, #"{"id":3}"#, at: 200))
        XCTAssertEqual(received(&tracker, #"{"id":2,"ok":true}"#, at: 400), ReplyTracker.Reply(nanos: 250, key: Array("2".utf8)))
        XCTAssertEqual(received(&tracker, #"{"id":1}"#, at: 500)?.nanos, 400)
        XCTAssertNil(received(&tracker, #"{"id":1}"#, at: 600), "answered once")
        // Owed across a reconnect: still measured from the first send.
        text(#"{"id":4}"#) { tracker.sent($0, now: 700) }
        tracker.connected(roundTripNanos: 0)
        XCTAssertEqual(received(&tracker, #"{"id":4}"#, at: 1000)?.nanos, 300)
    }

    func testTheOneShotRule() {
        var tracker = ReplyTracker(replyPath: nil, lingerNanos: 1_000_000_000, readsJSON: true)
        tracker.connected(roundTripNanos: 0)
        // Before anything is sent, a message is no reply.
        XCTAssertNil(received(&tracker, #"{"type":"welcome"}"#, at: 10))
        text(#"{"op":"a"}"#) { tracker.sent($0, now: 100) }
        text(#"{"op":"b","id":7}"#) { tracker.sent($0, now: 120) }
        XCTAssertEqual(received(&tracker, #"{"id":7}"#, at: 130), ReplyTracker.Reply(nanos: 10, key: Array("7".utf8)))
        // Without a key, which message answers which is a guess: not measured.
        XCTAssertNil(received(&tracker, #"{"result":"a"}"#, at: 180))
    }

    func testAnEchoIsAReply() {
        var tracker = ReplyTracker(replyPath: nil, lingerNanos: 1_000_000_000, readsJSON: true)
        tracker.connected(roundTripNanos: 0)
        text(#"{"say":"a"}"#) { tracker.sent($0, now: 100) }
        text(#"{"say":"b"}"#) { tracker.sent($0, now: 150) }
        XCTAssertNil(received(&tracker, #"{"type":"greeting"}"#, at: 160))
        XCTAssertEqual(received(&tracker, #"{"say":"a"}"#, at: 200), ReplyTracker.Reply(nanos: 100, key: nil))
        XCTAssertEqual(received(&tracker, #"{"say":"b"}"#, at: 260), ReplyTracker.Reply(nanos: 110, key: nil))
    }
}
