import XCTest
@testable import WSBridge

final class ListenAddressUnixTests: XCTestCase {
    func testUnixPath() throws {
        let address = try XCTUnwrap(ListenAddress(parsing: "unix:/run/wspipe.sock"))
        XCTAssertEqual(address, ListenAddress(host: nil, port: 0, path: nil, unixPath: "/run/wspipe.sock"))
        XCTAssertEqual(address.display, "unix:/run/wspipe.sock")
        XCTAssertFalse(address.needsAnnouncing, "the path is known: nothing to announce")
        XCTAssertEqual(ListenAddress(parsing: "unix:rel/a b.sock")?.unixPath, "rel/a b.sock")
        XCTAssertNil(ListenAddress(parsing: "unix:"))
    }

    func testTCPPortZeroIsAnnounced() throws {
        XCTAssertTrue(try XCTUnwrap(ListenAddress(parsing: "127.0.0.1:0")).needsAnnouncing)
        XCTAssertFalse(try XCTUnwrap(ListenAddress(parsing: "8080")).needsAnnouncing)
    }
}
