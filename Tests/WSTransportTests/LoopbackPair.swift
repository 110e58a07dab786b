import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A connected loopback TCP pair (client, accepted server side).
func loopbackTCPPair() throws -> (client: Int32, server: Int32) {
    let listener = socket(AF_INET, sockStream, 0)
    XCTAssertGreaterThanOrEqual(listener, 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
            bind(listener, pointer, length) == 0 && listen(listener, 1) == 0
                && getsockname(listener, pointer, &length) == 0
        }
    }
    guard bound else { throw XCTSkip("no loopback TCP here") }
    let client = socket(AF_INET, sockStream, 0)
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, length) == 0 }
    }
    XCTAssertTrue(connected)
    let server = accept(listener, nil, nil)
    XCTAssertGreaterThanOrEqual(server, 0)
    return (client, server)
}
