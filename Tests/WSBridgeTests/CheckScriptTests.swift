import XCTest
@testable import WSBridge
@testable import WSConnect

/// Recordings made ready for --check, from --record's lines or a HAR file
/// (wspipe(1): CHECKING A SERVER).
final class CheckScriptTests: XCTestCase {
    private func script(_ text: String, allowExtra: [String] = []) throws -> CheckScript {
        try CheckScript(path: "t.ndjson", recording: try Recording.reading(Array(text.utf8)), allowExtra: allowExtra,
                        typeKey: ["type"])
    }

    func testConnectionsStepsAndLines() throws {
        let file = """
            {"t_ms":0,"dir":"event","conn":1,"msg":{"$event":"connected","url":"ws://a.example/x","attempt":1}}
            {"t_ms":1,"dir":"out","conn":1,"msg":{"type":"hi"}}
            {"t_ms":2,"dir":"in","conn":1,"msg":{"type":"hello","at":"${number}"}}
            {"t_ms":3,"dir":"in","conn":1,"msg":{"type":"heartbeat"}}
            {"t_ms":4,"dir":"event","conn":1,"msg":{"$event":"disconnected","code":4001,"reason":"x","clean":true,"by":"server"}}
            {"t_ms":5,"dir":"event","conn":2,"msg":{"$event":"connected","url":"ws://b.example/y","attempt":2}}

            {"t_ms":6,"dir":"in","conn":2,"msg":{"$binary":"AAE="}}
            {"t_ms":7,"dir":"in","conn":2,"msg":{"$text":"plain"}}
            """
        let checked = try script(file, allowExtra: ["heartbeat"])
        XCTAssertEqual(checked.connections.count, 2)
        XCTAssertEqual(checked.requests.map { $0?.url }, ["ws://a.example/x", "ws://b.example/y"])
        XCTAssertEqual(checked.connections[0].steps.map(\.line), [2, 3], "the heartbeat is not awaited")
        XCTAssertEqual(checked.connections[0].serverCloseCode, 4001)
        XCTAssertNil(checked.connections[1].serverCloseCode)
        guard case .expect(.binary(let bytes), 8) = checked.connections[1].steps[0],
              case .expect(.text(let text), 9) = checked.connections[1].steps[1] else {
            return XCTFail("\(checked.connections[1].steps)")
        }
        XCTAssertEqual(bytes, [0, 1])
        XCTAssertEqual(text, Array("plain".utf8))
    }

    func testErrorsNameTheirLine() {
        let cases: [(String, Int, String)] = [
            (#"{"t_ms":1,"dir":"out","conn":1,"msg":{"a":"${sid}"}}"#, 1, "no \"${capture:sid}\""),
            (#"{"t_ms":1,"dir":"out","conn":1,"msg":{"a":"${any}"}}"#, 1, "matchers are for the messages expected"),
            ("\n" + #"{"t_ms":1,"dir":"in","conn":1,"msg":{"a":"${what?}"}}"#, 2, "is no matcher"),
            (#"{"t_ms":1,"dir":"in","conn":1,"msg":{"a":"${what}"}}"#, 1, "no \"${capture:what}\" before it"),
            (#"{"t_ms":1,"dir":"event","conn":1,"msg":{"$event":"connected"}}"#, 0, "no message"),
        ]
        for (text, line, reason) in cases {
            XCTAssertThrowsError(try script(text)) { error in
                let error = error as! RecordingError
                XCTAssertEqual(error.line, line, text)
                XCTAssertTrue(error.reason.contains(reason), "\(error)")
            }
        }
        // A capture used after the message that binds it is fine, on a later connection too.
        XCTAssertNoThrow(try script(#"{"t_ms":1,"dir":"in","conn":1,"msg":{"s":"${capture:sid}"}}"# + "\n"
                                    + #"{"t_ms":2,"dir":"out","conn":2,"msg":{"s":"${sid}"}}"#))
    }

    func testHAR() throws {
        let har = """
            {"log": {"version": "1.2", "entries": [
              {"request": {"url": "https://example.com/page", "headers": []}},
              {"request": {"method": "GET", "url": "wss://chat.example/ws?room=1",
                 "headers": [{"name": "Host", "value": "chat.example"}, {"name": "Origin", "value": "https://example.com"},
                             {"name": "Sec-WebSocket-Protocol", "value": "chat.v2, chat.v1"},
                             {"name": "Cookie", "value": "sid=secret"}, {"name": "X-Api-Key", "value": "k"},
                             {"name": "Accept-Language", "value": "en"}, {"name": "Sec-WebSocket-Key", "value": "x"},
                             {"name": ":authority", "value": "chat.example"}]},
               "_resourceType": "websocket",
               "_webSocketMessages": [
                 {"type": "send", "time": 1700000000.5, "opcode": 1, "data": "{\\"type\\":\\"join\\"}"},
                 {"type": "receive", "time": 1700000000.625, "opcode": 1, "data": "{\\"type\\":\\"joined\\"}"},
                 {"type": "receive", "time": 1700000000.7, "opcode": 9, "data": ""},
                 {"type": "receive", "time": 1700000000.75, "opcode": 2, "data": "AAEC"}
               ]},
              {"request": {"url": "http://plain.example/ws", "headers": []},
               "_webSocketMessages": [{"type": "send", "time": 1700000001, "opcode": 1, "data": "hi"}]}
            ]}}
            """
        let recording = try Recording.reading(Array(har.utf8))
        XCTAssertEqual(recording.format, .har)
        XCTAssertEqual(recording.connectionNumbers, [1, 2])
        let request = try XCTUnwrap(recording.requests[1])
        XCTAssertEqual(request.url, "wss://chat.example/ws?room=1")
        XCTAssertEqual(request.protocols, ["chat.v2", "chat.v1"])
        XCTAssertEqual(request.origin, "https://example.com")
        XCTAssertEqual(request.headers.map(\.name), ["Accept-Language"])
        XCTAssertEqual(request.credentials.map(\.name), ["Cookie", "X-Api-Key"])
        XCTAssertEqual(recording.requests[2]?.url, "ws://plain.example/ws")
        let checked = try CheckScript(path: "a.har", recording: recording, allowExtra: [], typeKey: ["type"])
        XCTAssertEqual(checked.connections[0].steps.count, 3, "the ping frame is left out")
        guard case .expect(.binary(let bytes), 4) = checked.connections[0].steps[2] else {
            return XCTFail("\(checked.connections[0].steps[2])")
        }
        XCTAssertEqual(bytes, [0, 1, 2])
        // Times count from the first frame.
        XCTAssertEqual(recording.entries.filter { $0.direction != .event }.map(\.tMs), [0, 125, 250, 500])

        XCTAssertThrowsError(try Recording.reading(Array(#"{"log":{"entries":[]}}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("no WebSocket"), "\(error)")
        }
        XCTAssertThrowsError(try Recording.reading(Array(
            #"{"log":{"entries":[{"_webSocketMessages":[{"type":"sent","data":""}]}]}}"#.utf8))) { error in
            XCTAssertTrue("\(error)".contains("connection 1, frame 1"), "\(error)")
        }
    }
}
