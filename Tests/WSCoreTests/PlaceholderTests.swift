import XCTest

final class WSCoreTestsPlaceholder: XCTestCase {
    func testBuilds() { XCTAssertTrue(true) }
}
