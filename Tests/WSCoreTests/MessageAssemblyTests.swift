import XCTest
@testable import WSCore

/// Fragmentation (RFC 6455 §5.4), UTF-8 across fragments (§8.1), size limits (1009).
final class MessageAssemblyTests: XCTestCase {
    func testFragmentedHello() {
        var connection = client()
        XCTAssertEqual(feed(&connection, hex("01 03 48 65 6c")), [])
        XCTAssertEqual(feed(&connection, hex("80 02 6c 6f")), [.text("Hello")])
    }

    func testFragmentationWithInterleavedPing() {
        var connection = client()
        let stream = frame(.text, "Hel", fin: false) + frame(.ping, "p") + frame(.continuation, "l", fin: false)
            + frame(.pong, "q") + frame(.continuation, "o")
        XCTAssertEqual(feed(&connection, stream), [.ping(Array("p".utf8)), .pong(Array("q".utf8)), .text("Hello")])
        connection.outputWritten()
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(frames.map(\.header.opcode), [.pong])
        XCTAssertEqual(frames.first?.payload, Array("p".utf8))
    }

    func testBinaryInThreeFragmentsWithEmptyOnes() {
        var connection = client()
        let stream = frame(.binary, [], fin: false) + frame(.continuation, [1, 2], fin: false)
            + frame(.continuation, [3]) + frame(.binary, [])
        XCTAssertEqual(feed(&connection, stream), [.binary([1, 2, 3]), .binary([])])
    }

    func testEmojiSplitAcrossFragments() {
        let emoji: [UInt8] = [0xF0, 0x9F, 0x98, 0x80]
        for split in 1...3 {
            var connection = client()
            let stream = frame(.text, Array("a".utf8) + emoji[..<split], fin: false)
                + frame(.continuation, Array(emoji[split...]) + Array("b".utf8))
            XCTAssertEqual(feed(&connection, stream), [.text("a😀b")], "split \(split)+\(4 - split)")
        }
    }

    func testInvalidUTF8FailsInFirstFragment() {
        var connection = client()
        // The final fragment never arrives: the failure must not wait for it.
        let events = feed(&connection, frame(.text, Array("ok".utf8) + [0xC0, 0xAF], fin: false))
        XCTAssertEqual(events.map(\.failureCode), [1007])
        XCTAssertEqual(connection.state, .failed)
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(Array(frames.first?.payload.prefix(2) ?? []), [0x03, 0xEF])
    }

    func testInvalidUTF8FailsBeforeFrameIsComplete() {
        var connection = client()
        let whole = frame(.text, Array("abc".utf8) + [0xED, 0xA0, 0x80] + [UInt8](repeating: 0x61, count: 100))
        // Only the header and the first 6 payload bytes arrive.
        XCTAssertEqual(feed(&connection, Array(whole[..<8])).map(\.failureCode), [1007])
    }

    func testSurrogateSplitAcrossFragmentsFailsAtSecondByte() {
        var connection = client()
        XCTAssertEqual(feed(&connection, frame(.text, [0xED], fin: false)), [])
        XCTAssertEqual(feed(&connection, frame(.continuation, [0xA0], fin: false)).map(\.failureCode), [1007])
    }

    func testMessageEndingInsideCharacterFails() {
        var connection = client()
        let stream = frame(.text, Array("a".utf8) + [0xF0, 0x9F], fin: false) + frame(.continuation, [])
        XCTAssertEqual(feed(&connection, stream).map(\.failureCode), [1007])
        var single = client()
        XCTAssertEqual(feed(&single, frame(.text, [0xE2, 0x82])).map(\.failureCode), [1007])
    }

    func testInvalidUTF8InUnfragmentedTextIs1007() {
        var connection = client()
        XCTAssertEqual(feed(&connection, frame(.text, [0x61, 0xFF, 0x61])).map(\.failureCode), [1007])
    }

    /// The caller's check stands in for the UTF-8 pass on whole messages
    /// only when it vouches for them; what it does not vouch for is still
    /// validated, and a message assembled from pieces never goes to it.
    /// What the test checks below were asked (a C function pointer captures nothing).
    nonisolated(unsafe) private static var checked: [[UInt8]] = []

