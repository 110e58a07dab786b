import XCTest
@testable import WSCore

/// Every rule whose violation fails the connection with 1002 (RFC 6455 §7.4.1).
final class ProtocolErrorTests: XCTestCase {
    /// Feeds `bytes` and checks: the last event is .failed(code), a Close with
    /// `code` is queued, the state is failed, and later input is ignored.
    private func assertFails(_ bytes: [UInt8], role: Role = .client, code: UInt16 = 1002,
                             file: StaticString = #filePath, line: UInt = #line) {
        var connection = role == .client ? client() : server()
        let events = feed(&connection, bytes)
        XCTAssertEqual(events.last?.failureCode, code, "events: \(events)", file: file, line: line)
        XCTAssertEqual(connection.state, .failed, file: file, line: line)
        let frames = decodeFrames(connection.output.readableArray, role: role == .client ? .server : .client)
        XCTAssertEqual(frames.count, 1, file: file, line: line)
        XCTAssertEqual(frames.first?.header.opcode, .close, file: file, line: line)
        XCTAssertEqual(Array(frames.first?.payload.prefix(2) ?? []), [UInt8(code >> 8), UInt8(code & 0xFF)],
                       file: file, line: line)
        let more = role == .client ? frame(.text, "more") : clientFrame(.text, Array("more".utf8))
        XCTAssertEqual(feed(&connection, more), [], "input after a failure must be ignored", file: file, line: line)
    }

    func testReservedBits() {
        assertFails(hex("C1 01 61"))  // RSV1
        assertFails(hex("A1 01 61"))  // RSV2
        assertFails(hex("91 01 61"))  // RSV3
    }

    func testEachReservedOpcode() {
        for opcode: UInt8 in [3, 4, 5, 6, 7, 0xB, 0xC, 0xD, 0xE, 0xF] {
            assertFails([0x80 | opcode, 0x00])
        }
    }

    func testFragmentedControlFrames() {
        assertFails(frame(.ping, "a", fin: false))
        assertFails(frame(.pong, "a", fin: false))
        assertFails(frame(.close, [0x03, 0xE8], fin: false))
    }

    func testControlPayload126() {
        assertFails(hex("89 7E 00 7E") + [UInt8](repeating: 0, count: 126))
        // The header alone is enough: no payload needs to arrive.
        assertFails(hex("88 7E"))
    }

    func testControlPayload125IsFine() {
        var connection = client()
        XCTAssertEqual(feed(&connection, frame(.ping, [UInt8](repeating: 7, count: 125))),
                       [.ping([UInt8](repeating: 7, count: 125))])
    }

    func testNonMinimalLengths() {
        assertFails(hex("82 7E 00 7D") + [UInt8](repeating: 0, count: 125))
        assertFails(hex("82 7E 00 00"))
        assertFails(hex("82 7F 00 00 00 00 00 00 FF FF") + [UInt8](repeating: 0, count: 65535))
        assertFails(hex("82 7F 00 00 00 00 00 00 00 7E"))
    }

    func test64BitLengthWithTopBitSet() {
        assertFails(hex("82 7F 80 00 00 00 00 00 00 01"))
    }

    func testContinuationWithoutStart() {
        assertFails(frame(.continuation, "lo"))
        assertFails(frame(.continuation, "lo", fin: false))
    }

    func testNewDataFrameDuringFragmentedMessage() {
        assertFails(frame(.text, "Hel", fin: false) + frame(.text, "lo"))
        assertFails(frame(.binary, [1], fin: false) + frame(.binary, [2], fin: false))
        assertFails(frame(.text, "a", fin: false) + frame(.binary, [2]))
    }

    func testMaskedFrameToClient() {
        assertFails(frame(.text, "Hello", maskKey: 0x37FA_213D), role: .client)
    }

    func testUnmaskedFrameToServer() {
        assertFails(frame(.text, "Hello"), role: .server)
    }

    func testClosePayloadOfLengthOne() {
        assertFails(frame(.close, [0x03]))
    }

    func testInvalidCloseCodes() {
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000] {
            assertFails(frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("x".utf8)))
        }
    }

    func testValidCloseCodesAreAcceptedAndEchoed() {
        for code: UInt16 in [1000, 3000, 4999] {
            var connection = client()
            let events = feed(&connection, frame(.close, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("ok".utf8)))
            XCTAssertEqual(events, [.close(code, "ok")])
            let echo = decodeFrames(connection.output.readableArray, role: .server)
            XCTAssertEqual(echo.first?.payload, [UInt8(code >> 8), UInt8(code & 0xFF)])
        }
    }

    func testCloseReasonWithInvalidUTF8Is1007() {
        assertFails(frame(.close, [0x03, 0xE8, 0xFF]), code: 1007)
    }

    func testFailureInMiddleOfStreamKeepsEarlierEvents() {
        var connection = client()
        let events = feed(&connection, frame(.text, "ok") + hex("C1 00") + frame(.text, "never"))
        XCTAssertEqual(events.count, 2)
        XCTAssertEqual(events.first, .text("ok"))
        XCTAssertEqual(events.last?.failureCode, 1002)
    }
}
