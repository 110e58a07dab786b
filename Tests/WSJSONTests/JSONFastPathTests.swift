import XCTest
@testable import WSJSON

/// The validator's fast path against the full scan: on every input the fast
/// path either says "valid" exactly when the full scan does (with the same
/// compaction verdict), or passes the input on; it may pass on only what the
/// full scan rejects or what nests deeper than 64 levels.
///
/// Every check runs both forms of the vector steps: this machine's
/// (`JSONFastPath.check`) and the portable one (`checkPortable`), which
/// Apple Silicon and arm64 Linux run; they must give the same answer.
final class JSONFastPathTests: XCTestCase {

    /// Fast path and full scan agree on `bytes`.
    /// `deep`: the input nests deeper than the fast path goes, so it may pass it on.
    private func assertAgree(_ bytes: [UInt8], deep: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        let full = bytes.withUnsafeBytes { JSONScanner.validateFully($0) }
        let (fast, portable) = bytes.withUnsafeBytes { buffer -> (Int, Int) in
            guard let base = buffer.baseAddress, buffer.count > 0 else { return (-1, -1) }
            let p = base.assumingMemoryBound(to: UInt8.self)
            return (JSONFastPath.check(p, buffer.count), JSONFastPath.checkPortable(p, buffer.count))
        }
        let text = String(decoding: bytes, as: UTF8.self).debugDescription
        XCTAssertEqual(portable, fast, "the portable steps disagree on \(text)", file: file, line: line)
        switch full {
        case .valid where deep && fast == -1:
            break
        case .valid(let needsCompaction):
            XCTAssertEqual(fast, needsCompaction ? 1 : 0, "fast path on valid \(text)", file: file, line: line)
        case .invalid, .incomplete:
            XCTAssertEqual(fast, -1, "fast path accepted \(full) \(text)", file: file, line: line)
        }
    }

    private let seeds: [String] = [
        #"{"type":"chat","seq":1,"pad":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#,
        #"{"type":"chat","seq":-12.5e+3,"ok":[true,false,null],"text":"h\u00e9llo \"w\" \\ 日本 😀"}"#,
        " {\r\n \"event\": {\"kind\": \"x\", \"items\": [ {}, [], \"\\uD83D\\uDE00\", 0 ]}, \"n\": 0.5E-2 }\n",
        "[1, 2.0, -0, 1e9, \"\", {\"\": []}, [[[]]], false]",
        "\"a string long enough to take the sixteen byte steps, with é and 日本 inside\"",
        "true", "null", "-0.0e+00", "[]", "{}",
    ]

    func testSeedsAndEveryPrefix() {
        for seed in seeds {
            let bytes = Array(seed.utf8)
            for end in 0 ... bytes.count { assertAgree(Array(bytes[..<end])) }
        }
    }