    func testTextCheckReplacesTheUTF8PassOnlyWhenItVouches() {
        Self.checked = []
        var trusting = client()
        // A check that vouches for everything: its word is taken (bad bytes
        // are delivered), which shows the UTF-8 pass was skipped.
        trusting.textCheck = { base, count in
            MessageAssemblyTests.checked.append(Array(UnsafeRawBufferPointer(start: base, count: count)))
            return 0
        }
        XCTAssertEqual(feed(&trusting, frame(.text, [0x61, 0xFF])), [.text(String(decoding: [0x61, 0xFF], as: UTF8.self))])
        XCTAssertEqual(Self.checked, [[0x61, 0xFF]])

        var doubting = client()
        doubting.textCheck = { base, count in
            MessageAssemblyTests.checked.append(Array(UnsafeRawBufferPointer(start: base, count: count)))
            return -1
        }
        XCTAssertEqual(feed(&doubting, frame(.text, "café") + frame(.binary, [0xFF])), [.text("café"), .binary([0xFF])])
        XCTAssertEqual(feed(&doubting, frame(.text, [0x61, 0xFF, 0x61])).map(\.failureCode), [1007])
        XCTAssertEqual(Self.checked.suffix(2), [Array("café".utf8), [0x61, 0xFF, 0x61]], "binary is not checked")

        // Pieces: validated as they come, the check is not asked.
        Self.checked = []
        var pieces = client()
        pieces.textCheck = trusting.textCheck
        XCTAssertEqual(feed(&pieces, frame(.text, "ok", fin: false) + frame(.continuation, "!")), [.text("ok!")])
        XCTAssertEqual(feed(&pieces, frame(.text, Array("ok".utf8) + [0xC0, 0xAF], fin: false)).map(\.failureCode), [1007])
        XCTAssertEqual(Self.checked, [])
    }

    /// The check's answer comes with the message it was given (so the
    /// caller need not ask again); a message it did not vouch for, or was
    /// not asked about, comes with -1.
    func testTheCheckAnswerTravelsWithTheMessage() {
        func verdicts(_ connection: inout Connection, _ bytes: [UInt8]) -> [Int] {
            var copy = bytes
            var found: [Int] = []
            copy.withUnsafeMutableBytes { buffer in
                connection.receive(buffer) { if case .text(_, let verdict) = $0 { found.append(verdict) } }
            }
            return found
        }
        var connection = client()
        XCTAssertEqual(verdicts(&connection, frame(.text, "{}")), [-1], "no check")
        connection.textCheck = { _, count in count == 2 ? 1 : count == 3 ? -1 : 0 }
        XCTAssertEqual(verdicts(&connection, frame(.text, "{}") + frame(.text, "abc") + frame(.text, "[1]!")), [1, -1, 0])
        XCTAssertEqual(verdicts(&connection, frame(.text, "{", fin: false) + frame(.continuation, "}")), [-1],
                       "assembled: not asked")
    }

    func testBinaryIsNotValidated() {
        var connection = client()
        XCTAssertEqual(feed(&connection, frame(.binary, [0xFF, 0xC0])), [.binary([0xFF, 0xC0])])
    }

    func testTooBigAnnouncedByHeader() {
        var connection = client(maxMessageSize: 100)
        // Only the header: 1009 comes before any payload byte.
        let events = feed(&connection, hex("82 65"))
        XCTAssertEqual(events.map(\.failureCode), [1009])
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(Array(frames.first?.payload.prefix(2) ?? []), [0x03, 0xF1])
        var huge = client(maxMessageSize: 64 << 20)
        XCTAssertEqual(feed(&huge, hex("82 7F 00 00 00 01 00 00 00 00")).map(\.failureCode), [1009])
    }

    func testTooBigAcrossFragments() {
        var connection = client(maxMessageSize: 100)
        XCTAssertEqual(feed(&connection, frame(.binary, [UInt8](repeating: 1, count: 60), fin: false)), [])
        XCTAssertEqual(feed(&connection, hex("80 3C")).map(\.failureCode), [1009])
    }

