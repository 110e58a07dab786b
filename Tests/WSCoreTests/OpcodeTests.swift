import XCTest
@testable import WSCore

final class OpcodeTests: XCTestCase {
    func testDefinedOpcodes() {
        XCTAssertEqual(Opcode.continuation.rawValue, 0)
        XCTAssertEqual(Opcode.text.rawValue, 1)
        XCTAssertEqual(Opcode.binary.rawValue, 2)
        XCTAssertEqual(Opcode.close.rawValue, 8)
        XCTAssertEqual(Opcode.ping.rawValue, 9)
        XCTAssertEqual(Opcode.pong.rawValue, 10)
    }

    func testControlAndReserved() {
        XCTAssertFalse(Opcode.text.isControl)
        XCTAssertFalse(Opcode.continuation.isControl)
        XCTAssertTrue(Opcode.close.isControl)
        XCTAssertTrue(Opcode.pong.isControl)
        let reserved: [UInt8] = [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF]
        for raw in UInt8(0)...15 {
            XCTAssertEqual(Opcode(rawValue: raw).isReserved, reserved.contains(raw), "opcode \(raw)")
        }
        XCTAssertEqual(Opcode(rawValue: 0xB).description, "reserved(0xB)")
    }
}
