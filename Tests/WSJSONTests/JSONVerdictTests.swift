import XCTest
@testable import WSJSON

/// The fast path's answer kept with the bytes it was given (an incoming
/// message carries it from the core): `validate(_:verdict:)` takes its word
/// for them and scans only when nothing is known.
final class JSONVerdictTests: XCTestCase {
    private func quickCheck(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { JSONScanner.quickCheck($0.baseAddress, $0.count) }
    }

    func testQuickCheckAnswersValidCompactValidToCompactOrUnknown() {
        XCTAssertEqual(quickCheck(Array(#"{"a": [1, 2]}"#.utf8)), 0)
        XCTAssertEqual(quickCheck(Array("{\n\"a\": 1\n}".utf8)), 1)
        for text in [Array("plain words".utf8), [0x22, 0x61, 0xFF, 0x22], [0x7B, 0xC0, 0xAF, 0x7D], Array(#"{"a":"#.utf8), []] {
            XCTAssertEqual(quickCheck(text), -1, "\(text)")
        }
    }

    func testAKnownVerdictIsTakenForTheBytes() {
        // Broken bytes with a verdict of "valid": the answer comes from the
        // verdict, not from a second scan (the caller vouches it was made on them).
        let broken = Array(#"{"x" [1, 2]}"#.utf8)
        XCTAssertEqual(broken.withUnsafeBytes { JSONScanner.validate($0, verdict: 0) }, .valid(needsCompaction: false))
        XCTAssertEqual(broken.withUnsafeBytes { JSONScanner.validate($0, verdict: 1) }, .valid(needsCompaction: true))
    }

    func testAnUnknownVerdictScans() {
        let broken = Array(#"{"x" [1, 2]}"#.utf8)
        XCTAssertFalse(broken.withUnsafeBytes { JSONScanner.validate($0, verdict: -1) }.isValid)
        let spread = Array("[\n1]".utf8)
        XCTAssertEqual(spread.withUnsafeBytes { JSONScanner.validate($0, verdict: -1) }, .valid(needsCompaction: true))
        XCTAssertEqual(Array("".utf8).withUnsafeBytes { JSONScanner.validate($0, verdict: -1) }.error?.reason, "empty input")
    }
}