    func testExactlyTheLimitIsAccepted() {
        var connection = client(maxMessageSize: 100)
        let stream = frame(.text, String(repeating: "a", count: 50), fin: false)
            + frame(.continuation, String(repeating: "b", count: 50))
        XCTAssertEqual(feed(&connection, stream).count, 1)
        XCTAssertEqual(feed(&connection, frame(.binary, [UInt8](repeating: 0, count: 100))).count, 1)
    }

    func testLimitAppliesPerMessage() {
        var connection = client(maxMessageSize: 100)
        for _ in 0..<5 {
            let stream = frame(.binary, [UInt8](repeating: 1, count: 60), fin: false)
                + frame(.continuation, [UInt8](repeating: 2, count: 40))
            XCTAssertEqual(feed(&connection, stream).count, 1)
        }
    }

    func testAssemblerReusesItsBuffer() {
        var assembler = MessageAssembler(maxMessageSize: 1 << 20)
        let piece = [UInt8](repeating: 0x61, count: 1000)
        var capacities: Set<Int> = []
        for _ in 0..<50 {
            XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .text, payloadLength: 1000)))
            XCTAssertNil(piece.withUnsafeBytes { assembler.append($0) })
            XCTAssertNil(assembler.begin(FrameHeader(fin: true, opcode: .continuation, payloadLength: 1000)))
            XCTAssertNil(piece.withUnsafeBytes { assembler.append($0) })
            XCTAssertNil(assembler.finish())
            XCTAssertEqual(assembler.buffer.readableBytes, 2000)
            capacities.insert(assembler.buffer.capacity)
            assembler.reset()
        }
        XCTAssertEqual(capacities.count, 1, "the assembly buffer should be allocated once")
    }

    // MARK: - Memory bounded by the bytes that arrived (hostile peers)

    func testAnnouncedLengthReservesNothing() {
        // A header announcing 64 MiB and one byte of payload: the buffer holds
        // what arrived, not what was announced.
        var assembler = MessageAssembler(maxMessageSize: 64 << 20)
        XCTAssertNil(assembler.begin(FrameHeader(fin: true, opcode: .binary, payloadLength: 64 << 20)))
        XCTAssertNil([UInt8(7)].withUnsafeBytes { assembler.append($0) })
        XCTAssertEqual(assembler.buffer.readableBytes, 1)
        XCTAssertLessThanOrEqual(assembler.buffer.capacity, 4096)
    }

    func testCapacityNeverExceedsTheLimitWhileContinuationsArrive() {
        let limit = 10_000
        var assembler = MessageAssembler(maxMessageSize: limit)
        let piece = [UInt8](repeating: 1, count: 100)
        XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .binary, payloadLength: 100)))
        XCTAssertNil(piece.withUnsafeBytes { assembler.append($0) })
        var capacities: [Int] = []
        for _ in 1..<(limit / 100) {
            XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .continuation, payloadLength: 100)))
            XCTAssertNil(piece.withUnsafeBytes { assembler.append($0) })
            capacities.append(assembler.buffer.capacity)
        }
        XCTAssertEqual(assembler.buffer.readableBytes, limit)
        XCTAssertLessThanOrEqual(capacities.max() ?? 0, limit, "doubling capped at the limit")
        XCTAssertEqual(capacities.last, limit)
        // One more byte is over the limit: refused before it is stored.
        XCTAssertEqual(assembler.begin(FrameHeader(fin: true, opcode: .continuation, payloadLength: 1)),
                       .tooBig(limit: limit))
    }

    func testEndlessContinuationsThroughTheConnectionStayUnderTheLimit() {
        let limit = 5000
        var connection = client(maxMessageSize: limit)
        XCTAssertEqual(feed(&connection, frame(.binary, [UInt8](repeating: 1, count: 300), fin: false)), [])
        var events: [Event] = []
        for _ in 0..<40 where events.isEmpty {
            events = feed(&connection, frame(.continuation, [UInt8](repeating: 2, count: 300), fin: false))
        }
        XCTAssertEqual(events.map(\.failureCode), [1009])
    }

    // MARK: - Frames per message

    /// One frame per 64 bytes of the size limit, and at least 65,536: the
    /// default 64 MiB allows 1,048,576.
    func testTheFrameLimitFollowsTheSizeLimit() {
        XCTAssertEqual(MessageAssembler.frameLimit(maxMessageSize: 64 << 20), 1 << 20)
        XCTAssertEqual(MessageAssembler.frameLimit(maxMessageSize: 1 << 30), 1 << 24)
        XCTAssertEqual(MessageAssembler.frameLimit(maxMessageSize: 1024), 1 << 16)
        XCTAssertEqual(MessageAssembler.frameLimit(maxMessageSize: 0), 1 << 16)
        XCTAssertEqual(client(maxMessageSize: 64 << 20).maxFramesPerMessage, 1 << 20)
    }

    /// An endless run of empty fragments used to keep a message in progress
    /// for ever (no byte of it counts against the size): the frame after the
    /// limit fails the connection with 1009, and what the run built is
    /// never delivered.
    func testEmptyFragmentsWithoutEndAreStoppedAt1009() {
        var connection = client()
        let limit = connection.maxFramesPerMessage
        var stream = frame(.text, "a", fin: false)
        let empty = frame(.continuation, [], fin: false)
        stream.reserveCapacity(stream.count + empty.count * limit)
        for _ in 1 ..< limit { stream += empty }
        XCTAssertEqual(feed(&connection, stream), [], "\(limit) frames are allowed")
        let events = feed(&connection, empty)
        XCTAssertEqual(events, [.failed(1009, "message in more than \(limit) frames")])
        XCTAssertEqual(connection.state, .failed)
        let frames = decodeFrames(connection.output.readableArray, role: .server)
        XCTAssertEqual(frames.map(\.header.opcode), [.close])
        XCTAssertEqual(Array(frames.first?.payload.prefix(2) ?? []), [0x03, 0xF1])
    }

    /// A message in exactly the limit's frames (Autobahn 9.3.1: 4 MiB in
    /// 64-byte fragments is 65,536 of them) is delivered whole.
    func testAMessageInExactlyTheLimitsFramesArrives() {
        var connection = server(maxMessageSize: 4 << 20)
        let limit = connection.maxFramesPerMessage
        XCTAssertEqual(limit, 65_536)
        let piece = [UInt8](repeating: 0x61, count: 64)
        var stream = clientFrame(.text, piece, fin: false)
        let middle = clientFrame(.continuation, piece, fin: false)
        stream.reserveCapacity(middle.count * limit)
        for _ in 2 ..< limit { stream += middle }
        stream += clientFrame(.continuation, piece)
        var delivered = 0
        var copy = stream
        copy.withUnsafeMutableBytes { buffer in
            connection.receive(buffer) { event in
                if case .text(let payload, _) = event { delivered = payload.count }
            }
        }
        XCTAssertEqual(delivered, 4 << 20)
        XCTAssertEqual(connection.state, .open)
    }

    /// The count is per message: the next message starts again at one.
    func testTheFrameCountStartsAgainWithEachMessage() {
        var assembler = MessageAssembler(maxMessageSize: 1024)
        for _ in 0 ..< 3 {
            XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .binary, payloadLength: 0)))
            for _ in 2 ..< assembler.maxFrames {
                XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .continuation, payloadLength: 0)))
            }
            XCTAssertNil(assembler.begin(FrameHeader(fin: true, opcode: .continuation, payloadLength: 0)))
            XCTAssertEqual(assembler.message?.frames, assembler.maxFrames)
            XCTAssertNil(assembler.finish())
            assembler.reset()
        }
        XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .binary, payloadLength: 0)))
        for _ in 2 ... assembler.maxFrames {
            XCTAssertNil(assembler.begin(FrameHeader(fin: false, opcode: .continuation, payloadLength: 0)))
        }
        XCTAssertEqual(assembler.begin(FrameHeader(fin: true, opcode: .continuation, payloadLength: 0)),
                       .tooManyFrames(limit: assembler.maxFrames))
    }
}
