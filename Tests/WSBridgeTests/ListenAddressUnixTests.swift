import XCTest
@testable import WSBridge

final class ListenAddressUnixTests: XCTestCase {
    func testUnixPath() throws {
        let address = try XCTUnwrap(ListenAddress(parsing: "unix:/run/wspipe.sock"))
        XCTAssertEqual(address, ListenAddress(host: "127.0.0.1", port: 0, path: nil, unixPath: "/run/wspipe.sock"))
        XCTAssertEqual(address.url(secure: false), "unix:/run/wspipe.sock")
        XCTAssertEqual(ListenAddress(parsing: "unix:rel/a b.sock")?.unixPath, "rel/a b.sock")
        XCTAssertNil(ListenAddress(parsing: "unix:"))
    }
}
