import XCTest
@testable import WSCore

final class OutgoingFramesTests: XCTestCase {
    private func send(_ connection: inout Connection, _ messages: [[UInt8]], text: Bool = true) {
        for m in messages {
            m.withUnsafeBytes { text ? connection.sendText($0) : connection.sendBinary($0) }
        }
    }

    private func drain(_ connection: inout Connection) -> [(Opcode, [UInt8])] {
        var result: [(Opcode, [UInt8])] = []
        connection.drainUnsentMessages { result.append(($0, Array($1))) }
        return result
    }

    private func tracking() -> Connection {
        Connection(role: .client, maxMessageSize: 1 << 20, recoversUnsentMessages: true,
                   entropy: EntropyPool(fixed: [0x37, 0xFA, 0x21, 0x3D]))
    }

    func testCompletelyWrittenFramesAreConsumedPartialOnesKept() {
        var connection = tracking()
        let big = [UInt8](repeating: 7, count: 300)   // 16-bit length, masked: 8 + 300 bytes
        send(&connection, [Array("a".utf8), big])
        let first = 2 + 4 + 1
        connection.didWrite(first + 10)
        XCTAssertEqual(connection.output.readableBytes, 8 + 300, "the first frame is gone, the second kept whole")
        XCTAssertEqual(connection.unwrittenBytes, 8 + 300 - 10)
        XCTAssertEqual(connection.withUnwrittenOutput { $0.count }, 8 + 300 - 10)
        connection.didWrite(8 + 300 - 10)
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(connection.unwrittenBytes, 0)
    }

    func testTrackerAloneConsumesWholeFrames() {
        var connection = client()
        send(&connection, [Array("a".utf8), Array("bc".utf8)])
        var output = connection.output
        var tracker = OutgoingFrames()
        tracker.didWrite(7 + 3, in: &output)
        XCTAssertEqual(output.readableBytes, 8)
        XCTAssertEqual(tracker.unwrittenOffset, 3)
    }

    func testUnwrittenMessagesComeBackUnmaskedInOrder() {
        var connection = tracking()
        let payloads: [[UInt8]] = [Array("one".utf8), [UInt8](repeating: 1, count: 70_000), Array("three".utf8)]
        send(&connection, payloads)
        "ping".utf8.withContiguousStorageIfAvailable { connection.sendPing(UnsafeRawBufferPointer($0)) }
        connection.didWrite(5)   // part of the first frame only
        let recovered = drain(&connection)
        XCTAssertEqual(recovered.map { $0.1 }, payloads, "every data message, the cut one included; no ping")
        XCTAssertTrue(recovered.allSatisfy { $0.0 == Opcode.text })
        XCTAssertTrue(connection.output.isEmpty)
        XCTAssertEqual(connection.unwrittenBytes, 0)
    }

    func testBinaryOpcodeIsKept() {
        var connection = tracking()
        send(&connection, [[0, 255]], text: false)
        let recovered = drain(&connection)
        XCTAssertEqual(recovered.count, 1)
        XCTAssertEqual(recovered[0].0, Opcode.binary)
        XCTAssertEqual(recovered[0].1, [0, 255])
    }

    func testFrameLengthOfEachEncoding() {
        XCTAssertEqual(hex("81 05").withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 7)
        XCTAssertEqual(hex("82 FE 01 00").withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 4 + 4 + 256)
        XCTAssertEqual(hex("82 7F 00 00 00 00 00 01 00 00").withUnsafeBytes { OutgoingFrames.frameLength(at: $0) }, 10 + 65536)
        XCTAssertNil(hex("82 7F 00").withUnsafeBytes { OutgoingFrames.frameLength(at: $0) })
    }
}
