import XCTest
@testable import WSCore

/// `Connection.receive` takes a whole unfragmented data frame in one step
/// (`FrameDecoder.nextWholeDataFrame`) when it is entirely in the input.
/// Fed one byte per call, no frame is ever whole, so every frame goes the
/// frame-by-frame way: that is the reference the one-step path is compared
/// with, on streams of random frames, valid and not.
final class WholeFrameFastPathTests: XCTestCase {
    /// Deterministic: the same streams on every run.
    private struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    private static let lengths = [0, 1, 2, 7, 100, 125, 126, 127, 200, 1000]

    /// One frame of the kinds the one-step path takes and of those it must leave to `next`.
    private func randomFrame(_ rng: inout SplitMix, masked: Bool) -> [UInt8] {
        let length = Self.lengths.randomElement(using: &rng)!
        var payload = (0..<length).map { _ in UInt8.random(in: 0x20...0x7E, using: &rng) }
        let key: UInt32? = masked ? UInt32.random(in: 0...UInt32.max, using: &rng) : nil
        switch Int.random(in: 0..<16, using: &rng) {
        case 0 where length > 0:
            payload[Int.random(in: 0..<length, using: &rng)] = 0xFF   // invalid UTF-8
            return frame(.text, payload, maskKey: key)
        case 1 where length > 3:
            payload.replaceSubrange(0..<2, with: [0xC3, 0xA9])   // valid: é
            payload[length - 1] = 0xE2   // truncated sequence at the end
            return frame(.text, payload, maskKey: key)
        case 2:
            return frame(.text, payload, fin: false, maskKey: key)
        case 3:
            return frame(.continuation, payload, maskKey: key)
        case 4:
            return frame(.ping, Array(payload.prefix(125)), maskKey: key)
        case 5:
            return frame(.pong, Array(payload.prefix(125)), maskKey: key)
        case 6:
            // The other direction's masking.
            return frame(.binary, payload, maskKey: masked ? nil : 0x1234_5678)
        case 7:
            return frame(.text, payload, maskKey: key, reservedBits: 0x40)
        case 8 where length < 126:
            // A 16-bit length for a length that fits in 7 bits (non-minimal).
            var bytes = frame(.binary, payload, maskKey: key)
            bytes[1] = (bytes[1] & 0x80) | 126
            bytes.insert(contentsOf: [0, UInt8(length)], at: 2)
            return bytes
        case 9, 10, 11:
            return frame(.binary, payload.map { $0 ^ 0x80 }, maskKey: key)
        default:
            return frame(.text, payload, maskKey: key)
        }
    }

    private func compare(role: Role, maxMessageSize: Int, seed: UInt64, frames count: Int) {
        var rng = SplitMix(state: seed)
        var stream: [UInt8] = []
        for _ in 0..<count { stream += randomFrame(&rng, masked: role == .server) }
        func make() -> Connection {
            Connection(role: role, maxMessageSize: maxMessageSize, entropy: EntropyPool(fixed: [1, 2, 3, 4]))
        }
        var reference = make(), whole = make(), split = make()
        let expected = feedByteByByte(&reference, stream)
        var sizes: [Int] = []
        var left = stream.count
        while left > 0 {
            let size = min(left, Int.random(in: 1...3000, using: &rng))
            sizes.append(size)
            left -= size
        }
        XCTAssertEqual(feed(&whole, stream), expected, "seed \(seed), one piece")
        XCTAssertEqual(feed(&split, stream, splitAt: sizes.dropLast()), expected, "seed \(seed), splits \(sizes)")
        XCTAssertEqual(whole.output.readableArray, reference.output.readableArray, "seed \(seed)")
        XCTAssertEqual(split.output.readableArray, reference.output.readableArray, "seed \(seed)")
        XCTAssertEqual(whole.state, reference.state, "seed \(seed)")
        XCTAssertEqual(whole.hasPendingPong, reference.hasPendingPong, "seed \(seed)")
    }

    func testClientStreamsGiveTheSameEventsWholeAndByteByByte() {
        for seed in 0..<60 as Range<UInt64> {
            compare(role: .client, maxMessageSize: 1 << 20, seed: seed, frames: 1 + Int(seed % 7))
        }
    }

    func testServerStreamsGiveTheSameEventsWholeAndByteByByte() {
        for seed in 100..<160 as Range<UInt64> {
            compare(role: .server, maxMessageSize: 1 << 20, seed: seed, frames: 1 + Int(seed % 7))
        }
    }

    func testSizeLimitIsTheSameWholeAndByteByByte() {
        for seed in 200..<240 as Range<UInt64> {
            compare(role: .client, maxMessageSize: 126, seed: seed, frames: 4)
        }
    }

    /// The largest 16-bit length and the first 64-bit one, against pieces
    /// smaller than a frame (never whole in one input, so frame by frame).
    func testLargeFramesGiveTheSameEventsWholeAndInPieces() {
        var invalid = [UInt8](repeating: 0x61, count: 65_535)
        invalid[40_000] = 0xC0
        let stream = frame(.binary, [UInt8](repeating: 1, count: 65_535)) + frame(.text, [UInt8](repeating: 0x62, count: 65_536))
            + frame(.text, [UInt8](repeating: 0x63, count: 65_535)) + frame(.text, invalid)
        var reference = client(), whole = client()
        let expected = feed(&reference, stream, splitAt: Array(repeating: 1000, count: stream.count / 1000))
        XCTAssertEqual(expected.count, 4)
        XCTAssertEqual(expected.last?.failureCode, 1007)
        XCTAssertEqual(feed(&whole, stream), expected)
        XCTAssertEqual(whole.output.readableArray, reference.output.readableArray)
    }

    func testValidFramesAllGoTheOneStepWay() {
        var decoder = FrameDecoder(role: .client)
        var bytes = frame(.text, "Hello") + frame(.binary, [UInt8](repeating: 7, count: 300)) + frame(.ping, "p")
        bytes.withUnsafeMutableBytes { buffer in
            var input = buffer
            let first = decoder.nextWholeDataFrame(&input)
            XCTAssertEqual(first?.opcode, .text)
            XCTAssertEqual(first.map { Array($0.payload) }, Array("Hello".utf8))
            let second = decoder.nextWholeDataFrame(&input)
            XCTAssertEqual(second?.opcode, .binary)
            XCTAssertEqual(second?.payload.count, 300)
            XCTAssertEqual(decoder.header.payloadLength, 300)
            let before = input.count
            XCTAssertNil(decoder.nextWholeDataFrame(&input), "a control frame goes to next()")
            XCTAssertEqual(input.count, before, "nothing consumed")
        }
    }

    func testServerUnmasksTheOneStepFrame() {
        var decoder = FrameDecoder(role: .server)
        var bytes = clientFrame(.text, Array("Hello".utf8))
        bytes.withUnsafeMutableBytes { buffer in
            var input = buffer
            let step = decoder.nextWholeDataFrame(&input)
            XCTAssertEqual(step.map { Array($0.payload) }, Array("Hello".utf8))
            XCTAssertEqual(input.count, 0)
        }
    }

    func testIncompleteFrameIsLeftForNext() {
        var decoder = FrameDecoder(role: .client)
        var bytes = Array(frame(.text, "Hello").dropLast())
        bytes.withUnsafeMutableBytes { buffer in
            var input = buffer
            XCTAssertNil(decoder.nextWholeDataFrame(&input))
            XCTAssertEqual(input.count, 6)
        }
    }
}
