import XCTest
@testable import WSMessages
#if canImport(Glibc)
import Glibc
#endif

final class LineSplitterTests: XCTestCase {
    /// Feeds `chunks` through a pipe, one read per chunk, and collects lines.
    private func lines(_ chunks: [String], separator: UInt8 = 10) -> [String] {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var splitter = LineSplitter(separator: separator)
        var out: [String] = []
        for chunk in chunks {
            let bytes = Array(chunk.utf8)
            _ = bytes.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            XCTAssertEqual(splitter.read(from: fds[0], chunk: 4096), .bytes(bytes.count))
            splitter.forEachLine { out.append(String(decoding: $0, as: UTF8.self)); return true }
        }
        close(fds[1])
        XCTAssertEqual(splitter.read(from: fds[0], chunk: 4096), .eof)
        splitter.finish { out.append(String(decoding: $0, as: UTF8.self)) }
        return out
    }

    func testLFAndCRLFAndLastLineWithoutNewline() {
        XCTAssertEqual(lines(["a\nb\r\nc"]), ["a", "b", "c"])
    }

    func testLineSplitAcrossReads() {
        XCTAssertEqual(lines(["{\"a\":", "1}\n{\"b\"", ":2}\n"]), ["{\"a\":1}", "{\"b\":2}"])
    }

    func testCRLFSplitBetweenCRAndLF() {
        XCTAssertEqual(lines(["x\r", "\ny\n"]), ["x", "y"])
    }

    func testEmptyLinesAreKept() {
        // The translator decides what an empty line means; the splitter keeps it.
        XCTAssertEqual(lines(["\n\na\n"]), ["", "", "a"])
    }

    func testNulSeparatorKeepsNewlinesAndCRs() {
        XCTAssertEqual(lines(["a\nb\0c\r\0"], separator: 0), ["a\nb", "c\r"])
    }

    func testStopEarlyKeepsTheRest() {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]); close(fds[1]) }
        var splitter = LineSplitter(separator: 10)
        _ = Array("1\n2\n3\n".utf8).withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
        _ = splitter.read(from: fds[0], chunk: 64)
        var seen: [String] = []
        splitter.forEachLine { seen.append(String(decoding: $0, as: UTF8.self)); return false }
        XCTAssertEqual(seen, ["1"])
        splitter.forEachLine { seen.append(String(decoding: $0, as: UTF8.self)); return true }
        XCTAssertEqual(seen, ["1", "2", "3"])
    }
}
