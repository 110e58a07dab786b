import XCTest
@testable import WSCore

final class FrameEncoderTests: XCTestCase {
    // RFC 6455 §5.7 examples.

    func testUnmaskedHello() {
        XCTAssertEqual(frame(.text, "Hello"), hex("81 05 48 65 6c 6c 6f"))
    }

    func testMaskedHello() {
        XCTAssertEqual(frame(.text, "Hello", maskKey: 0x37FA_213D), hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    func testFragmentedHello() {
        XCTAssertEqual(frame(.text, "Hel", fin: false), hex("01 03 48 65 6c"))
        XCTAssertEqual(frame(.continuation, "lo"), hex("80 02 6c 6f"))
    }

    func testPingAndMaskedPong() {
        XCTAssertEqual(frame(.ping, "Hello"), hex("89 05 48 65 6c 6c 6f"))
        XCTAssertEqual(frame(.pong, "Hello", maskKey: 0x37FA_213D), hex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"))
    }

    func test256ByteBinaryHeader() {
        let payload = [UInt8](repeating: 0x5A, count: 256)
        let bytes = frame(.binary, payload)
        XCTAssertEqual(Array(bytes[..<4]), hex("82 7E 01 00"))
        XCTAssertEqual(Array(bytes[4...]), payload)
    }

    func test64KiBBinaryHeader() {
        let payload = [UInt8](repeating: 0xA5, count: 65536)
        let bytes = frame(.binary, payload)
        XCTAssertEqual(Array(bytes[..<10]), hex("82 7F 00 00 00 00 00 01 00 00"))
        XCTAssertEqual(bytes.count, 10 + 65536)
        XCTAssertEqual(Array(bytes[10...]), payload)
    }

    func testLengthBoundaries() {
        let cases: [(Int, [UInt8])] = [
            (0, hex("82 00")), (125, hex("82 7D")), (126, hex("82 7E 00 7E")),
            (65535, hex("82 7E FF FF")), (65536, hex("82 7F 00 00 00 00 00 01 00 00")),
        ]
        for (length, header) in cases {
            let bytes = frame(.binary, [UInt8](repeating: 1, count: length))
            XCTAssertEqual(Array(bytes[..<header.count]), header, "length \(length)")
            XCTAssertEqual(bytes.count, header.count + length)
            XCTAssertEqual(FrameHeader.encodedSize(payloadLength: length, masked: false), header.count)
        }
    }

    func testMaskedLongFrameMasksEveryByte() {
        let payload = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = frame(.binary, payload, maskKey: 0x0102_0304)
        XCTAssertEqual(Array(bytes[..<14]), hex("82 FF 00 00 00 00 00 01 11 70 01 02 03 04"))
        let key: [UInt8] = [1, 2, 3, 4]
        for i in stride(from: 0, to: payload.count, by: 997) {
            XCTAssertEqual(bytes[14 + i], payload[i] ^ key[i % 4], "byte \(i)")
        }
    }

    func testReservedBitsAndAppendAfterExistingBytes() {
        var out = ByteBuffer()
        out.append(contentsOf: [0xEE])
        Array("x".utf8).withUnsafeBytes {
            FrameEncoder.append(opcode: .text, fin: true, reservedBits: FrameHeader.rsv1, payload: $0,
                                maskKey: nil, into: &out)
        }
        XCTAssertEqual(out.readableArray, hex("EE C1 01 78"))
    }
}
