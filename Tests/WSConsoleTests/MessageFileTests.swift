import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import WSConsole

final class MessageFileTests: XCTestCase {
    private var path = ""

    override func setUp() {
        var template = Array("/tmp/wspipe-message-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let bytes: [UInt8] = Array(0...255) + Array(repeating: 7, count: 70_000)
        XCTAssertEqual(bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, bytes.count)
        close(fd)
    }

    override func tearDown() { unlink(path) }

    func testWholeFileAsOneMessage() throws {
        let bytes = try MessageFile.load(path, maxBytes: 1 << 20).get()
        XCTAssertEqual(bytes.count, 256 + 70_000, "more than one read's worth")
        XCTAssertEqual(Array(bytes.prefix(256)), Array(0...255))
    }

    func testLimitAndErrors() {
        XCTAssertEqual(MessageFile.load(path, maxBytes: 1000), .failure(.tooLarge(path: path, maxBytes: 1000)))
        XCTAssertEqual(MessageFile.load("/nonexistent/x", maxBytes: 10),
                       .failure(.cannotOpen(path: "/nonexistent/x", reason: "No such file or directory")))
        XCTAssertEqual(MessageFile.load("/tmp", maxBytes: 10),
                       .failure(.cannotRead(path: "/tmp", reason: "Is a directory")))
    }
}
