import XCTest
@testable import WSCore
@testable import WSJSON
@testable import WSBridge
@testable import WSMessages
#if canImport(Glibc)
import Glibc
#endif

/// The upload path's fast steps against the slow ones, on random inputs
/// (issue 36): stdin read in chunks of every size (1 byte, random, a line
/// cut at every place), each line checked as soon as its end is found
/// (`LineSplitter.forEachLine(checkingJSON:)`), the translator trusting that
/// verdict, and frames made by the connection must give the same messages,
/// the same rejections (line, column, reason) and byte for byte the same
/// frames as the whole input cut at each '\n', each line checked by the
/// translator, and frames masked byte by byte.
final class UploadPathTests: XCTestCase {
    /// What the translator did with each line, in order.
    private enum Step: Equatable {
        case text([UInt8]), binary([UInt8]), rejected(Int, Int, String), other
    }

    private struct Result {
        var steps: [Step] = []
        var frames: [UInt8] = []
    }

    /// The fast path: the input through a pipe, one read per chunk.
    private func fast(_ input: [UInt8], chunks: [Int]) -> Result {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        var splitter = LineSplitter(separator: 10)
        var translator = InputTranslator(format: .json, lenient: false, maxPendingBytes: 1 << 20)
        var connection = Connection(role: .client, maxMessageSize: 1 << 30, entropy: EntropyPool(fixed: Self.keyBytes))
        var result = Result()
        func record(_ outcome: InputTranslator.Outcome) {
            outcome.forEachRejection { result.steps.append(.rejected($0.line, $0.column, $0.reason)) }
        }
        func send(_ message: OutgoingMessage) {
            switch message {
            case .text(let b): result.steps.append(.text(Array(b))); connection.sendText(b)
            case .binary(let b): result.steps.append(.binary(Array(b))); connection.sendBinary(b)
            }
        }
        var offset = 0
        for size in chunks where offset < input.count {
            let piece = Array(input[offset ..< min(input.count, offset + size)])
            offset += piece.count
            _ = piece.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }
            XCTAssertEqual(splitter.read(from: fds[0], chunk: 256 << 10), .bytes(piece.count))
            splitter.forEachLine(checkingJSON: true) { line, verdict in
                if verdict >= 0 {
                    // The quick check vouches only for what the full check says is valid.
                    XCTAssertEqual(JSONScanner.validateFully(line), .valid(needsCompaction: verdict == 1))
                }
                record(translator.translate(line, verdict: verdict, send))
                return true
            }
        }
        XCTAssertEqual(offset, input.count, "the chunks cover the input")
        close(fds[1])
        XCTAssertEqual(splitter.read(from: fds[0], chunk: 4096), .eof)
        splitter.finish { record(translator.translate($0, send)) }
        if let outcome = translator.finish(send) { record(outcome) }
        result.frames = connection.output.readableArray
        return result
    }

    /// The slow path: the whole input cut at each '\n' (a CR before it
    /// dropped), every line checked in full, frames encoded byte by byte.
    private func slow(_ input: [UInt8]) -> Result {
        var translator = InputTranslator(format: .json, lenient: false, maxPendingBytes: 1 << 20)
        var entropy = EntropyPool(fixed: Self.keyBytes)
        var result = Result()
        func record(_ outcome: InputTranslator.Outcome) {
            outcome.forEachRejection { result.steps.append(.rejected($0.line, $0.column, $0.reason)) }
        }
        func send(_ message: OutgoingMessage) {
            switch message {
            case .text(let b):
                result.steps.append(.text(Array(b)))
                result.frames += Self.frame(opcode: 1, Array(b), key: entropy.fill(4))
            case .binary(let b):
                result.steps.append(.binary(Array(b)))
                result.frames += Self.frame(opcode: 2, Array(b), key: entropy.fill(4))
            }
        }
        var lines = input.split(separator: 10, omittingEmptySubsequences: false).map(Array.init)
        let last = lines.removeLast()   // after the last '\n': a line only if not empty
        for var line in lines {
            if line.last == 13 { line.removeLast() }
            line.withUnsafeBytes { record(translator.translate($0, send)) }
        }
        if !last.isEmpty {
            var line = last
            if line.last == 13 { line.removeLast() }
            line.withUnsafeBytes { record(translator.translate($0, send)) }
        }
        if let outcome = translator.finish(send) { record(outcome) }
        return result
    }

    private static let keyBytes: [UInt8] = [0x37, 0xFA, 0x21, 0x3D, 0x01, 0x80, 0xFF, 0x00, 0x5A]

    /// RFC 6455 §5.2 by hand: FIN, the opcode, the mask bit and length, the
    /// key, the payload XORed with key byte (i mod 4).
    private static func frame(opcode: UInt8, _ payload: [UInt8], key: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n <= 0xFFFF {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((n >> shift) & 0xFF)) }
        }
        out += key
        for (i, byte) in payload.enumerated() { out.append(byte ^ key[i % 4]) }
        return out
    }

    // MARK: random inputs

    private struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
    }

    private func string(_ r: inout Random) -> String {
        var s = "\""
        for _ in 0 ..< r.below(40) {
            s += r.pick(["a", "Z", "0", " ", "é", "日本", "😀", "\\n", "\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude00", "/", "{", "]", ":"])
        }
        return s + "\""
    }

    private func value(_ r: inout Random, depth: Int) -> String {
        switch r.below(depth > 3 ? 4 : 7) {
        case 0: return string(&r)
        case 1: return r.pick(["0", "-1", "3.25", "1e9", "-0.5E-3", "12345678901234567890"])
        case 2: return r.pick(["true", "false", "null"])
        case 3: return String(repeating: "x", count: 0) + string(&r)
        case 4:
            let members = (0 ..< r.below(4)).map { _ in string(&r) + ":" + value(&r, depth: depth + 1) }
            return "{" + members.joined(separator: ",") + "}"
        default:
            return "[" + (0 ..< r.below(4)).map { _ in value(&r, depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    /// One input line (or several, for a value spread over lines), with its terminator.
    private func line(_ r: inout Random) -> String {
        switch r.below(20) {
        case 0: return "\n"                                             // empty
        case 1: return "hello world\n"                                  // not JSON
        case 2: return "{\"a\":}\n"                                     // invalid
        case 3: return value(&r, depth: 0) + "\r\n"                     // CRLF
        case 4: return " " + value(&r, depth: 0) + " \t\n"              // blanks around it
        case 5: return "{\n  \"k\": " + value(&r, depth: 2) + ",\n  \"n\": [1,\n 2]\n}\n"   // pretty-printed
        case 6: return "{\"$text\":" + string(&r) + "}\n"               // envelopes
        case 7: return "{\"$binary\":\"" + r.pick(["AAE=", "aGVsbG8=", "!!"]) + "\"}\n"
        case 8: return "{\"a\":\"tab\there\"}\n"                        // a raw control byte in a string
        case 9: return "{\"open\":[1,2\n"                               // never finished (a stray line)
        case 10: return "[" + String(repeating: "1,", count: 200 + r.below(40_000)) + "1]\n"   // long
        case 11: return "\"\u{FF}\"\n"                                  // fine UTF-8 (ÿ)
        default: return value(&r, depth: 0) + "\n"
        }
    }

    private func input(_ r: inout Random, lines count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for _ in 0 ..< count { bytes += Array(line(&r).utf8) }
        // Invalid UTF-8 inside a string, now and then; an unterminated last line.
        if r.below(3) == 0 { bytes += [0x22, 0xC3, 0x28, 0x22, 10] }
        if r.below(2) == 0 { bytes += Array(value(&r, depth: 0).utf8) }
        return bytes
    }

    private func assertSame(_ input: [UInt8], chunks: [Int], _ message: String, file: StaticString = #filePath,
                            line: UInt = #line) {
        let expected = slow(input)
        let got = fast(input, chunks: chunks)
        XCTAssertEqual(got.steps, expected.steps, message, file: file, line: line)
        XCTAssertEqual(got.frames, expected.frames, message + ": frames", file: file, line: line)
    }

    // MARK: tests

    func testRandomInputsInRandomChunks() {
        var r = Random(state: 36)
        for round in 0 ..< 60 {
            let bytes = input(&r, lines: 1 + r.below(40))
            var chunks: [Int] = []
            var covered = 0
            while covered < bytes.count {
                let size = r.pick([1, 2, 7, 64, 100, 101, 4096, 1 + r.below(60_000)])
                chunks.append(size)
                covered += size
            }
            assertSame(bytes, chunks: chunks, "round \(round)")
        }
    }

    func testOneByteReads() {
        var r = Random(state: 7)
        for round in 0 ..< 10 {
            let bytes = input(&r, lines: 1 + r.below(12)).prefix(6000)
            assertSame(Array(bytes), chunks: Array(repeating: 1, count: bytes.count), "round \(round)")
        }
    }

    /// Every place a read can end: inside a line, right before its '\n',
    /// between a CR and its LF, at a line's start.
    func testReadsEndingAtEveryOffset() {
        let text = "{\"type\":\"chat\",\"seq\":1,\"pad\":\"xx\"}\n[1, 2]\r\n{\"a\":\n1}\nnope\n\"s\"\n\n{\"$text\":\"t\"}\n7"
        let bytes = Array(text.utf8)
        for cut in 1 ..< bytes.count {
            assertSame(bytes, chunks: [cut, bytes.count], "cut at \(cut)")
        }
    }

    /// Chat-sized lines (the bench's) past the splitter's buffer, whose
    /// edges then fall inside lines.
    func testManyShortLinesAcrossTheBuffer() {
        var text = ""
        for seq in 0 ..< 6000 { text += "{\"type\":\"chat\",\"seq\":\(seq),\"pad\":\"" + String(repeating: "x", count: 60) + "\"}\n" }
        let bytes = Array(text.utf8)
        assertSame(bytes, chunks: Array(repeating: 60_001, count: bytes.count / 60_001 + 1), "60,001-byte reads")
    }
}
