import XCTest
@testable import WSCore

final class CloseCodeTests: XCTestCase {
    func testNamedCodes() {
        XCTAssertEqual(CloseCode.normal.rawValue, 1000)
        XCTAssertEqual(CloseCode.protocolError.rawValue, 1002)
        XCTAssertEqual(CloseCode.noStatus.rawValue, 1005)
        XCTAssertEqual(CloseCode.abnormal.rawValue, 1006)
        XCTAssertEqual(CloseCode.invalidPayload.rawValue, 1007)
        XCTAssertEqual(CloseCode.messageTooBig.rawValue, 1009)
        XCTAssertEqual(CloseCode.internalError.rawValue, 1011)
    }

    func testValidOnWire() {
        for code: UInt16 in [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999] {
            XCTAssertTrue(CloseCode(rawValue: code).isValidOnWire, "\(code) should be valid")
        }
    }

    func testInvalidOnWire() {
        for code: UInt16 in [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535] {
            XCTAssertFalse(CloseCode(rawValue: code).isValidOnWire, "\(code) should be invalid")
        }
    }
}
