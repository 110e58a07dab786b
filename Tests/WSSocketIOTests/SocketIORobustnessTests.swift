import XCTest
import WSJSON
@testable import WSSocketIO

/// What a peer or stdin may send, however broken: never a crash, memory
/// bounded, and what is valid round-trips.
final class SocketIORobustnessTests: XCTestCase {
    /// A small deterministic generator (xorshift64*), so a failure repeats.
    private struct Seeded {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state >> 12; state ^= state << 25; state ^= state >> 27
            return state &* 2685821657736338717
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    private static let pieces: [String] = [
        "4", "2", "0", "5", "6", "1-", "99-", "/chat,", "/", ",", "17", "[", "]", "{", "}", "\"", "\\", ":",
        "\"event\"", "\"data\"", "\"args\"", "\"ns\"", "\"ack\"", "true", "null", "1", "\"x\"",
        "{\"_placeholder\":true,\"num\":0}", "{\"_placeholder\":true,\"num\":7}", "{\"$binary\":\"AAE=\"}",
        "{\"$binary\":\"@\"}", "\"_placeholder\"", "\"num\"", " ", "\n", "\u{1}", "é",
    ]

    private func randomText(_ random: inout Seeded) -> [UInt8] {
        var text = ""
        for _ in 0 ..< random.below(24) { text += Self.pieces[random.below(Self.pieces.count)] }
        return Array(text.utf8)
    }

    func testRandomMessagesNeverCrashEitherSide() {
        var random = Seeded(state: 0x9E3779B97F4A7C15)
        var client = SocketIOClientState(namespaces: ["/", "/chat"], auth: nil, maxMessageSize: 64)
        var server = SocketIOServerState(open: EngineIOOpen(sid: "s", pingIntervalMs: 1, pingTimeoutMs: 1),
                                         namespaces: nil, maxMessageSize: 64)
        Array(#"0{"sid":"s"}"#.utf8).withUnsafeBytes { client.receive(text: $0) { _ in } }
        for _ in 0 ..< 20_000 {
            let text = randomText(&random)
            let binary = random.below(4) == 0
            text.withUnsafeBytes { bytes in
                let check: (SocketIOEvent) -> Void = { event in
                    if case .line(let line) = event {
                        XCTAssertTrue(JSONScanner.validate(line).isValid, String(decoding: line, as: UTF8.self))
                    }
                }
                if binary {
                    client.receive(binary: bytes, check)
                    server.receive(binary: bytes, check)
                } else {
                    client.receive(text: bytes, check)
                    server.receive(text: bytes, check)
                }
            }
            XCTAssertLessThanOrEqual(server.heldBytes, 64 + text.count + 4096)
        }
    }

    /// A JSON value, nested, with binary envelopes and placeholder look-alikes.
    private func value(_ random: inout Seeded, depth: Int = 0) -> String {
        let leaves = ["1", "-2.5e3", "\"x\"", "true", "null", "\"_placeholder\"", "{\"$binary\":\"AAE=\"}",
                      "{\"$binary\":\"\"}", "{\"_placeholder\":true,\"num\":0}", "\"\\u00e9\\\"\""]
        guard depth < 4, random.below(3) == 0 else { return leaves[random.below(leaves.count)] }
        let items = (0 ..< random.below(4)).map { _ in value(&random, depth: depth + 1) }
        if random.below(2) == 0 { return "[" + items.joined(separator: ",") + "]" }
        return "{" + items.enumerated().map { "\"k\($0.offset)\":\($0.element)" }.joined(separator: ",") + "}"
    }

    /// A line that may be a Socket.IO line, or nearly one.
    private func line(_ random: inout Seeded) -> [UInt8] {
        let members = ["\"event\":\"e\"", "\"data\":" + value(&random), "\"args\":[" + value(&random) + "," + value(&random) + "]",
                       "\"ns\":\"/chat\"", "\"ack\":true", "\"ack\":5", "\"ns\":null", "\"x\":1", "\"event\":1"]
        let chosen = (0 ..< random.below(4) + 1).map { _ in members[random.below(members.count)] }
        return Array(("{" + chosen.joined(separator: ",") + "}").utf8)
    }

    func testRandomLinesAreRefusedOrRoundTrip() throws {
        var random = Seeded(state: 0xD1B54A32D192ED03)
        var sent = 0
        for _ in 0 ..< 20_000 {
            let text = line(&random)
            try text.withUnsafeBytes { line in
                guard JSONScanner.validate(line).isValid, let parts = try? SocketIOLine.parse(line),
                      let (packet, attachments) = try? SocketIOLine.encode(parts, of: line, ackID: 3) else { return }
                sent += 1
                // What went out reads back as a line that is JSON, with the same event and data.
                try packet.withUnsafeBytes { bytes in
                    let header = try SocketIOPacket.parse(bytes)
                    var back: [UInt8] = []
                    try SocketIOLine.write(header, of: bytes, attachments: attachments, into: &back)
                    XCTAssertTrue(back.withUnsafeBytes { JSONScanner.validate($0).isValid })
                }
            }
        }
        XCTAssertGreaterThan(sent, 0, "some random lines were Socket.IO lines")
    }
}
