import XCTest
@testable import WSBridge

/// The queue of messages waiting for a connection: new ones packed in one
/// buffer, recovered ones before them, in order, with their tags, kinds and
/// a byte count that goes back to 0.
final class OutboundQueueTests: XCTestCase {
    private func pop(_ queue: inout OutboundQueue) -> String? {
        queue.popFirst { message, line -> String in
            switch message {
            case .text(let b): return "t\(line):" + String(decoding: b, as: UTF8.self)
            case .binary(let b): return "b\(line):\(Array(b))"
            }
        }
    }

    private func append(_ queue: inout OutboundQueue, _ text: String, line: Int, binary: Bool = false) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { queue.append(binary ? .binary($0) : .text($0), line: line) }
    }

    func testFIFOWithKindsTagsAndBytes() {
        var queue = OutboundQueue()
        XCTAssertTrue(queue.isEmpty)
        append(&queue, "{\"a\":1}", line: 1)
        append(&queue, "", line: 2)
        append(&queue, "\u{0}\u{1}", line: 3, binary: true)
        XCTAssertEqual(queue.count, 3)
        XCTAssertEqual(queue.byteCount, 9)
        XCTAssertEqual(pop(&queue), "t1:{\"a\":1}")
        XCTAssertEqual(queue.byteCount, 2)
        XCTAssertEqual(pop(&queue), "t2:")
        XCTAssertEqual(pop(&queue), "b3:[0, 1]")
        XCTAssertNil(pop(&queue))
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.byteCount, 0)
    }

    func testRecoveredMessagesGoFirstInTheirOrder() {
        var queue = OutboundQueue()
        append(&queue, "new", line: 10)
        queue.prepend([OutboundQueue.Message(isBinary: false, bytes: Array("r1".utf8), line: 4),
                       OutboundQueue.Message(isBinary: true, bytes: [7], line: 5)])
        append(&queue, "newer", line: 11)
        queue.prepend([OutboundQueue.Message(isBinary: false, bytes: Array("r0".utf8), line: 3)])
        XCTAssertEqual(queue.count, 5)
        XCTAssertEqual(queue.byteCount, 3 + 2 + 1 + 5 + 2)
        var seen: [String] = []
        while let next = pop(&queue) { seen.append(next) }
        XCTAssertEqual(seen, ["t3:r0", "t4:r1", "b5:[7]", "t10:new", "t11:newer"])
        XCTAssertEqual(queue.byteCount, 0)
    }

    func testCopiesAndTallies() {
        var queue = OutboundQueue()
        append(&queue, "a", line: 7)
        append(&queue, "b", line: 9 | MessageTag.writtenBefore)
        queue.prepend([OutboundQueue.Message(isBinary: false, bytes: [1], line: 5 | MessageTag.writtenBefore)])
        let (notSent, unconfirmed) = queue.tallies()
        XCTAssertEqual(notSent.count, 1)
        XCTAssertEqual(notSent.first, 7)
        XCTAssertEqual(unconfirmed.count, 2)
        XCTAssertEqual(unconfirmed.first, 5)
        XCTAssertEqual(unconfirmed.last, 9)
        XCTAssertEqual(queue.popFirst()?.bytes, [1])
        let copy = queue.popFirst()
        XCTAssertEqual(copy?.bytes, Array("a".utf8))
        XCTAssertEqual(copy?.line, 7)
        XCTAssertEqual(copy?.isBinary, false)
    }

    /// Many lines through a buffer that is drained as it fills (the
    /// connecting read-ahead, then the pump): nothing lost or reordered.
    func testManyMessagesInterleaved() {
        var queue = OutboundQueue()
        var next = 0, expected = 0
        for round in 0..<200 {
            for _ in 0..<(round % 7 + 1) {
                append(&queue, String(repeating: "x", count: next % 300), line: next + 1)
                next += 1
            }
            for _ in 0..<(round % 5 + 1) {
                guard let got = pop(&queue) else { break }
                XCTAssertEqual(got, "t\(expected + 1):" + String(repeating: "x", count: expected % 300))
                expected += 1
            }
        }
        while let got = pop(&queue) {
            XCTAssertEqual(got, "t\(expected + 1):" + String(repeating: "x", count: expected % 300))
            expected += 1
        }
        XCTAssertEqual(expected, next)
        XCTAssertEqual(queue.byteCount, 0)
    }
}
