import XCTest
@testable import WSCore

final class ConnectionTests: XCTestCase {
    /// A stream exercising every frame type, as a server would send it.
    private let serverStream: [UInt8] = frame(.text, "Hello") + frame(.binary, [UInt8](repeating: 0xAB, count: 300))
        + frame(.text, "frag", fin: false) + frame(.ping, "hi") + frame(.continuation, "mented")
        + frame(.pong, "") + frame(.binary, [UInt8](repeating: 1, count: 70_000))
        + frame(.close, [0x03, 0xE8] + Array("bye".utf8))

    private var expectedEvents: [Event] {
        [.text("Hello"), .binary([UInt8](repeating: 0xAB, count: 300)), .ping(Array("hi".utf8)),
         .text("fragmented"), .pong([]), .binary([UInt8](repeating: 1, count: 70_000)), .close(1000, "bye")]
    }

    func testOneShotFeeding() {
        var connection = client()
        XCTAssertEqual(feed(&connection, serverStream), expectedEvents)
    }

    func testByteAtATimeFeedingGivesSameEvents() {
        var oneShot = client(), byteWise = client()
        let expected = feed(&oneShot, serverStream)
        XCTAssertEqual(feedByteByByte(&byteWise, serverStream), expected)
        XCTAssertEqual(byteWise.output.readableArray, oneShot.output.readableArray)
    }

    func testUnevenSplitsGiveSameEvents() {
        for sizes in [[1, 2, 3], [7, 300], [4096, 4096, 4096], [serverStream.count - 1]] {
            var connection = client()
            XCTAssertEqual(feed(&connection, serverStream, splitAt: sizes), expectedEvents, "splits \(sizes)")
        }
    }

    func testServerRoleUnmasksAtAnySplit() {
        let stream = clientFrame(.text, Array("Hello".utf8)) + clientFrame(.binary, [1, 2, 3, 4, 5, 6, 7, 8, 9], fin: false)
            + clientFrame(.ping, [7]) + clientFrame(.continuation, [10])
        let expected: [Event] = [.text("Hello"), .ping([7]), .binary([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])]
        var oneShot = server(), byteWise = server()
        XCTAssertEqual(feed(&oneShot, stream), expected)
        XCTAssertEqual(feedByteByByte(&byteWise, stream), expected)
        // Servers do not mask: the pong is 8a 01 07, queued at once.
        XCTAssertFalse(oneShot.hasPendingPong)
        XCTAssertEqual(oneShot.output.readableArray, hex("8a 01 07"))
    }

    func testWholeFrameIsDeliveredWithoutCopy() {
        var connection = client()
        var bytes = frame(.text, "Hello") + frame(.binary, [1, 2, 3])
        var inside: [Bool] = []
        bytes.withUnsafeMutableBytes { buffer in
            let range = UInt(bitPattern: buffer.baseAddress!)..<UInt(bitPattern: buffer.baseAddress! + buffer.count)
            connection.receive(buffer) { event in
                switch event {
                case .text(let p, _), .binary(let p): inside.append(range.contains(UInt(bitPattern: p.baseAddress!)))
                default: XCTFail("unexpected \(event)")
                }
            }
        }
        XCTAssertEqual(inside, [true, true])
    }

    func testSplitFrameIsDeliveredFromAssemblyBuffer() {
        var connection = client()
        let bytes = frame(.text, "Hello")
        XCTAssertEqual(feed(&connection, Array(bytes[..<4])), [])
        XCTAssertEqual(feed(&connection, Array(bytes[4...])), [.text("Hello")])
    }

    // MARK: - Sending

