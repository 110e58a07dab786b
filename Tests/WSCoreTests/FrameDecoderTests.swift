import XCTest
@testable import WSCore

final class FrameDecoderTests: XCTestCase {
    /// Runs the decoder over `bytes` (pieces of the given size) and returns
    /// the frames, or the error that stopped it.
    private func decode(_ bytes: [UInt8], role: Role = .client, pieceSize: Int = Int.max)
        -> (frames: [(FrameHeader, [UInt8])], error: FrameError?) {
        var decoder = FrameDecoder(role: role)
        var frames: [(FrameHeader, [UInt8])] = []
        var payload: [UInt8] = []
        var start = 0
        while start < bytes.count {
            var piece = Array(bytes[start..<min(bytes.count, start &+ pieceSize)])
            start += piece.count
            var error: FrameError?
            piece.withUnsafeMutableBytes { buffer in
                var input = buffer
                loop: while true {
                    switch decoder.next(&input) {
                    case .needMoreData: break loop
                    case .header: payload = []
                    case .payload(let chunk, _, let end):
                        payload += Array(chunk)
                        if end { frames.append((decoder.header, payload)) }
                    case .failure(let e): error = e; break loop
                    }
                }
            }
            if let error { return (frames, error) }
        }
        return (frames, nil)
    }

