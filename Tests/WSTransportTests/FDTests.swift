import Foundation
import XCTest
@testable import WSTransport

final class FDTests: XCTestCase {
    override func setUp() {
        ignoreSIGPIPE()
    }

    /// A pipe whose ends are non-blocking, like stdout once the loop owns it.
    private func nonBlockingPipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&fds), 0)
        XCTAssertTrue(makeNonBlockingCloexec(fds[0]))
        XCTAssertTrue(makeNonBlockingCloexec(fds[1]))
        return (fds[0], fds[1])
    }

    /// Far more than a pipe holds (64 KiB on Linux): writeAll must wait in
    /// poll for the reader instead of giving up on EAGAIN.
    func testWriteAllWaitsForAFullPipe() {
        let (r, w) = nonBlockingPipe()
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let reader = PipeReader(fd: r)
        let error = payload.withUnsafeBytes { FD.writeAll(w, $0) }
        XCTAssertNil(error)
        FD.close(w)
        XCTAssertEqual(reader.wait(), payload)
        FD.close(r)
    }

    /// readAll waits for a writer that has not written yet, and ends at EOF.
    func testReadAllWaitsUntilEOF() {
        let (r, w) = nonBlockingPipe()
        let chunks = [Array("first ".utf8), Array("second ".utf8), Array("third".utf8)]
        let writer = Thread {
            for chunk in chunks { _ = chunk.withUnsafeBytes { FD.writeAll(w, $0) } }
            FD.close(w)
        }
        writer.start()
        XCTAssertEqual(try FD.readAll(r).get(), Array("first second third".utf8))
        FD.close(r)
    }

    func testReadAtEOFAndWouldBlock() {
        let (r, w) = nonBlockingPipe()
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(buf.withUnsafeMutableBytes { FD.read(r, into: $0) }, .wouldBlock)
        _ = Array("hi".utf8).withUnsafeBytes { FD.write(w, $0) }
        XCTAssertEqual(buf.withUnsafeMutableBytes { FD.read(r, into: $0) }, .bytes(2))
        FD.close(w)
        XCTAssertEqual(buf.withUnsafeMutableBytes { FD.read(r, into: $0) }, .eof)
        FD.close(r)
    }

    /// A reader that went away is EPIPE, shown as just "EPIPE" (a quiet end).
    func testWriteToClosedPipeIsBrokenPipe() {
        let (r, w) = nonBlockingPipe()
        FD.close(r)
        let result = Array("x".utf8).withUnsafeBytes { FD.write(w, $0) }
        guard case .error(let error) = result else { return XCTFail("expected an error, got \(result)") }
        XCTAssertTrue(error.isBrokenPipe)
        XCTAssertFalse(error.isConnectionReset)
        XCTAssertEqual(error.errno, EPIPE)
        XCTAssertEqual(error.call, "write")
        XCTAssertEqual("\(error)", "EPIPE")
        XCTAssertEqual(Array("x".utf8).withUnsafeBytes { FD.writeAll(w, $0) }, error)
        FD.close(w)
    }

    func testErrorTextNamesTheCall() {
        let (r, w) = nonBlockingPipe()
        FD.close(r)
        FD.close(w)
        var buf = [UInt8](repeating: 0, count: 4)
        let result = buf.withUnsafeMutableBytes { FD.read(r, into: $0) }
        XCTAssertEqual(result, .error(IOError(call: "read", errno: EBADF)))
        if case .error(let error) = result {
            XCTAssertEqual(error.description, "read: Bad file descriptor")
            XCTAssertEqual(error.reason, "Bad file descriptor")
        }
    }

    func testTLSReasonWithoutErrno() {
        let error = IOError(call: "TLS read", message: "decryption failed or bad record mac")
        XCTAssertNil(error.errno)
        XCTAssertFalse(error.isBrokenPipe)
        XCTAssertEqual(error.description, "TLS read: decryption failed or bad record mac")
    }

    func testConnectionResetHelper() {
        let error = IOError(call: "read", errno: ECONNRESET)
        XCTAssertTrue(error.isConnectionReset)
        XCTAssertEqual(error.description, "read: Connection reset by peer")
    }

    func testOpenReportsStrerror() {
        switch FD.open("/nonexistent/wspipe-test", O_RDONLY) {
        case .success(let fd): FD.close(fd); XCTFail("opened a missing file")
        case .failure(let error):
            XCTAssertEqual(error.errno, ENOENT)
            XCTAssertEqual(error.reason, "No such file or directory")
        }
    }

    func testOpenedFDIsCloseOnExec() throws {
        let fd = try FD.open("/dev/null", O_RDONLY).get()
        defer { FD.close(fd) }
        XCTAssertNotEqual(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0)
    }
}

/// Reads a pipe to EOF on its own thread; `wait()` returns everything read.
final class PipeReader: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var bytes: [UInt8] = []

    init(fd: Int32) {
        Thread {
            if case .success(let all) = FD.readAll(fd) { self.bytes = all }
            self.done.signal()
        }.start()
    }

    func wait() -> [UInt8] {
        done.wait()
        return bytes
    }
}
