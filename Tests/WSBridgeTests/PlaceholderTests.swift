import XCTest

final class WSBridgeTestsPlaceholder: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
