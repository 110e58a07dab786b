import XCTest
@testable import WSCore

final class UTF8ValidatorTests: XCTestCase {
    private func valid(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { UTF8Validator.isValid($0) }
    }

    func testValidText() {
        XCTAssertTrue(valid([]))
        XCTAssertTrue(valid(Array("hello, world")))
        XCTAssertTrue(valid(Array("κόσμε — 日本語 — 😀 — \u{10FFFF}")))
        XCTAssertTrue(valid([0x7F, 0xC2, 0x80, 0xDF, 0xBF, 0xE0, 0xA0, 0x80, 0xED, 0x9F, 0xBF, 0xEE, 0x80, 0x80,
                             0xF0, 0x90, 0x80, 0x80, 0xF4, 0x8F, 0xBF, 0xBF]))
    }

    func testOverlongEncodingsRejected() {
        XCTAssertFalse(valid([0xC0, 0xAF]))              // '/' in 2 bytes
        XCTAssertFalse(valid([0xC1, 0xBF]))
        XCTAssertFalse(valid([0xE0, 0x80, 0xAF]))        // '/' in 3 bytes
        XCTAssertFalse(valid([0xE0, 0x9F, 0xBF]))        // U+07FF in 3 bytes
        XCTAssertFalse(valid([0xF0, 0x80, 0x80, 0xAF]))  // '/' in 4 bytes
        XCTAssertFalse(valid([0xF0, 0x8F, 0xBF, 0xBF]))  // U+FFFF in 4 bytes
    }

    func testSurrogatesRejected() {
        XCTAssertFalse(valid([0xED, 0xA0, 0x80]))        // U+D800
        XCTAssertFalse(valid([0xED, 0xAD, 0xBF]))        // U+DB7F
        XCTAssertFalse(valid([0xED, 0xBF, 0xBF]))        // U+DFFF
        XCTAssertTrue(valid([0xED, 0x9F, 0xBF]))         // U+D7FF is fine
    }

    func testAboveU10FFFFRejected() {
        XCTAssertFalse(valid([0xF4, 0x90, 0x80, 0x80]))  // U+110000
        XCTAssertFalse(valid([0xF5, 0x80, 0x80, 0x80]))
        XCTAssertFalse(valid([0xFF]))
        XCTAssertFalse(valid([0xFE]))
    }

    func testStrayContinuationAndShortSequences() {
        XCTAssertFalse(valid([0x80]))
        XCTAssertFalse(valid(Array("abc") + [0xBF] + Array("def")))
        XCTAssertFalse(valid([0xC3, 0x28]))              // lead then ASCII
        XCTAssertFalse(valid([0xE2, 0x82, 0x28]))
    }

    func testTruncatedSequenceAtEndIsNotAtBoundary() {
        for bytes: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], Array("ok") + [0xF0]] {
            var validator = UTF8Validator()
            let ok = bytes.withUnsafeBytes { validator.feed($0) }
            XCTAssertTrue(ok, "a prefix of valid UTF-8 is not an error yet: \(bytes)")
            XCTAssertFalse(validator.isAtBoundary, "\(bytes) ends inside a character")
            XCTAssertFalse(valid(bytes))
        }
    }

    func testSequenceSplitAcrossFeeds() {
        let emoji: [UInt8] = [0xF0, 0x9F, 0x98, 0x80]  // U+1F600
        for split in 1..<4 {
            var validator = UTF8Validator()
            XCTAssertTrue(Array(emoji[..<split]).withUnsafeBytes { validator.feed($0) })
            XCTAssertFalse(validator.isAtBoundary)
            XCTAssertTrue(Array(emoji[split...]).withUnsafeBytes { validator.feed($0) })
            XCTAssertTrue(validator.isAtBoundary, "split \(split)")
        }
    }

    func testFailureIsImmediateAndSticky() {
        var validator = UTF8Validator()
        // The surrogate is detectable at its second byte, before the third arrives.
        XCTAssertFalse([UInt8]([0xED, 0xA0]).withUnsafeBytes { validator.feed($0) })
        XCTAssertFalse(Array("fine").withUnsafeBytes { validator.feed($0) })
        XCTAssertFalse(validator.isAtBoundary)
        validator.reset()
        XCTAssertTrue(Array("fine").withUnsafeBytes { validator.feed($0) })
        XCTAssertTrue(validator.isAtBoundary)
    }

    func testInvalidByteFoundAtEveryPositionOfLongASCII() {
        // Exercises the 64-, 32- and 8-byte fast paths and the byte-wise tail.
        for position in [0, 7, 8, 15, 16, 31, 32, 33, 47, 48, 63, 64, 65, 99, 127, 128, 190] {
            var bytes = [UInt8](repeating: 0x61, count: 200)
            bytes[position] = 0xFF
            XCTAssertFalse(valid(bytes), "invalid byte at \(position)")
            bytes[position] = 0x7F
            XCTAssertTrue(valid(bytes))
        }
    }

    func testSequencesAtEveryPositionAgreeWithTheStandardLibrary() {
        // The ASCII steps hand over to the sequence decoder wherever a
        // non-ASCII byte falls: valid, cut short, overlong or surrogate
        // sequences at every offset give the standard library's verdict.
        let sequences: [[UInt8]] = [[0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xC3],
                                    [0xE6, 0x97], [0xF0, 0x9F, 0x98], [0xC0, 0xAF], [0xED, 0xA0, 0x80],
                                    [0xF4, 0x90, 0x80, 0x80], [0x80], [0xFF]]
        for position in 0 ..< 140 {
            for sequence in sequences {
                var bytes = [UInt8](repeating: 0x61, count: 140)
                bytes.replaceSubrange(position ..< min(position + sequence.count, bytes.count), with: sequence)
                let expected = String(validating: bytes, as: UTF8.self) != nil
                XCTAssertEqual(valid(bytes), expected, "\(sequence) at \(position)")
            }
        }
    }

    func testMultiMegabyteMixedText() {
        let chunk = Array("ascii text then ünïcödé 日本 😀 and more ascii ".utf8)
        var bytes: [UInt8] = []
        while bytes.count < 4 << 20 { bytes += chunk }
        XCTAssertTrue(valid(bytes))
        bytes[bytes.count - 3] = 0xC0
        XCTAssertFalse(valid(bytes))
    }
}
