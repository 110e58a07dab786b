import XCTest
@testable import WSBridge
@testable import WSMessages

/// Answers and heartbeats behind back-pressure (wspipe(1): SCRIPTED PEER),
/// on a hand-driven clock and a connection whose "behind" the test sets:
/// they wait while it is behind and go, answers first and in order, when it
/// has caught up; heartbeats due meanwhile wait as one; past the limit of
/// answers waiting the session is told to stop reading the peer.
final class ConnectionScriptFlowTests: XCTestCase {
    private let ms: Int64 = 1_000_000
    private let clock = ManualScheduler()
    private var behind = false
    /// Behind again once this many messages were sent.
    private var behindAfterSent: Int?
    private var sent: [String] = []
    private var peer: PeerScript?

    private func connection(heartbeat: String? = nil, pad: Int = 0) throws -> ConnectionScript {
        var options = ScriptOptions()
        let answer = #"{"type":"pong","n":${.n},"pad":""# + String(repeating: "p", count: pad) + #""}"#
        options.answers = [AnswerRule(type: "ping", template: try MessageTemplate(answer, scope: .message))]
        if let heartbeat {
            options.heartbeat = try MessageTemplate(heartbeat, scope: [])
            options.heartbeatIntervalNanos = 100 * ms
        }
        let peer = try XCTUnwrap(PeerScript(options: options, typeKey: ["type"], scheduler: clock,
                                            log: Diagnostics(verbosity: 0, quiet: true)))
        self.peer = peer
        let connection = ConnectionScript(conn: 1, peer: peer, sequence: SequenceCounter(),
                                          isBehind: { [unowned self] in
                                              self.behind || self.behindAfterSent.map { self.sent.count >= $0 } == true
                                          }) { [unowned self] message, _ in
            if case .text(let bytes) = message { self.sent.append(String(decoding: bytes, as: UTF8.self)) }
        }
        connection.start(onSilent: {})
        return connection
    }

    /// A read that brought pings `numbers`, then its end.
    private func read(_ numbers: Range<Int>, into connection: ConnectionScript) {
        for n in numbers {
            Array(#"{"type":"ping","n":\#(n)}"#.utf8).withUnsafeBytes { connection.received(text: $0, verdict: -1) }
        }
        connection.processed()
    }

    private var sentNumbers: [Int] {
        sent.compactMap { $0.contains(#""type":"pong""#) ? Int($0.split(separator: ",")[1].dropFirst(4)) : nil }
    }

    func testAnswersGoAfterTheReadWhileTheConnectionKeepsUp() throws {
        let c = try connection()
        read(0 ..< 3, into: c)
        XCTAssertEqual(sentNumbers, [0, 1, 2])
    }

    func testAnswersWaitWhileBehindAndGoInOrderOnceCaughtUp() throws {
        let c = try connection()
        read(0 ..< 2, into: c)
        behind = true
        read(2 ..< 5, into: c)
        c.release()
        XCTAssertEqual(sentNumbers, [0, 1], "nothing goes while the connection is behind")
        behind = false
        read(5 ..< 6, into: c)
        XCTAssertEqual(sentNumbers, Array(0 ..< 6), "the ones that waited first, in order")
    }

    func testReleaseStopsAsSoonAsTheConnectionIsBehindAgain() throws {
        let c = try connection()
        behind = true
        read(0 ..< 5, into: c)
        behind = false
        behindAfterSent = 2   // the first two answers put the output above the high water again
        c.release()
        XCTAssertEqual(sentNumbers, [0, 1])
        behindAfterSent = nil
        c.release()
        XCTAssertEqual(sentNumbers, Array(0 ..< 5))
    }

    func testHeartbeatsDueWhileBehindWaitAsOne() throws {
        let c = try connection(heartbeat: #"{"type":"hb"}"#)
        clock.advance(by: 100 * ms)
        XCTAssertEqual(sent, [#"{"type":"hb"}"#])
        behind = true
        clock.advance(by: 1000 * ms)   // ten intervals
        XCTAssertEqual(sent.count, 1)
        behind = false
        c.release()
        XCTAssertEqual(sent, [#"{"type":"hb"}"#, #"{"type":"hb"}"#], "one for all the intervals missed")
        clock.advance(by: 100 * ms)
        XCTAssertEqual(sent.count, 3, "then one per interval again")
    }

    func testAHeartbeatGoesBehindTheAnswersThatWaited() throws {
        let c = try connection(heartbeat: #"{"type":"hb"}"#)
        behind = true
        read(0 ..< 2, into: c)
        clock.advance(by: 100 * ms)
        behind = false
        clock.advance(by: 50 * ms)
        XCTAssertEqual(sent, [], "a heartbeat does not pass the answers waiting")
        c.release()
        XCTAssertEqual(sent.count, 3)
        XCTAssertEqual(sent.last, #"{"type":"hb"}"#)
    }

    func testPastTheLimitTheSessionStopsReadingThePeer() throws {
        let c = try connection(pad: 1000)
        behind = true
        var n = 0
        while !c.holdsReadingBack {
            read(n ..< n + 100, into: c)
            n += 100
            XCTAssertLessThan(n, 10_000)
        }
        XCTAssertGreaterThan(n * 1000, ConnectionScript.waitingLimit, "not before the limit")
        behind = false
        c.release()
        XCTAssertFalse(c.holdsReadingBack)
        XCTAssertEqual(sentNumbers, Array(0 ..< n), "every request answered, none lost")
    }

    func testBeforeACloseEverythingWaitingGoesRegardless() throws {
        let c = try connection()
        behind = true
        read(0 ..< 3, into: c)
        Array(#"{"type":"ping","n":3}"#.utf8).withUnsafeBytes { c.received(text: $0, verdict: -1) }
        c.processed(beforeClose: true)
        XCTAssertEqual(sentNumbers, [0, 1, 2, 3])
    }
}
