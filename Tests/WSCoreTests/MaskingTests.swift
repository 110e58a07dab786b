import XCTest
@testable import WSCore

final class MaskingTests: XCTestCase {
    /// Byte-at-a-time reference: octet i XOR key octet (i MOD 4) (RFC 6455 §5.3).
    private func reference(_ bytes: [UInt8], key: [UInt8], offset: Int = 0) -> [UInt8] {
        bytes.enumerated().map { $0.element ^ key[($0.offset + offset) % 4] }
    }

    func testRFCExampleMask() {
        // §5.7: "Hello" with key 37 fa 21 3d -> 7f 9f 4d 51 58.
        var bytes = Array("Hello".utf8)
        bytes.withUnsafeMutableBytes { Masking.apply(key: 0x37FA_213D, offset: 0, inPlace: $0) }
        XCTAssertEqual(bytes, hex("7f 9f 4d 51 58"))
    }

    func testMatchesReferenceForAllLengthsAndOffsets() {
        let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        let data = (0..<200).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        for count in Array(0...72) + [100, 199, 200] {
            for offset in 0..<4 {
                var bytes = Array(data[..<count])
                bytes.withUnsafeMutableBytes { Masking.apply(key: 0x1234_5678, offset: offset, inPlace: $0) }
                XCTAssertEqual(bytes, reference(Array(data[..<count]), key: key, offset: offset),
                               "count \(count) offset \(offset)")
            }
        }
    }

    func testRoundTripAndPiecewiseEqualsWhole() {
        let original = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        var whole = original
        whole.withUnsafeMutableBytes { Masking.apply(key: 0xDEAD_BEEF, offset: 0, inPlace: $0) }
        XCTAssertNotEqual(whole, original)
        // Masking in uneven pieces with running offsets gives the same bytes.
        var pieces = original
        pieces.withUnsafeMutableBytes { buffer in
            var start = 0
            for size in [1, 6, 13, 100, 880] {
                let piece = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<start + size])
                Masking.apply(key: 0xDEAD_BEEF, offset: start, inPlace: piece)
                start += size
            }
        }
        XCTAssertEqual(pieces, whole)
        whole.withUnsafeMutableBytes { Masking.apply(key: 0xDEAD_BEEF, offset: 0, inPlace: $0) }
        XCTAssertEqual(whole, original)
    }

    func testCopyingVariantLeavesSourceIntact() {
        let source = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var target = [UInt8](repeating: 0, count: source.count)
        source.withUnsafeBytes { s in
            target.withUnsafeMutableBytes { t in
                Masking.apply(key: 0x0102_0304, offset: 2, source: s.baseAddress!, destination: t.baseAddress!,
                              count: s.count)
            }
        }
        XCTAssertEqual(source, Array("abcdefghijklmnopqrstuvwxyz".utf8))
        XCTAssertEqual(target, reference(source, key: [1, 2, 3, 4], offset: 2))
    }
}
