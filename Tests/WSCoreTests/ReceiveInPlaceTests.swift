import XCTest
@testable import WSCore

/// A large frame's payload read straight into the message being assembled:
/// offered only while such a payload is arriving, never past its frame, and
/// checked exactly as bytes given to `receive` are.
final class ReceiveInPlaceTests: XCTestCase {
    /// Reads into `region` from `source` (as a socket would), returning the
    /// count; records how much room each call was given.
    private final class Source {
        var bytes: [UInt8]
        var offered: [Int] = []
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        func fill(_ region: UnsafeMutableRawBufferPointer, at most: Int = .max) -> Int {
            offered.append(region.count)
            let n = min(region.count, bytes.count, most)
            region.copyBytes(from: bytes[..<n])
            bytes.removeFirst(n)
            return n
        }
    }

    private func inPlace(_ connection: inout Connection, _ source: Source, limit: Int = 256 << 10,
                         most: Int = .max) -> (Int?, [Event]) {
        var events: [Event] = []
        let took = connection.receiveInPlace(limit: limit, { source.fill($0, at: most) }) { events.append(Event($0)) }
        return (took, events)
    }

    func testALargeFrameIsReadIntoTheMessageAndTheNextFrameIsNot() {
        let body = Array(#"{"k":""#.utf8) + [UInt8](repeating: 0x61, count: 300_000) + Array(#""}"#.utf8)
        let stream = frame(.text, body) + frame(.text, "[1]")
        var connection = client()
        // The header and a first piece through `receive`.
        XCTAssertEqual(feed(&connection, Array(stream[..<10_010])), [])
        XCTAssertTrue(connection.acceptsPayloadInPlace)
        let source = Source(Array(stream[10_010...]))
        var events: [Event] = []
        var total = 0
        while connection.acceptsPayloadInPlace {
            let (took, more) = inPlace(&connection, source, limit: 100_000, most: 70_000)
            XCTAssertEqual(took, min(70_000, source.offered.last!))
            total += took ?? 0
            events += more
        }
        // Never more room than the limit; all but the payload's last 64 KiB
        // (at most) came in place.
        XCTAssertEqual(source.offered.max(), 100_000)
        let payloadLeft = source.bytes.count - frame(.text, "[1]").count
        XCTAssertLessThan(payloadLeft, Connection.inPlaceMinimum)
        XCTAssertEqual(10_000 + total + payloadLeft, body.count, "a 10-byte header, then 10,000 bytes through receive")
        XCTAssertEqual(events, [])
        // The rest of the frame (under 64 KiB) and the next frame: `receive`.
        XCTAssertFalse(connection.acceptsPayloadInPlace)
        XCTAssertNil(inPlace(&connection, source).0)
        XCTAssertEqual(feed(&connection, source.bytes), [.text(String(decoding: body, as: UTF8.self)), .text("[1]")])
    }

    func testFragmentsAndBinaryAreAssembledTheSameWay() {
        let first = [UInt8](repeating: 0x01, count: 150_000), second = [UInt8](repeating: 0x02, count: 100_000)
        let stream = frame(.binary, first, fin: false) + frame(.continuation, second)
        var connection = client()
        var events = feed(&connection, Array(stream[..<100]))
        let source = Source(Array(stream[100...]))
        while !source.bytes.isEmpty {
            if connection.acceptsPayloadInPlace {
                events += inPlace(&connection, source, limit: 32 << 10).1
            } else {
                let next = Array(source.bytes.prefix(5_000))
                source.bytes.removeFirst(next.count)
                events += feed(&connection, next)
            }
        }
        XCTAssertEqual(events, [.binary(first + second)])
        // 3 reads of the first frame (until under 64 KiB of it is left), 1 of the second.
        XCTAssertEqual(source.offered, [32 << 10, 32 << 10, 32 << 10, 32 << 10])
    }

    func testBadUTF8ReadInPlaceFailsAtOnce() {
        var body = [UInt8](repeating: 0x61, count: 200_000)
        body[100_000] = 0xFF
        var connection = client()
        XCTAssertEqual(feed(&connection, Array(frame(.text, body)[..<20])), [])
        let source = Source(Array(frame(.text, body)[20...]))
        XCTAssertEqual(inPlace(&connection, source, limit: 64 << 10).1, [])
        // The piece holding 0xFF: the connection fails before the rest arrives.
        XCTAssertEqual(inPlace(&connection, source, limit: 64 << 10).1.map(\.failureCode), [1007])
        XCTAssertFalse(connection.acceptsPayloadInPlace)
        XCTAssertNil(inPlace(&connection, source).0)
    }

    func testNotOfferedForSmallControlMaskedOrCompressedPayloads() {
        var small = client()
        XCTAssertEqual(feed(&small, Array(frame(.text, [UInt8](repeating: 0x61, count: 60_000))[..<10])), [])
        XCTAssertFalse(small.acceptsPayloadInPlace, "under 64 KiB to come")

        var serverSide = server()
        let masked = clientFrame(.binary, [UInt8](repeating: 7, count: 100_000))
        XCTAssertEqual(feed(&serverSide, Array(masked[..<20])), [])
        XCTAssertFalse(serverSide.acceptsPayloadInPlace, "masked payloads are unmasked in the input")

        var compressed = Connection(role: .client, maxMessageSize: 1 << 20, compression: DeflateParameters())
        XCTAssertEqual(feed(&compressed, Array(frame(.binary, [UInt8](repeating: 7, count: 100_000), reservedBits: FrameHeader.rsv1)[..<10])), [])
        XCTAssertFalse(compressed.acceptsPayloadInPlace, "compressed bytes are inflated, not stored")

        var tooBig = client(maxMessageSize: 100_000)
        XCTAssertEqual(feed(&tooBig, Array(frame(.binary, [UInt8](repeating: 7, count: 200_000))[..<20])).map(\.failureCode), [1009])
        XCTAssertFalse(tooBig.acceptsPayloadInPlace)
    }
}
