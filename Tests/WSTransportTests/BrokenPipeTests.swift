import XCTest
@testable import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to a peer that is gone (Sources/README.md, Porting): Linux sends
/// with MSG_NOSIGNAL, so a socket write reports EPIPE and raises no SIGPIPE
/// whatever its disposition; Darwin has no such flag, and wspipe lives there
/// because SIGPIPE is ignored process-wide. Each test states one of the two.
final class BrokenPipeTests: XCTestCase {
    /// A TCP socket whose writing side is shut: every write fails with EPIPE.
    private func shutSocket() throws -> (client: Int32, server: Int32) {
        let pair = try loopbackTCPPair()
        XCTAssertEqual(shutdown(pair.client, Int32(SHUT_WR)), 0)
        return pair
    }

    private func sendOneByte(_ fd: Int32, _ call: (Int32, UnsafeRawPointer?, Int) -> Int) -> (Int, Int32) {
        let byte: [UInt8] = [0x61]
        let n = byte.withUnsafeBytes { call(fd, $0.baseAddress, 1) }
        return (n, errno)
    }

    /// With SIGPIPE ignored (`ignoreSIGPIPE`, as `SignalWatcher` does), a
    /// write to a closed way is an EPIPE the caller sees, by send(2) or by
    /// write(2) (OpenSSL writes with write): the fact wspipe needs everywhere.
    func testWithSIGPIPEIgnoredAClosedWayIsEPIPE() throws {
        ignoreSIGPIPE()
        let (client, server) = try shutSocket()
        defer { close(client); close(server) }
        let (sent, sendError) = sendOneByte(client, sysSend)
        XCTAssertEqual(sent, -1)
        XCTAssertEqual(sendError, EPIPE)
        let (written, writeError) = sendOneByte(client) { write($0, $1, $2) }
        XCTAssertEqual(written, -1)
        XCTAssertEqual(writeError, EPIPE)
    }

    #if os(Linux)
    /// The Linux fact: `sysSend` (MSG_NOSIGNAL) raises no SIGPIPE, where a
    /// plain write(2) to the same socket does. SIGPIPE is blocked in this
    /// thread for the test, so a raised one waits (pending) instead of
    /// acting, and is taken back with sigwait.
    func testMSG_NOSIGNALRaisesNoSIGPIPE() throws {
        let (client, server) = try shutSocket()
        defer { close(client); close(server) }
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var before = sigset_t()
        XCTAssertEqual(pthread_sigmask(SIG_BLOCK, &pipeOnly, &before), 0)
        defer { pthread_sigmask(SIG_SETMASK, &before, nil) }
        func pipePending() -> Bool {
            var pending = sigset_t()
            sigpending(&pending)
            return sigismember(&pending, SIGPIPE) == 1
        }
        func takePending() {
            var taken: Int32 = 0
            while pipePending() { _ = sigwait(&pipeOnly, &taken) }
        }
        takePending()   // one raised before the test is not this test's

        let (sent, sendError) = sendOneByte(client, sysSend)
        XCTAssertEqual(sent, -1)
        XCTAssertEqual(sendError, EPIPE)
        XCTAssertFalse(pipePending(), "send(2) with MSG_NOSIGNAL raised SIGPIPE")

        let (written, writeError) = sendOneByte(client) { write($0, $1, $2) }
        XCTAssertEqual(written, -1)
        XCTAssertEqual(writeError, EPIPE)
        XCTAssertTrue(pipePending(), "write(2) raises SIGPIPE: what ignoring it guards against")
        takePending()
    }
    #endif
}
