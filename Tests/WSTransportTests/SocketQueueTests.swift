import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if os(Linux)
private let noSignal = Int32(MSG_NOSIGNAL)
#else
private let noSignal: Int32 = 0   // SIGPIPE is ignored (ignoreSIGPIPE)
#endif

/// What the kernel says of a socket's queues, and the Linux facts the
/// delivery promise rests on (Sources/README.md, Porting): each test states
/// one, so a port finds out which of them its kernel keeps.
final class SocketQueueTests: XCTestCase {
    /// Linux doubles the SO_SNDBUF it is given; `setSendBuffer(counting:)`
    /// gets the size it asks for as the kernel counts it either way.
    func testTheSendBufferIsCountedAsAsked() throws {
        let fd = socket(AF_INET, sockStream, 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        var value: Int32 = 64 << 10
        XCTAssertEqual(setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size)), 0)
        #if os(Linux)
        XCTAssertEqual(SocketQueue.sendBufferSize(fd), 128 << 10, "Linux counts twice what SO_SNDBUF is given")
        #endif
        XCTAssertEqual(SocketQueue.setSendBuffer(fd, counting: 96 << 10), 96 << 10)
        XCTAssertEqual(SocketQueue.sendBufferSize(fd), 96 << 10)
        XCTAssertNil(SocketQueue.setSendBuffer(-1, counting: 96 << 10), "refused")
    }

    /// What a sign of life confirms rests on FIONREAD (`unreadBytes`,
    /// `holdsUnreadInput`): it answers 0 only when nothing the peer sent
    /// waits to be read, counts each byte that does until it is read, and
    /// counts no byte for the peer's FIN (the read that finds the end is the
    /// stream's, not the account's).
    func testUnreadBytesAreWhatWaitsAndOnlyThat() throws {
        let (client, server) = try loopbackTCPPair()
        defer { close(client); close(server) }
        XCTAssertEqual(SocketQueue.unreadBytes(client), 0, "nothing sent yet")
        let hello = Array("hello".utf8)
        XCTAssertEqual(hello.withUnsafeBytes { send(server, $0.baseAddress, $0.count, noSignal) }, 5)
        var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "the bytes arrive")
        XCTAssertEqual(SocketQueue.unreadBytes(client), 5, "every byte that arrived and waits")
        var buffer = [UInt8](repeating: 0, count: 8)
        XCTAssertEqual(recv(client, &buffer, 2, 0), 2)
        XCTAssertEqual(SocketQueue.unreadBytes(client), 3, "what was read is no longer counted")
        XCTAssertEqual(recv(client, &buffer, 8, 0), 3)
        XCTAssertEqual(SocketQueue.unreadBytes(client), 0, "all read: 0")
        XCTAssertEqual(shutdown(server, Int32(SHUT_WR)), 0)
        entry.revents = 0
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "the FIN makes the socket readable")
        XCTAssertEqual(SocketQueue.unreadBytes(client), 0, "the FIN is no byte waiting")
        XCTAssertEqual(recv(client, &buffer, 8, 0), 0, "the end of the stream")
        XCTAssertNil(SocketQueue.unreadBytes(-1), "not told of a descriptor that is none")
    }

    /// The fact the redelivery of unconfirmed messages rests on: after the peer
    /// resets the connection, the kernel still says how many bytes it never
    /// acknowledged (the peer's receive window was full, so they never left).
    func testUnacknowledgedBytesAreStillToldAfterAReset() throws {
        ignoreSIGPIPE()
        let (client, server) = try loopbackTCPPair()
        defer { close(client) }
        var small: Int32 = 4096
        _ = setsockopt(server, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        XCTAssertTrue(makeNonBlockingCloexec(client))
        // Fill the client's socket until the kernel takes no more: the
        // server reads nothing, so what is past its window stays unsent.
        let chunk = [UInt8](repeating: 0x61, count: 16 << 10)
        var written = 0
        while true {
            let n = chunk.withUnsafeBytes { send(client, $0.baseAddress, $0.count, noSignal) }
            if n <= 0 { break }
            written += n
        }
        XCTAssertGreaterThan(written, 0)
        let before = try XCTUnwrap(SocketQueue.unacknowledgedBytes(client))
        XCTAssertGreaterThan(before, 0, "bytes wait for the server's window")
        XCTAssertLessThanOrEqual(before, written)
        // The server goes away without reading: with unread bytes, close
        // sends a reset (RFC 2525 2.17), at once with a zero linger.
        var abort = linger(l_onoff: 1, l_linger: 0)
        XCTAssertEqual(setsockopt(server, SOL_SOCKET, SO_LINGER, &abort, socklen_t(MemoryLayout<linger>.size)), 0)
        close(server)
        var entry = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&entry, 1, 10_000), 1, "the reset arrives")
        var byte: UInt8 = 0
        XCTAssertEqual(recv(client, &byte, 1, 0), -1)
        XCTAssertEqual(errno, ECONNRESET)
        let after = try XCTUnwrap(SocketQueue.unacknowledgedBytes(client), "still answered after the reset")
        XCTAssertGreaterThan(after, 0, "what never reached the server is still counted")
        XCTAssertLessThanOrEqual(after, before, "nothing was acknowledged after the reset")
    }
}
