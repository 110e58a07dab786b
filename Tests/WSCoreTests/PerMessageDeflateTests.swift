import XCTest
@testable import WSCore

/// Compressed messages through a Connection (RFC 7692 §6, §7.2), with the
/// RFC's own examples as golden bytes.
final class PerMessageDeflateTests: XCTestCase {
    private func compressedClient(_ parameters: DeflateParameters = DeflateParameters(),
                                  maxMessageSize: Int = 1 << 20) -> Connection {
        Connection(role: .client, maxMessageSize: maxMessageSize, compression: parameters,
                   entropy: EntropyPool(fixed: [0x37, 0xFA, 0x21, 0x3D]))
    }

    private func compressedServer(_ parameters: DeflateParameters = DeflateParameters(),
                                  maxMessageSize: Int = 1 << 20) -> Connection {
        Connection(role: .server, maxMessageSize: maxMessageSize, compression: parameters,
                   entropy: EntropyPool(fixed: [1, 2, 3, 4]))
    }

    private func sendText(_ connection: inout Connection, _ text: String) {
        Array(text.utf8).withUnsafeBytes { connection.sendText($0) }
    }

    /// The frames `connection` queued, then forgets them.
    private func takeFrames(_ connection: inout Connection) -> [(header: FrameHeader, payload: [UInt8])] {
        let frames = decodeFrames(connection.output.readableArray, role: connection.role == .client ? .server : .client)
        connection.consumeOutput(connection.output.readableBytes)
        return frames
    }

    // MARK: - Receiving: the RFC's examples (§7.2.3)

