import XCTest
@testable import WSBridge
@testable import WSMessages
@testable import WSConnect

/// Lines to packets as they are written (--socketio), the stdin check, and the URL rule.
final class SocketIOOutgoingTests: XCTestCase {
    private func outgoing(events: EventSink = EventSink(enabled: false)) -> SocketIOOutgoing {
        SocketIOOutgoing(log: Diagnostics(verbosity: 0, quiet: true), events: events)
    }

    private func prepare(_ out: SocketIOOutgoing, _ line: String, tag: Int = 1) -> SocketIOOutgoing.Packets? {
        Array(line.utf8).withUnsafeBytes { out.prepare(.text($0), tag: tag, what: "line") }
    }

    func testLinesBecomePacketsAndAsksAreNumberedForTheRun() throws {
        let out = outgoing()
        let first = try XCTUnwrap(prepare(out, #"{"event":"join","data":{"room":"a"},"ack":true}"#))
        XCTAssertEqual(first.packet.map { String(decoding: $0, as: UTF8.self) }, #"421["join",{"room":"a"}]"#)
        XCTAssertEqual(first.askedAck, 1)
        XCTAssertEqual(first.replyView.map { String(decoding: $0, as: UTF8.self) },
                       #"{"ack_of":1,"event":"join","data":{"room":"a"},"ack":true}"#)
        let plain = try XCTUnwrap(prepare(out, #"{"event":"m","data":1}"#))
        XCTAssertNil(plain.askedAck)
        XCTAssertNil(plain.replyView)
        XCTAssertEqual(prepare(out, #"{"event":"again","ack":true}"#)?.askedAck, 2)
    }

    func testAPacketSentAgainGoesAsItIs() throws {
        let out = outgoing()
        // Recovered from a dropped connection: tagged as a packet (and its attachments).
        let again = try XCTUnwrap(prepare(out, #"421["join",{}]"#, tag: 7 | MessageTag.packet))
        XCTAssertNil(again.packet)
        let attachment: [UInt8] = [0, 1]
        let binary = attachment.withUnsafeBytes {
            out.prepare(.binary($0), tag: 7 | MessageTag.packet | MessageTag.attachment, what: "line")
        }
        XCTAssertNotNil(binary)
        XCTAssertEqual(out.lastAckID, 0, "nothing numbered again")
    }

    func testWhatIsNoSocketIOLineIsRefusedAndCounted() {
        let out = outgoing()
        XCTAssertNil(prepare(out, #"{"type":"hello"}"#))
        XCTAssertNil(prepare(out, "not json"))
        XCTAssertNil([UInt8]([1]).withUnsafeBytes { out.prepare(.binary($0), tag: 3, what: "line") })
        // An answer of the script's own is reported, not counted as a line.
        XCTAssertNil(prepare(out, #"{"type":"pong"}"#, tag: MessageTag.uncounted))
        XCTAssertEqual(out.refusedLines, 3)
        var status = ExitStatus.success
        var stats = SessionStats()
        out.finalReport(&status, stats: &stats)
        XCTAssertEqual(status, .inputRejected)
        XCTAssertEqual(stats.invalidLines, 3)
    }

    func testAttachmentsAreCountedWithTheirPacket() {
        var tally = LineTally()
        tally.add(tag: 5 | MessageTag.packet)
        tally.add(tag: 5 | MessageTag.packet | MessageTag.attachment)
        tally.add(tag: 6 | MessageTag.packet | MessageTag.writtenBefore)
        XCTAssertEqual(tally.count, 2)
        XCTAssertEqual(tally.first, 5)
        XCTAssertEqual(tally.last, 6)
    }

    func testTheStdinCheckSaysWhereTheLineIsWrong() {
        func check(_ line: String) -> String? {
            Array(line.utf8).withUnsafeBytes { SocketIOLineCheck.check($0).map { "\($0.offset): \($0.reason)" } }
        }
        XCTAssertNil(check(#"{"event":"m","data":[1,{"$binary":"AAE="}]}"#))
        XCTAssertNil(check(#"{"$client":2,"event":"m"}"#), "a server's addressed line")
        XCTAssertEqual(check(#"{"event":"m","data":{"$binary":"A"}}"#), "32: invalid base64 in $binary")
        XCTAssertEqual(check(#"{"event":"m","x":1}"#), #"13: unknown member "x" (a Socket.IO line has event, data or args, ns, ack)"#)
    }

    func testTheEngineIOPathAndQuery() throws {
        func rewritten(_ url: String) throws -> String { try WebSocketURL(parsing: url).socketIO().target }
        XCTAssertEqual(try rewritten("ws://h:5000"), "/socket.io/?EIO=4&transport=websocket")
        XCTAssertEqual(try rewritten("ws://h/"), "/socket.io/?EIO=4&transport=websocket")
        XCTAssertEqual(try rewritten("ws://h/?token=t"), "/socket.io/?token=t&EIO=4&transport=websocket")
        XCTAssertEqual(try rewritten("ws://h/custom/path"), "/custom/path?EIO=4&transport=websocket")
        XCTAssertEqual(try rewritten("ws://h/socket.io/?EIO=4&transport=websocket"), "/socket.io/?EIO=4&transport=websocket")
        XCTAssertEqual(try rewritten("ws://h/x?transport=websocket"), "/x?transport=websocket&EIO=4")
    }
}

/// The one-shot rule with --socketio: an ack asked for is the reply owed.
final class SocketIOReplyTests: XCTestCase {
    private let ms: Int64 = 1_000_000

    func testTheAckAskedForIsOwedWhateverComesFirst() throws {
        var t = ReplyTracker(replyPath: nil, lingerNanos: 1_000 * ms, readsJSON: true, socketIO: true)
        t.connected(roundTripNanos: 200_000)
        let out = SocketIOOutgoing(log: Diagnostics(verbosity: 0, quiet: true), events: EventSink(enabled: false))
        func send(_ line: String) throws {
            let packets = try XCTUnwrap(Array(line.utf8).withUnsafeBytes { out.prepare(.text($0), tag: 1, what: "line") })
            let view = packets.replyView ?? Array(line.utf8)
            view.withUnsafeBytes { t.sent(.text($0), now: 0) }
        }
        func receive(_ line: String) { Array(line.utf8).withUnsafeBytes { t.received(text: $0) } }
        try send(#"{"event":"say","data":"hi"}"#)
        try send(#"{"event":"join","data":{"room":"a"},"ack":true}"#)
        // The room's broadcast of the first line, as it went: no echo server.
        receive(#"{"event":"say","data":"hi"}"#)
        receive(#"{"event":"joined","data":{"sid":"x"}}"#)
        XCTAssertEqual(t.wait(now: ms), 1_000 * ms, "the ack is still owed: the linger, from the first wait")
        receive(#"{"ack_of":1,"data":{"joined":"a"}}"#)
        let quiet = try XCTUnwrap(t.wait(now: 2 * ms))
        XCTAssertLessThanOrEqual(quiet, 15 * ms, "answered: only a moment of quiet")
        XCTAssertNil(t.wait(now: 20 * ms))
    }
}
