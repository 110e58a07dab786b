import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#endif

final class NameLookupTests: XCTestCase {
    /// Runs a lookup on a fresh loop to completion (or a generous deadline).
    private func lookUp(_ host: String, port: UInt16 = 80) -> Result<[SocketAddress], TransportError>? {
        let loop = EventLoop()
        var outcome: Result<[SocketAddress], TransportError>?
        let lookup = NameLookup(host: host, port: port, loop: loop)
        lookup.start { result in
            outcome = result
            loop.stop()
        }
        let guardTimer = loop.schedule(afterNanos: 20_000_000_000) { loop.stop() }
        loop.run()
        loop.cancel(guardTimer)
        return outcome
    }

    func testIPv4LiteralNeedsNoThreadAndKeepsThePort() throws {
        let before = openFDs()
        let addresses = try XCTUnwrap(lookUp("127.0.0.1", port: 9)).get()
        XCTAssertEqual(addresses.map(\.description), ["127.0.0.1:9"])
        XCTAssertEqual(openFDs(), before, "a literal must not open a pipe")
    }

    func testIPv6Literal() throws {
        let addresses = try XCTUnwrap(lookUp("::1", port: 443)).get()
        XCTAssertEqual(addresses.map(\.description), ["[::1]:443"])
    }

    /// localhost comes from /etc/hosts, through the helper thread.
    func testLocalhostResolvesToLoopback() throws {
        let addresses = try XCTUnwrap(lookUp("localhost", port: 8080)).get()
        XCTAssertFalse(addresses.isEmpty)
        for address in addresses {
            XCTAssertTrue(["127.0.0.1", "::1"].contains(address.host), "\(address)")
            XCTAssertEqual(address.port, 8080)
        }
    }

    /// An empty label is refused by the resolver library itself, before any
    /// query leaves the machine.
    func testFailureNamesTheHost() {
        guard case .failure(let error) = lookUp("no..such.host") else { return XCTFail("resolved an invalid name") }
        XCTAssertTrue(error.message.hasPrefix("resolve no..such.host: "), error.message)
        XCTAssertGreaterThan(error.message.count, "resolve no..such.host: ".count)
    }

    /// Cancelled before the thread answers: no completion, and once the
    /// thread is done every fd it or the loop opened is closed again.
    func testCancelledLookupLeaksNothing() {
        let before = openFDs()
        let loop = EventLoop()
        var called = false
        for _ in 0..<20 {
            let lookup = NameLookup(host: "localhost", port: 80, loop: loop)
            lookup.start { _ in called = true }
            lookup.cancel()
        }
        // Nothing is watched any more: the loop returns at once, no callback ran.
        loop.run()
        XCTAssertFalse(called)
        XCTAssertTrue(waitUntil { self.openFDs() == before }, "fds still open: \(openFDs()) vs \(before)")
    }

    /// Dropping a lookup without cancel() behaves the same (deinit cancels).
    func testDroppedLookupLeaksNothing() {
        let before = openFDs()
        let loop = EventLoop()
        var called = false
        do {
            let lookup = NameLookup(host: "localhost", port: 80, loop: loop)
            lookup.start { _ in called = true }
        }
        loop.run()
        XCTAssertFalse(called)
        XCTAssertTrue(waitUntil { self.openFDs() == before })
    }

    /// The completion runs on the loop, never inside start().
    func testCompletionIsNeverSynchronous() {
        let loop = EventLoop()
        for host in ["127.0.0.1", "localhost", "no..such.host"] {
            var called = false
            let lookup = NameLookup(host: host, port: 80, loop: loop)
            lookup.start { _ in called = true; loop.stop() }
            XCTAssertFalse(called, host)
            loop.run()
            XCTAssertTrue(called, host)
        }
    }

    private func openFDs() -> Int {
        guard let dir = opendir("/proc/self/fd") else { return -1 }
        defer { closedir(dir) }
        var n = 0
        while readdir(dir) != nil { n += 1 }
        return n
    }

    /// Polls `condition` every 10 ms for up to 10 s (the helper thread ends on its own time).
    private func waitUntil(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}
