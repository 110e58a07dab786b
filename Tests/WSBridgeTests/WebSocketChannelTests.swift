import XCTest
import WSCore
import WSTransport
@testable import WSBridge
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// WebSocketChannel over a socketpair with a real event loop; the other end
/// is driven by hand with raw frame bytes.
final class WebSocketChannelTests: XCTestCase {
    private var loop = EventLoop()
    private var peer: Int32 = -1
    private var events: [String] = []
    /// The verdict each text message came with.
    private var verdicts: [Int] = []
    private var channel: WebSocketChannel!

    override func setUp() {
        let (mine, theirs) = makeSocketPair()
        peer = theirs
        channel = WebSocketChannel(stream: TCPStream(fd: mine), role: .client, maxMessageSize: 1 << 20, loop: loop) {
            [unowned self] event in
            switch event {
            case .message(.text(let bytes, let verdict)):
                self.events.append("text:" + String(decoding: bytes, as: UTF8.self))
                self.verdicts.append(verdict)
            case .message(.binary(let bytes)): self.events.append("binary:\(bytes.count)")
            case .message(.closeReceived(let code, _)): self.events.append("close:\(code?.rawValue ?? 0)")
            case .message(let other): self.events.append("\(other)")
            case .processed: self.events.append("processed")
            case .ended(.closed): self.events.append("ended:closed")
            case .ended(.lost): self.events.append("ended:lost")
            }
        }
    }

    override func tearDown() {
        channel.terminate()
        close(peer)
    }

    /// An unmasked server frame.
    private func frame(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 126)
        return [0x80 | opcode, UInt8(payload.count)] + payload
    }

    func testMessagesArriveThenProcessed() {
        channel.start(leftover: frame(1, Array("early".utf8)))
        writeAll(peer, frame(1, Array("a".utf8)) + frame(2, [1, 2, 3]))
        runLoop(loop) { self.events.filter { $0 != "processed" }.count == 3 }
        XCTAssertEqual(events.filter { $0 != "processed" }, ["text:early", "text:a", "binary:3"])
        XCTAssertEqual(events.last, "processed")
    }

    /// Reading text as JSON, each whole message comes with the JSON check's
    /// answer on it (0 valid, 1 valid with line breaks to compact, -1 not
    /// vouched for), so what writes it out need not validate it again.
    func testTextReadAsJSONComesWithItsVerdict() {
        channel.readsTextAsJSON()
        channel.start(leftover: [])
        writeAll(peer, frame(1, Array(#"{"a":1}"#.utf8)) + frame(1, Array("{\n}".utf8)) + frame(1, Array("hello".utf8)))
        runLoop(loop) { self.verdicts.count == 3 }
        XCTAssertEqual(verdicts, [0, 1, -1])
        XCTAssertEqual(events.filter { $0.hasPrefix("text:") }, [#"text:{"a":1}"#, "text:{\n}", "text:hello"])
    }

    func testWithoutJSONNoVerdictIsGiven() {
        channel.start(leftover: [])
        writeAll(peer, frame(1, Array(#"{"a":1}"#.utf8)))
        runLoop(loop) { self.verdicts.count == 1 }
        XCTAssertEqual(verdicts, [-1])
    }

    func testThePreambleGoesBeforeAnyFrame() {
        channel.sendFirst(Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
        Array("hi".utf8).withUnsafeBytes { channel.send(.text($0)) }
        XCTAssertGreaterThan(channel.outputBytes, 37)
        channel.start(leftover: [])
        runLoop(loop) { self.channel.outputBytes == 0 }
        let written = readAvailable(peer)
        XCTAssertEqual(Array(written.prefix(36)), Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
        XCTAssertEqual(written[36], 0x81, "then the text frame")
    }

    /// A peer that does not read what is queued for it is not read either,
    /// past --max-message-size + 8 MiB of output; once it reads, it is read again.
    func testReadingStopsWhileTheOutputIsFarAboveTheMessageLimit() {
        let chunk = [UInt8](repeating: 7, count: 64 << 10)
        for _ in 0 ..< 160 { chunk.withUnsafeBytes { channel.send(.binary($0)) } }
        XCTAssertGreaterThan(channel.outputBytes, (1 << 20) + (8 << 20))
        channel.start(leftover: [])
        writeAll(peer, frame(1, Array("a".utf8)))
        runLoop(loop) { self.events.contains("text:a") }
        writeAll(peer, frame(1, Array("b".utf8)))
        var waited = false
        loop.schedule(afterNanos: 100_000_000) { waited = true }
        runLoop(loop) { waited }
        XCTAssertFalse(events.contains("text:b"), "read while the output is stuck")
        // The peer reads: the output drains below the low water and "b" arrives.
        runLoop(loop) {
            _ = readAvailable(self.peer)
            return self.events.contains("text:b")
        }
    }

    func testPeerEOFWithoutCloseIsLost() {
        channel.start(leftover: [])
        shutdown(peer, Int32(SHUT_WR))
        runLoop(loop) { self.events.contains { $0.hasPrefix("ended") } }
        XCTAssertEqual(events.filter { $0.hasPrefix("ended") }, ["ended:lost"])
    }

    func testClosingHandshakeEndsClosed() {
        channel.start(leftover: [])
        channel.close(code: .normal)
        runLoop(loop) { !readAvailable(self.peer).isEmpty || true }
        writeAll(peer, frame(8, [0x03, 0xE8]))
        shutdown(peer, Int32(SHUT_WR))
        runLoop(loop) { self.events.contains { $0.hasPrefix("ended") } }
        XCTAssertTrue(events.contains("close:1000"))
        XCTAssertEqual(events.filter { $0.hasPrefix("ended") }, ["ended:closed"])
    }

    func testPausedReadingDeliversNothingUntilResumed() {
        channel.start(leftover: [])
        channel.setReadPaused(true)
        writeAll(peer, frame(1, Array("held".utf8)))
        var rounds = 0
        runLoop(loop) { rounds += 1; return rounds > 20 }
        XCTAssertFalse(events.contains("text:held"))
        channel.setReadPaused(false)
        runLoop(loop) { self.events.contains("text:held") }
    }

    func testUnwrittenMessagesComeBackAfterTheEnd() {
        channel.start(leftover: [])
        // Nobody reads the peer end: the socket buffer fills and the rest stays queued.
        let big = [UInt8](repeating: 0x61, count: 64 << 10)
        for _ in 0..<64 { big.withUnsafeBytes { channel.send(.text($0)) } }
        channel.flush()
        XCTAssertGreaterThan(channel.outputBytes, 0, "the socket buffer is smaller than 4 MiB")
        channel.terminate()
        var recovered = 0
        _ = channel.takeUnsentMessages { message, unsent in
            XCTAssertFalse(unsent.acknowledged)
            if case .text(let bytes) = message, bytes.count == big.count, bytes.allSatisfy({ $0 == 0x61 }) { recovered += 1 }
        }
        XCTAssertGreaterThan(recovered, 0)
        XCTAssertLessThanOrEqual(recovered, 64)
    }
}