    func testRandomMutations() {
        let alphabet = Array("{}[]\",:\\ \n\r\tu0123456789abcdefABCDEF.-+tfnlrsex/".utf8)
            + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC2, 0xC3, 0xE0, 0xED, 0xE2, 0xF0, 0xF4, 0xF5, 0xFF]
        var random = SeededGenerator(state: 7)
        for round in 0 ..< 20_000 {
            var bytes = Array(seeds[round % seeds.count].utf8)
            for _ in 0 ..< 1 + random.next(3) {
                let position = random.next(bytes.count + 1)
                switch random.next(3) {
                case 0 where position < bytes.count: bytes[position] = alphabet[random.next(alphabet.count)]
                case 1 where position < bytes.count: bytes.remove(at: position)
                default: bytes.insert(alphabet[random.next(alphabet.count)], at: position)
                }
            }
            assertAgree(bytes)
        }
    }

    func testStopBytesAtEveryLaneOfTheVectorSteps() {
        let stops: [[UInt8]] = [[0x22], [0x5C, 0x6E], [0x5C, 0x75, 0x30, 0x30, 0x65, 0x39], [0x01], [0x1F],
                                [0xC3, 0xA9], [0xE6, 0x97, 0xA5], [0xF0, 0x9F, 0x98, 0x80], [0xC3], [0xED, 0xA0, 0x80],
                                [0x80], [0xFF], [0x5C, 0x78], [0x5C, 0x75, 0x31, 0x32]]
        // Past the first 16 bytes, 64-byte steps: a stop in each lane of two of them.
        for before in 0 ..< 150 {
            for stop in stops {
                for after in [0, 1, 15, 16, 17] {
                    let body = Array(repeating: UInt8(ascii: "a"), count: before) + stop
                        + Array(repeating: UInt8(ascii: "b"), count: after)
                    assertAgree([0x22] + body + [0x22])
                    assertAgree([0x22] + body)
                    assertAgree(Array(#"{"k":""#.utf8) + body + Array(#"","n":1}"#.utf8))
                }
            }
        }
    }

    func testNestingAroundTheFastPathLimit() {
        for depth in [1, 63, 64, 65, 200] {
            let open = String(repeating: "[", count: depth)
            let close = String(repeating: "]", count: depth)
            let deep = depth > 64
            assertAgree(Array((open + close).utf8), deep: deep)
            assertAgree(Array((open + "1" + close).utf8), deep: deep)
            assertAgree(Array((open + close + "]").utf8), deep: deep)
            assertAgree(Array(String(repeating: "{\"a\":", count: depth).utf8) + Array("1".utf8)
                        + Array(String(repeating: "}", count: depth).utf8), deep: deep)
            // Deeper than the fast path goes, the full scan still accepts it.
            XCTAssertTrue(JSONTest.validate(open + close).isValid)
        }
    }

    /// Random valid texts, as tokens, each also with one token replaced,
    /// dropped or added: a comma for a colon, a key without its value, a
    /// closer of the wrong kind, at every length around the blocks.
    func testRandomTextsAndOneTokenMutations() {
        let scalars = [#""k""#, "1", "-2.5", "true", "false", "null", "0", "1e5", #""""#,
                       #""a string that is long enough to cross a block boundary now and then""#]
        let extras = ["{", "}", "[", "]", ",", ":"] + scalars
        var random = SeededGenerator(state: 11)
        func value(_ depth: Int) -> [String] {
            switch depth < 4 ? random.next(4) : 0 {
            case 1:
                let items = (0 ..< random.next(4)).map { _ in value(depth + 1) }
                return ["["] + items.joined(separator: [","]) + ["]"]
            case 2:
                let members = (0 ..< random.next(4)).map { _ in [#""key""#, ":"] + value(depth + 1) }
                return ["{"] + members.joined(separator: [","]) + ["}"]
            default:
                return [scalars[random.next(scalars.count)]]
            }
        }
        func text(_ tokens: [String]) -> [UInt8] {
            let blanks = ["", "", "", " ", "\n", "\t "]
            return Array(tokens.map { $0 + blanks[random.next(blanks.count)] }.joined().utf8)
        }
        for _ in 0 ..< 5_000 {
            var tokens = value(0)
            assertAgree(text(tokens))
            let position = random.next(tokens.count)
            switch random.next(3) {
            case 0: tokens[position] = extras[random.next(extras.count)]
            case 1: tokens.remove(at: position)
            default: tokens.insert(extras[random.next(extras.count)], at: position)
            }
            assertAgree(text(tokens))
        }
    }

    func testNumbersAndLiterals() {
        for text in ["0", "-", "-0", "01", "-01", "1.", "1.e5", "1e", "1e+", "1E-7", "0.5", ".5", "+1", "1x",
                     "tru", "true", "truee", "fals", "false", "falsy", "nul", "null", "nulll", "[1 2]", "[1,]",
                     "{\"a\" 1}", "{\"a\":}", "{\"a\",\"b\"}", "{\"a\":1:2}", "[\"a\":1]", "{\"a\"}", "{1:2}",
                     "{\"a\":1,\"b\"}", "{\"a\"::1}", "[}", "{]", "[1}", "{\"a\":1]", "\"a\"\"b\"", "[\"a\"\"b\"]", "{,}", "{\"a\":1,}", "[,1]", "1 1", " ", "\n", "\u{0B}1"] {
            assertAgree(Array(text.utf8))
        }
    }

    /// Runs of digits of every length up to 20 in each part of a number
    /// (integer, fraction, exponent), followed by every kind of byte that
    /// can end or break them, at every offset around the 8-byte steps.
    func testDigitRunsAcrossTheEightByteSteps() {
        let endings: [[UInt8]] = [[], [0x2C], [0x7D], [0x5D], [0x20], [0x2E], [0x65], [0x45], [0x2F], [0x3A],
                                  [0x30 - 1], [0x39 + 1], [0x80], [0xB0], [0xB9], [0xC3, 0xA9], [0x00]]
        for length in 1 ... 20 {
            let run = (0 ..< length).map { UInt8(ascii: "1") + UInt8($0 % 9) }
            for part in 0 ..< 3 {
                let number: [UInt8] = part == 0 ? run : part == 1 ? Array("7.".utf8) + run : Array("7e-".utf8) + run
                for ending in endings {
                    for padding in 0 ..< 9 {
                        let pad = Array(repeating: UInt8(ascii: " "), count: padding)
                        assertAgree(pad + number + ending)
                        assertAgree(Array(#"{"seq":"#.utf8) + number + ending + Array(#","pad":"x"}"#.utf8))
                        assertAgree([0x5B] + pad + number + ending + [0x5D])
                    }
                }
            }
        }
    }
}
