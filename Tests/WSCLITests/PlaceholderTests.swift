import XCTest

final class WSCLITestsPlaceholder: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
