@testable import WSCore

/// Feeds a byte stream to a `Connection` in pieces and checks what comes out:
/// messages within the limit, text that is UTF-8, nothing after a failure or
/// a Close, and an output that the peer's decoder reads without error.
enum FuzzConnection {
    /// `compressed`: permessage-deflate negotiated, with no context takeover
    /// one way or the other depending on the setup byte.
    static func run(_ input: UnsafeRawBufferPointer, role: Role, compressed: Bool) {
        guard let setup = input.first else { return }
        let limits = [16, 125, 1000, 1 << 16]
        let limit = limits[Int(setup & 3)]
        let piece = 1 + Int(setup >> 2) * 7
        let compression = compressed
            ? DeflateParameters(serverNoContextTakeover: setup & 0x10 != 0, clientNoContextTakeover: setup & 0x20 != 0,
                                serverMaxWindowBits: setup & 0x40 != 0 ? 8 : nil)
            : nil
        var connection = Connection(role: role, maxMessageSize: limit, compression: compression,
                                    entropy: EntropyPool(fixed: [1, 2, 3, 4]))
        var bytes = Array(input.dropFirst())
        var ended = false
        var echoes: [(Opcode, [UInt8])] = []
        var wire: [UInt8] = []   // what the "transport" wrote
        bytes.withUnsafeMutableBytes { all in
            var offset = 0
            while offset < all.count {
                let end = min(offset + piece, all.count)
                connection.receive(UnsafeMutableRawBufferPointer(rebasing: all[offset..<end])) { event in
                    check(!ended, "event after the connection ended: \(event)")
                    switch event {
                    case .text(let payload, _):
                        check(payload.count <= limit, "text over the limit")
                        check(UTF8Validator.isValid(payload), "text that is not UTF-8")
                        echoes.append((.text, Array(payload)))
                    case .binary(let payload):
                        check(payload.count <= limit, "binary over the limit")
                        echoes.append((.binary, Array(payload)))
                    case .ping(let payload), .pong(let payload):
                        check(payload.count <= 125, "control payload over 125 bytes")
                    case .closeReceived, .failed:
                        ended = true
                    }
                }
                offset = end
                // Echo what arrived and write part of the output, as a session would.
                for (opcode, payload) in echoes {
                    payload.withUnsafeBytes { opcode == .text ? connection.sendText($0) : connection.sendBinary($0) }
                }
                echoes.removeAll()
                let written = min(connection.output.readableBytes, piece * 3)
                connection.withOutput { wire += $0.prefix(written) }
                connection.consumeOutput(written)
                if connection.output.isEmpty { connection.outputWritten() }
            }
        }
        connection.withOutput { wire += $0 }
        checkOutput(wire, peerRole: role == .client ? .server : .client)
        if compressed { checkCompressedEcho(wire, role: role, compression: compression!) }
    }

    /// What we queued must be valid frames for the peer (masked by clients only).
    private static func checkOutput(_ wire: [UInt8], peerRole: Role) {
        var copy = wire
        var decoder = FrameDecoder(role: peerRole)
        decoder.allowedReservedBits = FrameHeader.rsv1
        copy.withUnsafeMutableBytes { buffer in
            var rest = buffer
            while true {
                switch decoder.next(&rest) {
                case .needMoreData: return
                case .failure(let error): check(false, "our own output does not decode: \(error)")
                default: continue
                }
            }
        }
    }

    /// Whatever we sent, a peer with the same parameters reads without a
    /// failure: our frames inflate, our echoed text is UTF-8.
    private static func checkCompressedEcho(_ wire: [UInt8], role: Role, compression: DeflateParameters) {
        var peer = Connection(role: role == .client ? .server : .client, maxMessageSize: 1 << 20,
                              compression: compression)
        var copy = wire
        copy.withUnsafeMutableBytes { buffer in
            peer.receive(buffer) { event in
                if case .failed(_, let reason) = event { check(false, "the peer fails on our output: \(reason)") }
            }
        }
    }
}
