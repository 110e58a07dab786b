import XCTest
@testable import WSMessages

/// `EnvelopeDecoder.mayBeEnvelope` (blanks, `{`, blanks, `"$`) has a shortcut
/// for lines that start `{"`; every string of up to six bytes over the
/// bytes that matter gets the same answer as the grammar written plainly.
final class EnvelopePrefixTests: XCTestCase {
    private static func reference(_ bytes: [UInt8]) -> Bool {
        let blanks: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var rest = bytes.drop(while: blanks.contains)
        guard rest.first == UInt8(ascii: "{") else { return false }
        rest = rest.dropFirst().drop(while: blanks.contains)
        return rest.starts(with: Array(#""$"#.utf8))
    }

    func testEveryShortPrefixAgreesWithTheGrammar() {
        let alphabet = Array(#"{"$ x"#.utf8) + [0x0A, 0x09]
        var checked = 0
        var trues = 0
        func visit(_ bytes: [UInt8]) {
            let answer = bytes.withUnsafeBytes { EnvelopeDecoder.mayBeEnvelope($0) }
            XCTAssertEqual(answer, Self.reference(bytes), "\(bytes)")
            checked += 1
            if answer { trues += 1 }
            guard bytes.count < 6 else { return }
            for byte in alphabet { visit(bytes + [byte]) }
        }
        visit([])
        XCTAssertGreaterThan(trues, 100)
        XCTAssertGreaterThan(checked, 100_000)
    }
}
