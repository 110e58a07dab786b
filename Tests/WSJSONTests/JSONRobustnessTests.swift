import XCTest
@testable import WSJSON

/// Random damage to valid documents: the scanner never crashes, its verdicts
/// are consistent with compaction, and every error points inside the input.
final class JSONRobustnessTests: XCTestCase {

    private let seedDocument = Array("""
    {"type":"chat","seq":-12.5e+3,"ok":[true,false,null],"text":"h\\u00e9llo \\"w\\" \\\\ 日本 😀",
     "event": {"kind": "x", "items": [ {}, [], "\\uD83D\\uDE00", 0 ]}, "pad": "abcdefghijklmnopqrstuvwxyz0123456789"}
    """.utf8)

    func testRandomMutations() {
        XCTAssertEqual(JSONTest.validate(bytes: seedDocument), .valid(needsCompaction: true))
        let alphabet = Array("{}[]\",:\\ \n\tu0123456789eE.-+tfnalrsx".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xF0, 0xFF]
        var random = SeededGenerator(state: 42)
        var validCount = 0
        for _ in 0 ..< 3000 {
            var bytes = seedDocument
            for _ in 0 ..< 1 + random.next(3) {
                let position = random.next(bytes.count)
                switch random.next(3) {
                case 0: bytes[position] = alphabet[random.next(alphabet.count)]
                case 1: bytes.remove(at: position)
                default: bytes.insert(alphabet[random.next(alphabet.count)], at: position)
                }
            }
            if random.next(4) == 0 { bytes.removeLast(random.next(bytes.count)) }

            let result = JSONTest.validate(bytes: bytes)
            // The known-valid entry points must stay memory-safe on anything.
            bytes.withUnsafeBytes { buffer in
                var scratch: [UInt8] = []
                JSONScanner.compact(buffer, into: &scratch)
                _ = JSONScanner.valueRange(atPath: [Array("event".utf8), Array("kind".utf8)], in: buffer)
                _ = JSONScanner.soleStringMember(buffer)
                JSONScanner.appendUnescaped(stringToken: buffer, into: &scratch)
            }
            switch result {
            case .valid:
                validCount += 1
                var compacted: [UInt8] = []
                bytes.withUnsafeBytes { JSONScanner.compact($0, into: &compacted) }
                XCTAssertEqual(JSONTest.validate(bytes: compacted), .valid(needsCompaction: false))
            case .incomplete(let error):
                XCTAssertEqual(error.offset, bytes.count)
            case .invalid(let error):
                XCTAssertTrue(error.offset >= 0 && error.offset <= bytes.count)
                XCTAssertTrue(error.line >= 1 && error.column >= 1)
                XCTAssertFalse(error.reason.isEmpty)
            }
        }
        // Some mutations (e.g. inside a string) keep the document valid.
        XCTAssertGreaterThan(validCount, 10)
    }

    func testCompactionPreservesKeyPathValues() {
        var compacted: [UInt8] = []
        seedDocument.withUnsafeBytes { JSONScanner.compact($0, into: &compacted) }
        for path in [["type"], ["seq"], ["ok"], ["text"], ["event", "kind"], ["event", "items"], ["pad"]] {
            let before = JSONTest.value(at: path, in: String(decoding: seedDocument, as: UTF8.self))
            let after = JSONTest.value(at: path, in: String(decoding: compacted, as: UTF8.self))
            XCTAssertNotNil(before, "\(path)")
            XCTAssertEqual(before.map(JSONTest.compact), after, "\(path)")
        }
    }
}