    func testDecodesRFCExamples() {
        let stream = hex("81 05 48 65 6c 6c 6f") + hex("01 03 48 65 6c") + hex("80 02 6c 6f")
            + hex("89 05 48 65 6c 6c 6f")
        let result = decode(stream)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.frames.map(\.0.opcode), [.text, .text, .continuation, .ping])
        XCTAssertEqual(result.frames.map(\.0.fin), [true, false, true, true])
        XCTAssertEqual(result.frames.map { String(decoding: $0.1, as: UTF8.self) }, ["Hello", "Hel", "lo", "Hello"])
    }

    func testDecodesAndUnmasksMaskedHello() {
        let result = decode(hex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server)
        XCTAssertNil(result.error)
        XCTAssertEqual(result.frames.first?.0.maskKey, 0x37FA_213D)
        XCTAssertEqual(result.frames.first?.1, Array("Hello".utf8))
    }

    func testLengthBoundariesDecodeAtAnySplit() {
        for length in [0, 1, 125, 126, 127, 65535, 65536, 70_000] {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            for role in [Role.client, .server] {
                let bytes = frame(.binary, payload, maskKey: role == .server ? 0xA1B2_C3D4 : nil)
                for pieceSize in [1, 3, 4096, Int.max] where length < 2000 || pieceSize > 1 {
                    let result = decode(bytes, role: role, pieceSize: pieceSize)
                    XCTAssertNil(result.error)
                    XCTAssertEqual(result.frames.count, 1)
                    XCTAssertEqual(result.frames.first?.0.payloadLength, length)
                    XCTAssertEqual(result.frames.first?.1, payload, "length \(length) piece \(pieceSize)")
                }
            }
        }
    }

    /// Each state holds what it has read so far: fed a byte at a time, the
    /// decoder is always in one state that says exactly where it is.
    func testStatesCarryWhatTheyHaveRead() {
        var decoder = FrameDecoder(role: .server)
        var bytes = frame(.binary, [UInt8](repeating: 9, count: 300), maskKey: 0x0102_0304)
        // 82 FE 01 2C 01 02 03 04, then the payload.
        let expected: [FrameDecoder.State] = [
            .firstByte(0x82),
            .extendedLength(size: 2, needed: 2, value: 0),
            .extendedLength(size: 2, needed: 1, value: 0x01),
            .maskKey(needed: 4, value: 0),
            .maskKey(needed: 3, value: 0x01),
            .maskKey(needed: 2, value: 0x0102),
            .maskKey(needed: 1, value: 0x01_0203),
            .payload(offset: 0),
        ]
        XCTAssertEqual(decoder.state, .idle)
        bytes.withUnsafeMutableBytes { buffer in
            for (index, state) in expected.enumerated() {
                var input = UnsafeMutableRawBufferPointer(rebasing: buffer[index ..< index + 1])
                let step = decoder.next(&input)
                XCTAssertEqual(decoder.state, state, "after byte \(index)")
                if index == 7 {
                    guard case .header(let header) = step else { return XCTFail("expected the header") }
                    XCTAssertEqual(header.payloadLength, 300)
                    XCTAssertEqual(header.maskKey, 0x0102_0304)
                } else if case .needMoreData = step {
                } else {
                    XCTFail("byte \(index): \(step)")
                }
            }
            var input = UnsafeMutableRawBufferPointer(rebasing: buffer[8 ..< 108])
            guard case .payload(let first, false, false) = decoder.next(&input) else { return XCTFail("expected payload") }
            XCTAssertEqual(Array(first), [UInt8](repeating: 9, count: 100))
            XCTAssertEqual(decoder.state, .payload(offset: 100))
            XCTAssertEqual(decoder.remainingPayload, 200)
            input = UnsafeMutableRawBufferPointer(rebasing: buffer[108...])
            guard case .payload(let rest, false, true) = decoder.next(&input) else { return XCTFail("expected the end") }
            XCTAssertEqual(Array(rest), [UInt8](repeating: 9, count: 200))
            XCTAssertEqual(decoder.state, .idle)
            XCTAssertTrue(decoder.isBetweenFrames)
        }
    }

    /// A 64-bit length cut after each of its bytes.
    func testAnEightByteLengthArrivesByteByByte() {
        var decoder = FrameDecoder(role: .client)
        var bytes = hex("82 7F 00 00 00 00 00 01 00 00")
        bytes.withUnsafeMutableBytes { buffer in
            for index in 0 ..< 9 {
                var input = UnsafeMutableRawBufferPointer(rebasing: buffer[index ..< index + 1])
                guard case .needMoreData = decoder.next(&input) else { return XCTFail("byte \(index)") }
            }
            XCTAssertEqual(decoder.state, .extendedLength(size: 8, needed: 1, value: 0x01_00))
            var input = UnsafeMutableRawBufferPointer(rebasing: buffer[9...])
            guard case .header(let header) = decoder.next(&input) else { return XCTFail("expected the header") }
            XCTAssertEqual(header.payloadLength, 0x1_0000)
            XCTAssertEqual(decoder.state, .payload(offset: 0))
        }
    }

    func testWholeFrameFlagOnlyWhenPayloadIsInOnePiece() {
        var decoder = FrameDecoder(role: .client)
        var bytes = frame(.text, "Hello")
        var flags: [(Bool, Bool)] = []
        bytes.withUnsafeMutableBytes { buffer in
            for range in [0..<4, 4..<7] {
                var input = UnsafeMutableRawBufferPointer(rebasing: buffer[range])
                while true {
                    let step = decoder.next(&input)
                    if case .payload(_, let whole, let end) = step { flags.append((whole, end)) }
                    if case .needMoreData = step { break }
                }
            }
        }
        XCTAssertEqual(flags.map(\.0), [false, false])
        XCTAssertEqual(flags.map(\.1), [false, true])
    }

    func testHeaderErrorsBeforePayloadArrives() {
        // A control frame announcing 126 bytes fails on its second byte.
        XCTAssertEqual(decode(hex("89 7E")).error, .controlFrameTooLong(126))
        XCTAssertEqual(decode(hex("C1 00")).error, .reservedBitsSet(0x40))
        XCTAssertEqual(decode(hex("83 00")).error, .reservedOpcode(3))
        XCTAssertEqual(decode(hex("08 00")).error, .fragmentedControlFrame)
        XCTAssertEqual(decode(hex("82 7E 00 7D")).error, .nonMinimalLength(125))
        XCTAssertEqual(decode(hex("82 7F 00 00 00 00 00 00 FF FF")).error, .nonMinimalLength(65535))
        XCTAssertEqual(decode(hex("82 7F 80 00 00 00 00 00 00 00")).error, .lengthHighBitSet)
        XCTAssertEqual(decode(hex("81 85 00 00 00 00"), role: .client).error, .maskedFrameFromServer)
        XCTAssertEqual(decode(hex("81 05"), role: .server).error, .unmaskedFrameFromClient)
    }

    func testWholeHeadersDecodeLikeHeadersCutAnywhere() {
        // A header entirely in the input takes the one-step path; fed a byte
        // at a time it takes the state-by-state one: same frames, same errors.
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((random >> 33) % UInt64(bound))
        }
        for role in [Role.client, .server] {
            for _ in 0 ..< 300 {
                var bytes: [UInt8] = []
                for _ in 0 ..< 1 + next(4) {
                    let length = next(20) == 0 ? [65535, 65536, 70000][next(3)] : [0, 1, 125, 126, 127, 200][next(6)]
                    var first = UInt8([0x80, 0x00][next(2)]) | UInt8([1, 2, 0, 8, 9, 10, 3, 11][next(8)])
                    if next(8) == 0 { first |= 0x40 }
                    let masked = role == .server ? next(10) != 0 : next(10) == 0
                    var header: [UInt8] = [first]
                    var short = length < 126 ? length : length <= 0xFFFF ? 126 : 127
                    if next(12) == 0 { short = [126, 127][next(2)] }    // lengths in the non-minimal form too
                    header.append(UInt8(short) | (masked ? 0x80 : 0))
                    if short == 126 { header += [UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] }
                    if short == 127 { header += (0 ..< 8).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) } }
                    if masked { header += [0x12, 0x34, 0x56, 0x78] }
                    bytes += header + (0 ..< (short < 126 ? short : length)).map { UInt8(truncatingIfNeeded: $0) }
                }
                let whole = decode(bytes, role: role)
                let cut = decode(bytes, role: role, pieceSize: [1, 2, 3, 5, 9, 14][next(6)])
                XCTAssertEqual(whole.error, cut.error)
                XCTAssertEqual(whole.frames.map { $0.0 }, cut.frames.map { $0.0 })
                XCTAssertEqual(whole.frames.map { $0.1 }, cut.frames.map { $0.1 })
            }
        }
    }

    func testAllowedReservedBitsHook() {
        var decoder = FrameDecoder(role: .client)
        decoder.allowedReservedBits = FrameHeader.rsv1
        var bytes = hex("C1 01 78")
        bytes.withUnsafeMutableBytes { buffer in
            var input = buffer
            guard case .header(let header) = decoder.next(&input) else { return XCTFail("RSV1 should be allowed") }
            XCTAssertEqual(header.reservedBits, FrameHeader.rsv1)
        }
    }
}