    func testSingleCompressedFrame() {
        // §7.2.3.1: "Hello" as one compressed frame.
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, hex("c1 07 f2 48 cd c9 c9 07 00")), [.text("Hello")])
    }

    func testCompressedMessageInTwoFrames() {
        // §7.2.3.1: RSV1 only on the first fragment.
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, hex("41 03 f2 48 cd") + hex("80 04 c9 c9 07 00")), [.text("Hello")])
    }

    func testSlidingWindowSharedBetweenMessages() {
        // §7.2.3.2: the second "Hello" refers back to the first.
        var connection = compressedClient()
        let stream = hex("c1 07 f2 48 cd c9 c9 07 00") + hex("c1 05 f2 00 11 00 00")
        XCTAssertEqual(feed(&connection, stream), [.text("Hello"), .text("Hello")])
    }

    func testStoredBlockAndFinalBlock() {
        // §7.2.3.3 (no compression) and §7.2.3.4 (BFINAL set), then a message
        // that refers back across the final block.
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, hex("c1 0b 00 05 00 fa ff 48 65 6c 6c 6f 00")), [.text("Hello")])
        XCTAssertEqual(feed(&connection, hex("c1 08 f3 48 cd c9 c9 07 00 00")), [.text("Hello")])
        XCTAssertEqual(feed(&connection, hex("c1 05 f2 00 11 00 00")), [.text("Hello")])
    }

    func testUncompressedMessagesStillPass() {
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, frame(.text, "plain") + hex("c1 07 f2 48 cd c9 c9 07 00")),
                       [.text("plain"), .text("Hello")])
    }

    func testCompressedFramesFedByteByByte() {
        var connection = compressedClient()
        let stream = hex("41 03 f2 48 cd") + frame(.ping, "p") + hex("80 04 c9 c9 07 00")
        XCTAssertEqual(feedByteByByte(&connection, stream), [.ping(Array("p".utf8)), .text("Hello")])
    }

    // MARK: - Violations

    func testRSV1OnAContinuationFrameIs1002() {
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, hex("41 03 f2 48 cd") + hex("c0 04 c9 c9 07 00")).map(\.failureCode), [1002])
    }

    func testCompressedControlFrameIs1002() {
        for opcode in [Opcode.ping, .pong, .close] {
            var connection = compressedClient()
            let events = feed(&connection, frame(opcode, [], reservedBits: FrameHeader.rsv1))
            XCTAssertEqual(events.map(\.failureCode), [1002], "\(opcode)")
        }
    }

    func testRSV1WithoutNegotiationIs1002() {
        var connection = client()
        XCTAssertEqual(feed(&connection, hex("c1 07 f2 48 cd c9 c9 07 00")).map(\.failureCode), [1002])
    }

    func testCorruptDataIs1007() {
        var connection = compressedClient()
        XCTAssertEqual(feed(&connection, hex("c1 03 ff ff ff")).map(\.failureCode), [1007])
    }

    func testInflatedTextMustBeUTF8() {
        var sender = compressedServer(DeflateParameters(serverNoContextTakeover: true))
        [UInt8](arrayLiteral: 0x61, 0xFF, 0x61).withUnsafeBytes { sender.sendText($0) }
        var receiver = compressedClient()
        XCTAssertEqual(feed(&receiver, sender.output.readableArray).map(\.failureCode), [1007])
    }

    func testDecompressionBombStopsAtTheLimit() {
        // 4 MiB of zeroes compress to under 32 KiB; the limit is 64 KiB.
        let limit = 64 << 10
        var sender = compressedServer()
        [UInt8](repeating: 0, count: 4 << 20).withUnsafeBytes { sender.sendBinary($0) }
        let bomb = sender.output.readableArray
        XCTAssertLessThan(bomb.count, 32 << 10)
        var assembler = MessageAssembler(maxMessageSize: limit,
                                         compression: PerMessageDeflate(parameters: DeflateParameters(), role: .client))
        var header = decodeFrames(bomb, role: .client)[0]
        XCTAssertNil(assembler.begin(header.header))
        let failure = header.payload.withUnsafeBytes { assembler.append($0) }
        XCTAssertEqual(failure, .tooBig(limit: limit))
        XCTAssertLessThanOrEqual(assembler.buffer.capacity, limit, "memory bounded by the limit")
        header.payload = []
        var connection = compressedClient(maxMessageSize: limit)
        XCTAssertEqual(feed(&connection, bomb).map(\.failureCode), [1009])
    }

    /// Empty compressed fragments inflate to nothing, so the size limit
    /// never sees them: the frame limit stops an endless run of them too.
    func testEmptyCompressedFragmentsWithoutEndAreStoppedAt1009() {
        var connection = compressedClient(maxMessageSize: 1024)
        let limit = connection.maxFramesPerMessage
        var stream = hex("41 03 f2 48 cd")
        let empty = frame(.continuation, [], fin: false)
        stream.reserveCapacity(empty.count * limit)
        for _ in 1 ..< limit { stream += empty }
        XCTAssertEqual(feed(&connection, stream), [])
        XCTAssertEqual(feed(&connection, empty), [.failed(1009, "message in more than \(limit) frames")])
    }

    func testMessageExactlyAtTheLimitInflates() {
        var sender = compressedServer()
        [UInt8](repeating: 7, count: 1000).withUnsafeBytes { sender.sendBinary($0) }
        var connection = compressedClient(maxMessageSize: 1000)
        XCTAssertEqual(feed(&connection, sender.output.readableArray), [.binary([UInt8](repeating: 7, count: 1000))])
        var smaller = compressedClient(maxMessageSize: 999)
        XCTAssertEqual(feed(&smaller, sender.output.readableArray).map(\.failureCode), [1009])
    }

    // MARK: - Sending

    func testSentMessageIsOneCompressedFrameMatchingTheRFC() {
        var connection = compressedServer()
        sendText(&connection, "Hello")
        sendText(&connection, "Hello")
        let frames = takeFrames(&connection)
        XCTAssertEqual(frames.map(\.header.reservedBits), [FrameHeader.rsv1, FrameHeader.rsv1])
        XCTAssertEqual(frames.map(\.header.fin), [true, true])
        XCTAssertEqual(frames.map(\.payload), [hex("f2 48 cd c9 c9 07 00"), hex("f2 00 11 00 00")])
    }

    func testNoContextTakeoverCompressesEachMessageAlone() {
        var connection = compressedServer(DeflateParameters(serverNoContextTakeover: true))
        sendText(&connection, "Hello")
        sendText(&connection, "Hello")
        XCTAssertEqual(takeFrames(&connection).map(\.payload), [hex("f2 48 cd c9 c9 07 00"), hex("f2 48 cd c9 c9 07 00")])
        // The client's half is separate: a client with the same parameters keeps its context.
        var client = compressedClient(DeflateParameters(serverNoContextTakeover: true))
        sendText(&client, "Hello")
        sendText(&client, "Hello")
        XCTAssertEqual(takeFrames(&client).map(\.payload), [hex("f2 48 cd c9 c9 07 00"), hex("f2 00 11 00 00")])
    }

    func testEmptyMessageIsOneZeroByte() {
        // Twice in a row too: zlib emits nothing for a second flush without input.
        var connection = compressedServer()
        sendText(&connection, "")
        sendText(&connection, "")
        sendText(&connection, "Hello")
        let frames = takeFrames(&connection)
        XCTAssertEqual(frames.map(\.payload), [[0x00], [0x00], hex("f2 48 cd c9 c9 07 00")])
        var client = compressedClient()
        XCTAssertEqual(feed(&client, frames.flatMap { frame(.text, $0.payload, reservedBits: FrameHeader.rsv1) }),
                       [.text(""), .text(""), .text("Hello")])
    }

    func testControlFramesAreNeverCompressed() {
        var connection = compressedClient()
        Array("ping".utf8).withUnsafeBytes { connection.sendPing($0) }
        _ = feed(&connection, frame(.ping, "x"))
        connection.sendClose(code: .normal, reason: "bye")
        let frames = takeFrames(&connection)
        XCTAssertEqual(frames.map(\.header.opcode), [.ping, .pong, .close])
        XCTAssertTrue(frames.allSatisfy { $0.header.reservedBits == 0 })
    }

    func testRoundTripsBothWaysInEveryContextMode() {
        let modes = [
            DeflateParameters(),
            DeflateParameters(serverNoContextTakeover: true, clientNoContextTakeover: true),
            DeflateParameters(serverMaxWindowBits: 8, clientMaxWindowBits: 9),
        ]
        var messages: [[UInt8]] = [[], Array("Hello".utf8)]
        messages.append(Array(String(repeating: "{\"type\":\"tick\",\"n\":12345} ", count: 5000).utf8))
        messages.append((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        for parameters in modes {
            var client = compressedClient(parameters)
            var server = compressedServer(parameters)
            for message in messages {
                message.withUnsafeBytes { client.sendBinary($0) }
                XCTAssertEqual(feed(&server, client.output.readableArray), [.binary(message)], "\(parameters)")
                client.consumeOutput(client.output.readableBytes)
                message.withUnsafeBytes { server.sendBinary($0) }
                XCTAssertEqual(feed(&client, server.output.readableArray), [.binary(message)], "\(parameters)")
                server.consumeOutput(server.output.readableBytes)
            }
        }
    }

    func testCompressionShrinksRepetitiveJSON() {
        var connection = compressedClient()
        let json = Array(String(repeating: "{\"type\":\"tick\",\"n\":1}", count: 1000).utf8)
        json.withUnsafeBytes { connection.sendText($0) }
        XCTAssertLessThan(connection.output.readableBytes, json.count / 20)
    }
}
