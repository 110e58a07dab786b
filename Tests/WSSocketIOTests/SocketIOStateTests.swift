import XCTest
@testable import WSSocketIO

/// The handshakes of both sides, fed message by message.
final class SocketIOStateTests: XCTestCase {
    /// What the state made of one message, as strings.
    private func events(_ body: ((SocketIOEvent) -> Void) -> Void) -> [String] {
        var out: [String] = []
        body { event in
            switch event {
            case .send(let bytes): out.append("send " + String(decoding: bytes, as: UTF8.self))
            case .opened(let open): out.append("opened \(open.sid) \(open.pingIntervalMs) \(open.pingTimeoutMs)")
            case .pinged: out.append("pinged")
            case .ponged: out.append("ponged")
            case .namespaceConnected(let ns, let auth): out.append("connected \(ns)" + (auth.map { " " + String(decoding: $0, as: UTF8.self) } ?? ""))
            case .ready: out.append("ready")
            case .rejected(let ns, let message): out.append("rejected \(ns): \(message)")
            case .namespaceClosed(let ns): out.append("closed \(ns)")
            case .engineClosed: out.append("engine closed")
            case .line(let bytes): out.append(String(decoding: bytes, as: UTF8.self))
            case .unreadable(let why): out.append("unreadable: \(why)")
            }
        }
        return out
    }

    private func text(_ state: inout SocketIOClientState, _ message: String) -> [String] {
        let bytes = Array(message.utf8)
        return events { emit in bytes.withUnsafeBytes { state.receive(text: $0, emit) } }
    }

    private func binary(_ state: inout SocketIOClientState, _ bytes: [UInt8]) -> [String] {
        events { emit in bytes.withUnsafeBytes { state.receive(binary: $0, emit) } }
    }

    func testClientHandshakeConnectsEveryNamespaceWithTheAuth() {
        var state = SocketIOClientState(namespaces: ["/", "/chat"], auth: Array(#"{"token":"t"}"#.utf8), maxMessageSize: 1 << 20)
        XCTAssertEqual(text(&state, #"0{"sid":"abc","upgrades":[],"pingInterval":300,"pingTimeout":200,"maxPayload":1000000}"#),
                       ["opened abc 300 200", #"send 40{"token":"t"}"#, #"send 40/chat,{"token":"t"}"#])
        XCTAssertEqual(state.phase, .connecting(pending: ["/", "/chat"]))
        XCTAssertEqual(text(&state, #"40/chat,{"sid":"x"}"#), [#"connected /chat {"sid":"x"}"#])
        XCTAssertEqual(text(&state, "2"), ["send 3", "pinged"])
        XCTAssertEqual(text(&state, #"40{"sid":"y"}"#), [#"connected / {"sid":"y"}"#, "ready"])
        XCTAssertEqual(state.phase, .open)
        XCTAssertEqual(text(&state, #"42/chat,5["m",1]"#), [#"{"event":"m","data":1,"ns":"/chat","ack":5}"#])
        XCTAssertEqual(text(&state, "6"), [])
        XCTAssertEqual(text(&state, "41/chat,"), ["closed /chat"])
        XCTAssertEqual(text(&state, "1"), ["engine closed"])
    }

    func testConnectErrorIsARejectionWithItsMessage() {
        var state = SocketIOClientState(namespaces: ["/"], auth: nil, maxMessageSize: 1 << 20)
        XCTAssertEqual(text(&state, #"0{"sid":"s"}"#), ["opened s 25000 20000", "send 40"])
        XCTAssertEqual(text(&state, #"44{"message":"bad token"}"#), ["rejected /: bad token"])
    }

    func testBinaryEventsWaitForTheirAttachments() {
        var state = SocketIOClientState(namespaces: ["/"], auth: nil, maxMessageSize: 8)
        _ = text(&state, #"0{"sid":"s"}"#)
        _ = text(&state, "40")
        XCTAssertEqual(text(&state, #"452-["f",{"_placeholder":true,"num":1},{"_placeholder":true,"num":0}]"#), [])
        XCTAssertEqual(binary(&state, [1]), [])
        XCTAssertEqual(binary(&state, [2]), [#"{"event":"f","args":[{"$binary":"Ag=="},{"$binary":"AQ=="}]}"#])
        XCTAssertEqual(binary(&state, [3]), ["unreadable: a binary message that no binary event announced"])
        // Bounded: attachments above the limit are refused, the event reported.
        XCTAssertEqual(text(&state, #"451-["f",{"_placeholder":true,"num":0}]"#), [])
        XCTAssertEqual(binary(&state, Array(repeating: 0, count: 9)),
                       ["unreadable: a binary event's attachments exceed 8 bytes; it is lost"])
        XCTAssertEqual(text(&state, #"451-["f",{"_placeholder":true,"num":0}]"#), [])
        XCTAssertEqual(text(&state, #"42["g"]"#),
                       ["unreadable: a binary event's attachments were cut short by another packet; it is lost", #"{"event":"g"}"#])
    }

    func testWhatIsNotSocketIOIsUnreadable() {
        var state = SocketIOClientState(namespaces: ["/"], auth: nil, maxMessageSize: 1 << 20)
        XCTAssertEqual(text(&state, "hello"), ["unreadable: not an Engine.IO packet"])
        XCTAssertEqual(text(&state, "0{}"), ["unreadable: the Engine.IO open packet has no \"sid\""])
        XCTAssertEqual(text(&state, "4x"), ["unreadable: unknown Socket.IO packet type x"])
    }

    func testServerAnswersConnectsAndRefusesOtherNamespaces() {
        var state = SocketIOServerState(open: EngineIOOpen(sid: "c1", pingIntervalMs: 100, pingTimeoutMs: 50),
                                        namespaces: ["/", "/chat"], maxMessageSize: 1 << 20)
        XCTAssertEqual(String(decoding: state.openPacket, as: UTF8.self),
                       #"0{"sid":"c1","upgrades":[],"pingInterval":100,"pingTimeout":50}"#)
        func feed(_ message: String) -> [String] {
            let bytes = Array(message.utf8)
            return events { emit in bytes.withUnsafeBytes { state.receive(text: $0, emit) } }
        }
        XCTAssertEqual(feed(#"40{"token":"t"}"#), [#"send 40{"sid":"c1"}"#, #"connected / {"token":"t"}"#])
        XCTAssertEqual(feed("40/chat,"), [#"send 40/chat,{"sid":"c1/chat"}"#, "connected /chat"])
        XCTAssertEqual(feed("40/admin,"), [#"send 44/admin,{"message":"Invalid namespace"}"#])
        XCTAssertEqual(state.joined, ["/", "/chat"])
        XCTAssertEqual(feed("3"), ["ponged"])
        XCTAssertEqual(feed(#"42/chat,["m","hi"]"#), [#"{"event":"m","data":"hi","ns":"/chat"}"#])
        XCTAssertEqual(feed("41/chat,"), ["closed /chat"])
        XCTAssertEqual(state.joined, ["/"])
    }
}