    func testClientSendsMaskedFramesWithPoolKeys() {
        var connection = client()
        Array("Hello".utf8).withUnsafeBytes { connection.sendText($0) }
        XCTAssertEqual(connection.output.readableArray, hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
        connection.consumeOutput(connection.output.readableBytes)
        [UInt8]([1, 2]).withUnsafeBytes { connection.sendBinary($0) }
        XCTAssertEqual(connection.output.readableArray, hex("82 82 37 fa 21 3d 36 f8"))
    }

    func testServerSendsUnmaskedFrames() {
        var connection = server()
        Array("Hello".utf8).withUnsafeBytes { connection.sendText($0) }
        Array("Hello".utf8).withUnsafeBytes { connection.sendPing($0) }
        XCTAssertEqual(connection.output.readableArray, hex("81 05 48 65 6c 6c 6f 89 05 48 65 6c 6c 6f"))
    }

    /// Issue 33: a ping put ahead of frames queued and not written yet.
    func testAPingGoesAheadOfQueuedFrames() {
        var connection = server()
        Array("Hello".utf8).withUnsafeBytes { connection.sendText($0) }
        Array("World".utf8).withUnsafeBytes { connection.sendText($0) }
        let length = Array("p".utf8).withUnsafeBytes { connection.insertPing($0, at: 7) }
        XCTAssertEqual(length, 3)
        XCTAssertEqual(connection.output.readableArray, hex("81 05 48 65 6c 6c 6f 89 01 70 81 05 57 6f 72 6c 64"))
        var client = client()
        let masked = Array("q".utf8).withUnsafeBytes { client.insertPing($0, at: 0) }
        XCTAssertEqual(masked, 7, "a client's ping is masked")
        XCTAssertEqual(decodeFrames(client.output.readableArray, role: .server).map(\.payload), [Array("q".utf8)])
    }

    func testPingPayloadIsTruncatedTo125() {
        var connection = server()
        [UInt8](repeating: 9, count: 200).withUnsafeBytes { connection.sendPing($0) }
        let frames = decodeFrames(connection.output.readableArray, role: .client)
        XCTAssertEqual(frames.first?.payload.count, 125)
    }

    func testPingIsAnsweredWithMaskedPong() {
        var connection = client()
        XCTAssertEqual(feed(&connection, hex("89 05 48 65 6c 6c 6f")), [.ping(Array("Hello".utf8))])
        connection.outputWritten()
        XCTAssertEqual(connection.output.readableArray, hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    // MARK: - Closing handshake (§5.5.1, §7)

    func testPeerCloseIsEchoedWithItsCode() {
        var connection = client()
        XCTAssertEqual(feed(&connection, frame(.close, [0x03, 0xE9] + Array("away".utf8))), [.close(1001, "away")])
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(frames.map(\.header.opcode), [.close])
        XCTAssertEqual(frames.first?.payload, [0x03, 0xE9])
        XCTAssertEqual(connection.state, .closed(by: .remote), "the peer closed first")
        XCTAssertTrue(connection.isClosingHandshakeComplete)
    }

    func testEmptyCloseIsAnsweredWithEmptyClose() {
        var connection = server()
        XCTAssertEqual(feed(&connection, clientFrame(.close, [])), [.close(nil, "")])
        XCTAssertEqual(connection.output.readableArray, hex("88 00"))
        XCTAssertTrue(connection.isClosingHandshakeComplete)
    }

    func testWeCloseFirst() {
        var connection = server()
        connection.sendClose(code: .normal, reason: "done")
        XCTAssertEqual(connection.state, .localClosing)
        XCTAssertEqual(connection.output.readableArray, hex("88 06 03 e8") + Array("done".utf8))
        XCTAssertFalse(connection.isClosingHandshakeComplete)
        connection.consumeOutput(connection.output.readableBytes)
        // Messages still arrive while closing; pings are not answered any more.
        XCTAssertEqual(feed(&connection, clientFrame(.text, Array("late".utf8)) + clientFrame(.ping, [1])),
                       [.text("late"), .ping([1])])
        XCTAssertEqual(feed(&connection, clientFrame(.close, [0x03, 0xE8])), [.close(1000, "")])
        XCTAssertTrue(connection.output.isEmpty, "no second Close")
        XCTAssertEqual(connection.state, .closed(by: .local), "the peer answered ours")
        XCTAssertTrue(connection.isClosingHandshakeComplete)
    }

    func testSendCloseWhenClosingOrClosedDoesNothing() {
        var connection = server()
        connection.sendClose(code: .normal, reason: "")
        let first = connection.output.readableArray
        connection.sendClose(code: .goingAway, reason: "again")
        XCTAssertEqual(connection.output.readableArray, first)
        var closed = server()
        _ = feed(&closed, clientFrame(.close, []))
        let echo = closed.output.readableArray
        closed.sendClose(code: .normal, reason: "")
        XCTAssertEqual(closed.output.readableArray, echo)
    }

    func testSendsAfterCloseAreIgnored() {
        var connection = server()
        connection.sendClose(code: .normal, reason: "")
        let before = connection.output.readableArray
        Array("x".utf8).withUnsafeBytes {
            connection.sendText($0)
            connection.sendBinary($0)
            connection.sendPing($0)
        }
        XCTAssertEqual(connection.output.readableArray, before)
    }

    func testCloseWithUnsendableCodeHasNoStatus() {
        var connection = server()
        connection.sendClose(code: .noStatus, reason: "ignored")
        XCTAssertEqual(connection.output.readableArray, hex("88 00"))
    }

    func testCloseReasonIsCutOnCharacterBoundary() {
        var connection = server()
        // 122 ASCII bytes + "é" (2 bytes) = 124 > 123: the "é" must go whole.
        connection.sendClose(code: .normal, reason: String(repeating: "a", count: 122) + "é")
        let frames = decodeFrames(connection.output.readableArray, role: .client)
        XCTAssertEqual(frames.first?.payload.count, 2 + 122)
        XCTAssertTrue(frames.first.map { $0.payload.dropFirst(2).withUnsafeBytes { UTF8Validator.isValid($0) } } ?? false)
    }

    func testDataAfterPeerCloseIsIgnored() {
        var connection = client()
        let events = feed(&connection, frame(.close, []) + frame(.text, "after"))
        XCTAssertEqual(events, [.close(nil, "")])
        XCTAssertEqual(feed(&connection, frame(.text, "later")), [])
    }

    // MARK: - Failing and EOF

    func testEOFWithoutCloseIsAbnormal() {
        var connection = client()
        var events: [Event] = []
        connection.receiveEOF { events.append(Event($0)) }
        XCTAssertEqual(events.map(\.failureCode), [1006])
        XCTAssertEqual(events.first, .failed(1006, "connection closed without a Close frame"))
        XCTAssertTrue(connection.output.isEmpty, "1006 is never sent")
        XCTAssertEqual(connection.state, .failed)
    }

    func testEOFAfterCloseIsQuiet() {
        var connection = client()
        _ = feed(&connection, frame(.close, [0x03, 0xE8]))
        var events: [Event] = []
        connection.receiveEOF { events.append(Event($0)) }
        XCTAssertEqual(events, [])
        XCTAssertEqual(connection.state, .closed(by: .remote), "who closed first survives the EOF")
    }

    func testEOFAfterFailureIsQuiet() {
        var connection = client()
        _ = feed(&connection, hex("C1 00"))
        var events: [Event] = []
        connection.receiveEOF { events.append(Event($0)) }
        XCTAssertEqual(events, [])
    }

    func testEOFWhileClosingIsAbnormal() {
        var connection = client()
        connection.sendClose(code: .normal, reason: "")
        var events: [Event] = []
        connection.receiveEOF { events.append(Event($0)) }
        XCTAssertEqual(events.map(\.failureCode), [1006])
        XCTAssertFalse(connection.isClosingHandshakeComplete)
        XCTAssertEqual(connection.state, .failed)
    }

    func testFailQueuesCloseAndStopsInput() {
        var connection = server()
        connection.fail(code: .policyViolation, reason: "no")
        XCTAssertEqual(connection.output.readableArray, hex("88 04 03 f0 6e 6f"))
        XCTAssertEqual(connection.state, .failed)
        XCTAssertEqual(feed(&connection, clientFrame(.text, Array("x".utf8))), [])
    }

    func testFailWithAbnormalQueuesNothing() {
        var connection = server()
        connection.fail(code: .abnormal, reason: "dead")
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(connection.state, .failed)
    }

    /// After the closing handshake there is nothing left to fail: the state
    /// keeps who closed first, and nothing more is queued.
    func testFailAfterTheClosingHandshakeChangesNothing() {
        var connection = server()
        connection.sendClose(code: .normal, reason: "")
        _ = feed(&connection, clientFrame(.close, [0x03, 0xE8]))
        let before = connection.output.readableArray
        connection.fail(code: .policyViolation, reason: "late")
        XCTAssertEqual(connection.state, .closed(by: .local))
        XCTAssertEqual(connection.output.readableArray, before)
    }

    /// Failing while our Close waits for its answer queues no second Close.
    func testFailWhileClosingQueuesNoSecondClose() {
        var connection = server()
        connection.sendClose(code: .normal, reason: "")
        let before = connection.output.readableArray
        connection.fail(code: .policyViolation, reason: "no")
        XCTAssertEqual(connection.state, .failed)
        XCTAssertEqual(connection.output.readableArray, before)
    }

    /// A Pong held for the latest Ping is not sent once the connection has
    /// failed, even without a Close (1006 is never sent).
    func testAHeldPongDiesWithTheConnection() {
        var connection = server()
        [UInt8](repeating: 5, count: Connection.pongHoldThreshold + 1).withUnsafeBytes { connection.sendBinary($0) }
        _ = feed(&connection, clientFrame(.ping, [7]))
        XCTAssertTrue(connection.hasPendingPong)
        let before = connection.output.readableBytes
        connection.fail(code: .abnormal, reason: "gone")
        connection.outputWritten()
        XCTAssertEqual(connection.output.readableBytes, before, "no Pong after the failure")
    }

    func testManySmallMessagesKeepOrder() {
        var stream: [UInt8] = []
        for i in 0..<2000 { stream += frame(.text, "{\"seq\":\(i)}") }
        var connection = client()
        let events = feed(&connection, stream, splitAt: [1000, 1, 999, 4096])
        XCTAssertEqual(events.count, 2000)
        XCTAssertEqual(events.last, .text("{\"seq\":1999}"))
        XCTAssertEqual(events[1234], .text("{\"seq\":1234}"))
    }

    // MARK: - Pongs under a ping flood (§5.5.3)

    /// Autobahn 2.10/2.11: ten pings in one read, each expecting its pong.
    func testEveryPingInOneInputIsAnsweredWhileTheOutputIsShort() {
        var connection = server()
        var stream: [UInt8] = []
        for i in 0..<10 { stream += clientFrame(.ping, Array("p\(i)".utf8)) }
        XCTAssertEqual(feed(&connection, stream).count, 10)
        let frames = decodeFrames(connection.output.readableArray, role: .client)
        XCTAssertEqual(frames.map(\.header.opcode), Array(repeating: .pong, count: 10))
        XCTAssertEqual(frames.map(\.payload), (0..<10).map { Array("p\($0)".utf8) }, "in order, each its own payload")
        XCTAssertFalse(connection.hasPendingPong)
    }

    func testAFloodOfPingsStopsGrowingTheOutputAtTheThreshold() {
        var connection = server()
        var stream: [UInt8] = []
        let payload = [UInt8](repeating: 7, count: 125)
        for _ in 0..<10_000 { stream += clientFrame(.ping, payload) }   // 1.3 MB of pongs if all were queued
        XCTAssertEqual(feed(&connection, stream).count, 10_000, "every ping is still reported")
        XCTAssertLessThanOrEqual(connection.output.readableBytes, Connection.pongHoldThreshold + 127)
        XCTAssertTrue(connection.hasPendingPong, "the latest one waits")
    }

    func testPongWaitsForUnwrittenOutputAndIsReplacedMeanwhile() {
        var connection = server()
        [UInt8](repeating: 5, count: Connection.pongHoldThreshold + 1).withUnsafeBytes { connection.sendBinary($0) }
        let before = connection.output.readableBytes
        // The peer pings while our output is stuck: nothing more is queued.
        for i in 0..<100 {
            XCTAssertEqual(feed(&connection, clientFrame(.ping, [UInt8(i)])).count, 1)
            XCTAssertEqual(connection.output.readableBytes, before)
        }
        connection.consumeOutput(10)
        XCTAssertTrue(connection.hasPendingPong, "still not all written: the pong waits")
        connection.consumeOutput(before - 10)
        connection.outputWritten()
        let frames = decodeFrames(connection.output.readableArray, role: .client)
        XCTAssertEqual(frames.map(\.header.opcode), [.pong])
        XCTAssertEqual(frames.first?.payload, [99], "only the latest ping is answered")
    }

    func testOutputWrittenButKeptDoesNotHoldPongsBack() {
        var connection = client()
        [UInt8](repeating: 5, count: Connection.pongHoldThreshold + 1).withUnsafeBytes { connection.sendBinary($0) }
        connection.writtenPrefix = connection.output.readableBytes   // written, kept until acknowledged
        _ = feed(&connection, frame(.ping, "x"))
        XCTAssertFalse(connection.hasPendingPong, "answered at once")
    }

    func testPendingPongGoesBeforeTheNextFrame() {
        var connection = client()
        Array("a".utf8).withUnsafeBytes { connection.sendText($0) }
        _ = feed(&connection, frame(.ping, "x"))
        Array("b".utf8).withUnsafeBytes { connection.sendText($0) }
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(frames.map(\.header.opcode), [.text, .pong, .text])
    }

    func testPingThenCloseInOneInputAnswersBeforeTheEcho() {
        var connection = client()
        _ = feed(&connection, frame(.ping, "x") + frame(.close, [0x03, 0xE8]))
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(frames.map(\.header.opcode), [.pong, .close])
    }
}
