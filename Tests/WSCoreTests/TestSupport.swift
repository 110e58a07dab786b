import XCTest
@testable import WSCore

/// "81 05 48 65" -> [0x81, 0x05, 0x48, 0x65]
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex string")
    var bytes: [UInt8] = []
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

/// An owned copy of a ConnectionEvent, comparable in assertions.
enum Event: Equatable, CustomStringConvertible {
    case text(String)
    case binary([UInt8])
    case ping([UInt8])
    case pong([UInt8])
    case close(UInt16?, String)
    case failed(UInt16, String)

    init(_ event: ConnectionEvent) {
        switch event {
        case .text(let p, _): self = .text(String(decoding: p, as: UTF8.self))
        case .binary(let p): self = .binary(Array(p))
        case .ping(let p): self = .ping(Array(p))
        case .pong(let p): self = .pong(Array(p))
        case .closeReceived(let code, let reason): self = .close(code?.rawValue, reason)
        case .failed(let code, let reason): self = .failed(code.rawValue, reason)
        }
    }

    var failureCode: UInt16? {
        if case .failed(let code, _) = self { return code }
        return nil
    }

    var description: String {
        switch self {
        case .text(let s): return "text(\(s.utf8.count) bytes: \(s.prefix(40)))"
        case .binary(let b): return "binary(\(b.count) bytes)"
        case .ping(let b): return "ping(\(b))"
        case .pong(let b): return "pong(\(b))"
        case .close(let c, let r): return "close(\(String(describing: c)), \(r))"
        case .failed(let c, let r): return "failed(\(c), \(r))"
        }
    }
}

/// Feeds `bytes` in one call.
func feed(_ connection: inout Connection, _ bytes: [UInt8]) -> [Event] {
    var copy = bytes
    var events: [Event] = []
    copy.withUnsafeMutableBytes { buffer in
        connection.receive(buffer) { events.append(Event($0)) }
    }
    return events
}

/// Feeds `bytes` one byte per call.
func feedByteByByte(_ connection: inout Connection, _ bytes: [UInt8]) -> [Event] {
    var events: [Event] = []
    for byte in bytes {
        events += feed(&connection, [byte])
    }
    return events
}

/// Feeds `bytes` in pieces of the given sizes (the rest in one last piece).
func feed(_ connection: inout Connection, _ bytes: [UInt8], splitAt sizes: [Int]) -> [Event] {
    var events: [Event] = []
    var start = 0
    for size in sizes {
        events += feed(&connection, Array(bytes[start..<start + size]))
        start += size
    }
    events += feed(&connection, Array(bytes[start...]))
    return events
}

/// One encoded frame, as a peer would send it.
func frame(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true, maskKey: UInt32? = nil,
           reservedBits: UInt8 = 0) -> [UInt8] {
    var out = ByteBuffer()
    payload.withUnsafeBytes {
        FrameEncoder.append(opcode: opcode, fin: fin, reservedBits: reservedBits, payload: $0,
                            maskKey: maskKey, into: &out)
    }
    return out.readableArray
}

func frame(_ opcode: Opcode, _ text: String, fin: Bool = true, maskKey: UInt32? = nil) -> [UInt8] {
    frame(opcode, Array(text.utf8), fin: fin, maskKey: maskKey)
}

/// A frame as a client would send it to a server (masked with a fixed key).
func clientFrame(_ opcode: Opcode, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
    frame(opcode, payload, fin: fin, maskKey: 0x37FA_213D)
}

/// Decodes every frame in `bytes` (the output of a connection), unmasking.
/// RSV1 (permessage-deflate) is let through and shows in the header.
func decodeFrames(_ bytes: [UInt8], role: Role) -> [(header: FrameHeader, payload: [UInt8])] {
    var decoder = FrameDecoder(role: role)
    decoder.allowedReservedBits = FrameHeader.rsv1
    var frames: [(header: FrameHeader, payload: [UInt8])] = []
    var copy = bytes
    copy.withUnsafeMutableBytes { buffer in
        var input = buffer
        var payload: [UInt8] = []
        loop: while true {
            switch decoder.next(&input) {
            case .needMoreData: break loop
            case .header: payload = []
            case .payload(let piece, _, let end):
                payload += Array(piece)
                if end { frames.append((decoder.header, payload)) }
            case .failure(let error): XCTFail("undecodable output: \(error)"); break loop
            }
        }
    }
    return frames
}

func client(maxMessageSize: Int = 1 << 20) -> Connection {
    Connection(role: .client, maxMessageSize: maxMessageSize, entropy: EntropyPool(fixed: [0x37, 0xFA, 0x21, 0x3D]))
}

func server(maxMessageSize: Int = 1 << 20) -> Connection {
    Connection(role: .server, maxMessageSize: maxMessageSize, entropy: EntropyPool(fixed: [1, 2, 3, 4]))
}

extension Array where Element == UInt8 {
    init(_ text: String) { self = Array(text.utf8) }
}
