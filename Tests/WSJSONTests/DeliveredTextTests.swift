import XCTest
@testable import WSJSON

/// The verdict made once before delivery is the answer for exactly the
/// delivered bytes, and only until the delivery is over.
final class DeliveredTextTests: XCTestCase {
    override func tearDown() {
        DeliveredText.forget()
    }

    private func validate(_ bytes: [UInt8]) -> JSONValidation {
        bytes.withUnsafeBytes { JSONScanner.validate($0) }
    }

    func testTheVerdictIsKeptForTheseBytesUntilForgotten() {
        var bytes = Array(#"{"a": [1, 2]}"#.utf8)
        XCTAssertTrue(bytes.withUnsafeBytes { DeliveredText.check($0.baseAddress, $0.count) })
        // The same bytes, broken in place: still "valid", which shows the
        // answer came from the verdict, not from a second scan...
        bytes.withUnsafeMutableBytes { $0[1] = UInt8(ascii: "x") }
        XCTAssertEqual(validate(bytes), .valid(needsCompaction: false))
        // ...and why the channel forgets it when the delivery is over.
        DeliveredText.forget()
        XCTAssertFalse(validate(bytes).isValid)
    }

    func testOtherBytesAreScannedAsUsual() {
        let delivered = Array("{\n\"a\": 1\n}".utf8)
        XCTAssertTrue(delivered.withUnsafeBytes { DeliveredText.check($0.baseAddress, $0.count) })
        XCTAssertEqual(validate(delivered), .valid(needsCompaction: true))
        XCTAssertFalse(validate(Array(#"{"a":"#.utf8)).isValid)
        XCTAssertFalse(validate(Array(delivered.dropLast())).isValid, "a prefix of the delivered bytes")
    }

    func testTextThatIsNotJSONIsLeftToTheUTF8Pass() {
        for text in [Array("plain words".utf8), [0x22, 0x61, 0xFF, 0x22], [0x7B, 0xC0, 0xAF, 0x7D], []] {
            XCTAssertFalse(text.withUnsafeBytes { DeliveredText.check($0.baseAddress, $0.count) }, "\(text)")
            if !text.isEmpty { XCTAssertFalse(validate(text).isValid) }
        }
    }
}
