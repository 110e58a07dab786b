import XCTest
import WSCore
@testable import WSBridge

final class OutgoingFramesTests: XCTestCase {
    private func send(_ connection: inout Connection, _ messages: [[UInt8]], text: Bool = true) {
        for m in messages {
            m.withUnsafeBytes { text ? connection.sendText($0) : connection.sendBinary($0) }
        }
    }

    private func drain(_ frames: inout OutgoingFrames, _ output: inout ByteBuffer) -> [(Opcode, [UInt8])] {
        var result: [(Opcode, [UInt8])] = []
        frames.drainMessages(from: &output) { result.append(($0, Array($1))) }
        return result
    }

    func testCompletelyWrittenFramesAreConsumedPartialOnesKept() {
        var connection = Connection(role: .client, maxMessageSize: 1 << 20)
        let big = [UInt8](repeating: 7, count: 300)   // 16-bit length, masked: 8 + 300 bytes
        send(&connection, [Array("a".utf8), big])
        var tracker = OutgoingFrames()
        let first = 2 + 4 + 1
        tracker.didWrite(first + 10, in: &connection.output)
        XCTAssertEqual(connection.output.readableBytes, 8 + 300, "the first frame is gone, the second kept whole")
        XCTAssertEqual(tracker.unwrittenOffset, 10)
        tracker.didWrite(8 + 300 - 10, in: &connection.output)
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(tracker.unwrittenOffset, 0)
    }

    func testUnwrittenMessagesComeBackUnmaskedInOrder() {
        var connection = Connection(role: .client, maxMessageSize: 1 << 20)
        let payloads: [[UInt8]] = [Array("one".utf8), [UInt8](repeating: 1, count: 70_000), Array("three".utf8)]
        send(&connection, payloads)
        "ping".utf8.withContiguousStorageIfAvailable { connection.sendPing(UnsafeRawBufferPointer($0)) }
        var tracker = OutgoingFrames()
        tracker.didWrite(5, in: &connection.output)   // part of the first frame only
        let recovered = drain(&tracker, &connection.output)
        XCTAssertEqual(recovered.map { $0.1 }, payloads, "every data message, the cut one included; no ping")
        XCTAssertTrue(recovered.allSatisfy { $0.0 == Opcode.text })
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(tracker.unwrittenOffset, 0)
    }

    func testBinaryOpcodeIsKept() {
        var connection = Connection(role: .client, maxMessageSize: 1 << 20)
        send(&connection, [[0, 255]], text: false)
        var tracker = OutgoingFrames()
        let recovered = drain(&tracker, &connection.output)
        XCTAssertEqual(recovered.count, 1)
        XCTAssertEqual(recovered[0].0, Opcode.binary)
        XCTAssertEqual(recovered[0].1, [0, 255])
    }

    func testFrameLengthOfEachEncoding() {
        XCTAssertEqual(([0x81, 0x05] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 7)
        XCTAssertEqual(([0x82, 0xFE, 0x01, 0x00] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 4 + 4 + 256)
        XCTAssertEqual(([0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 10 + 65536)
        XCTAssertNil(([0x82, 0x7F, 0x00] as [UInt8]).withUnsafeBytes { OutgoingFrames.frameLength(at: $0) })
    }
}
