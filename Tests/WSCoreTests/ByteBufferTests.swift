import XCTest
@testable import WSCore

final class ByteBufferTests: XCTestCase {
    func testAppendAndConsumeKeepOrder() {
        var buffer = ByteBuffer()
        buffer.append(contentsOf: [1, 2, 3])
        buffer.append(4)
        [UInt8](arrayLiteral: 5, 6).withUnsafeBytes { buffer.append($0) }
        XCTAssertEqual(buffer.readableBytes, 6)
        buffer.consume(2)
        XCTAssertEqual(buffer.readableArray, [3, 4, 5, 6])
        XCTAssertFalse(buffer.isEmpty)
        buffer.consume(4)
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertEqual(buffer.readableArray, [])
    }

    func testInsertPutsBytesAmongTheReadableOnes() {
        var buffer = ByteBuffer(capacity: 8)
        buffer.append(contentsOf: [9, 9, 1, 2, 3, 4])
        buffer.consume(2)
        [UInt8](arrayLiteral: 7, 8).withUnsafeBytes { buffer.insert($0, at: 2) }
        XCTAssertEqual(buffer.readableArray, [1, 2, 7, 8, 3, 4])
        [UInt8](repeating: 5, count: 20).withUnsafeBytes { buffer.insert($0, at: 0) }   // grows
        XCTAssertEqual(buffer.readableArray, [UInt8](repeating: 5, count: 20) + [1, 2, 7, 8, 3, 4])
        [UInt8](arrayLiteral: 6).withUnsafeBytes { buffer.insert($0, at: buffer.readableBytes) }
        XCTAssertEqual(buffer.readableArray.last, 6)
        let shared = buffer
        [UInt8](arrayLiteral: 0).withUnsafeBytes { buffer.insert($0, at: 1) }
        XCTAssertEqual(shared.readableArray.count, 27, "a copy keeps its bytes")
        XCTAssertEqual(buffer.readableArray.prefix(3), [5, 0, 5])
    }

    func testNonContiguousCollectionAppend() {
        var buffer = ByteBuffer()
        buffer.append(contentsOf: (1...300).lazy.map { UInt8(truncatingIfNeeded: $0) })
        XCTAssertEqual(buffer.readableBytes, 300)
        XCTAssertEqual(buffer.readableArray.last, UInt8(truncatingIfNeeded: 300))
    }

    func testDrainingResetsToStartWithoutGrowing() {
        var buffer = ByteBuffer(capacity: 64)
        for _ in 0..<1000 {
            buffer.append(contentsOf: [UInt8](repeating: 7, count: 40))
            buffer.consume(40)
        }
        XCTAssertEqual(buffer.capacity, 64, "a drained buffer must reuse its storage")
    }

    func testPartialConsumesDoNotGrowWithoutBound() {
        // A queue that always keeps a little data must still reuse its space.
        var buffer = ByteBuffer(capacity: 1024)
        var expected: UInt8 = 0
        var next: UInt8 = 0
        for _ in 0..<50 { buffer.append(next); next &+= 1 }
        for _ in 0..<10_000 {
            for _ in 0..<100 { buffer.append(next); next &+= 1 }
            let head = buffer.withReadableBytes { $0[0] }
            XCTAssertEqual(head, expected)
            buffer.consume(100)
            expected &+= 100
        }
        XCTAssertEqual(buffer.capacity, 1024)
        XCTAssertEqual(buffer.readableBytes, 50)
    }

    func testLargePrefixIsCompactedOnConsume() {
        var buffer = ByteBuffer(capacity: 400_000)
        buffer.append(contentsOf: [UInt8](repeating: 1, count: 300_000))
        buffer.append(contentsOf: [9, 8, 7])
        buffer.consume(300_000)
        XCTAssertEqual(buffer.readableArray, [9, 8, 7])
        // After compaction the free tail can take the whole capacity again.
        let capacity = buffer.capacity
        buffer.append(contentsOf: [UInt8](repeating: 2, count: capacity - 3))
        XCTAssertEqual(buffer.capacity, capacity)
    }

    func testWriteWithUnsafeMutableBytesCommitsReturnedCount() {
        var buffer = ByteBuffer()
        buffer.append(contentsOf: [0xAA])
        let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 10) { target in
            XCTAssertGreaterThanOrEqual(target.count, 10)
            for i in 0..<5 { target[i] = UInt8(i) }
            return 5
        }
        XCTAssertEqual(written, 5)
        XCTAssertEqual(buffer.readableArray, [0xAA, 0, 1, 2, 3, 4])
    }

    func testRemoveAllKeepsOrDropsCapacity() {
        var buffer = ByteBuffer()
        buffer.append(contentsOf: [UInt8](repeating: 1, count: 1000))
        buffer.removeAll()
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertGreaterThanOrEqual(buffer.capacity, 1000)
        buffer.removeAll(keepingCapacity: false)
        XCTAssertEqual(buffer.capacity, 0)
    }

    func testCopiesAreIndependent() {
        var a = ByteBuffer()
        a.append(contentsOf: [1, 2])
        var b = a
        b.append(3)
        a.consume(1)
        XCTAssertEqual(a.readableArray, [2])
        XCTAssertEqual(b.readableArray, [1, 2, 3])
    }

    func testGrowthStopsAtTheCapacityLimit() {
        var buffer = ByteBuffer()
        let piece = [UInt8](repeating: 3, count: 70)
        for _ in 0..<10 { piece.withUnsafeBytes { buffer.append($0, capacityLimit: 700) } }
        XCTAssertEqual(buffer.readableBytes, 700)
        XCTAssertEqual(buffer.capacity, 700)
        // Past the limit the bytes still fit: the limit bounds doubling only.
        piece.withUnsafeBytes { buffer.append($0, capacityLimit: 700) }
        XCTAssertEqual(buffer.readableBytes, 770)
        XCTAssertEqual(buffer.capacity, 770)
    }

    func testMutationThroughACopyDoesNotTouchTheOriginal() {
        var a = ByteBuffer(capacity: 16)
        a.append(contentsOf: [1, 2, 3])
        var b = a
        b.withMutableReadableBytes { $0[0] = 9 }
        XCTAssertEqual(a.readableArray, [1, 2, 3])
        XCTAssertEqual(b.readableArray, [9, 2, 3])
        let written = b.writeWithUnsafeMutableBytes(minimumWritableBytes: 1) { $0[0] = 4; return 1 }
        XCTAssertEqual(written, 1)
        XCTAssertEqual(a.readableArray, [1, 2, 3])
        XCTAssertEqual(b.readableArray, [9, 2, 3, 4])
    }
}
