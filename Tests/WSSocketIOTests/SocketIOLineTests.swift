import XCTest
@testable import WSSocketIO

/// Packets to lines and lines to packets, as tables (wspipe(1): SOCKET.IO).
final class SocketIOLineTests: XCTestCase {
    private func line(_ packet: String, attachments: [[UInt8]] = []) throws -> String {
        let text = Array(packet.utf8)
        return try text.withUnsafeBytes { bytes in
            let header = try SocketIOPacket.parse(bytes)
            var out: [UInt8] = []
            try SocketIOLine.write(header, of: bytes, attachments: attachments, into: &out)
            return String(decoding: out, as: UTF8.self)
        }
    }

    private func packet(_ line: String, ackID: Int? = nil) throws -> (String, [[UInt8]]) {
        let bytes = Array(line.utf8)
        return try bytes.withUnsafeBytes { raw in
            let parts = try SocketIOLine.parse(raw)
            let encoded = try SocketIOLine.encode(parts, of: raw, ackID: ackID)
            return (String(decoding: encoded.packet, as: UTF8.self), encoded.attachments)
        }
    }

    func testPacketsBecomeLines() throws {
        let table: [(String, String)] = [
            (#"42["message",{"text":"hi"}]"#, #"{"event":"message","data":{"text":"hi"}}"#),
            (#"42/chat,["message",{"text":"hi"}]"#, #"{"event":"message","data":{"text":"hi"},"ns":"/chat"}"#),
            (#"42/chat,17["message",{"text":"hi"}]"#, #"{"event":"message","data":{"text":"hi"},"ns":"/chat","ack":17}"#),
            (#"4217["m",1]"#, #"{"event":"m","data":1,"ack":17}"#),
            (#"42["tick"]"#, #"{"event":"tick"}"#),
            (#"42["pair",1,[2,3],"x"]"#, #"{"event":"pair","args":[1,[2,3],"x"]}"#),
            (#"433[{"ok":true}]"#, #"{"ack_of":3,"data":{"ok":true}}"#),
            (#"43/chat,3["a","b"]"#, #"{"ack_of":3,"args":["a","b"],"ns":"/chat"}"#),
            (#"433[]"#, #"{"ack_of":3}"#),
            ("42[\"m\",\n {\"a\": 1}]", #"{"event":"m","data":{"a":1}}"#),
            (#"42["m","{\"_placeholder\":true}"]"#, #"{"event":"m","data":"{\"_placeholder\":true}"}"#),
            (#"42["m",{"_placeholder":true,"num":0}]"#, #"{"event":"m","data":{"_placeholder":true,"num":0}}"#),
        ]
        for (packet, expected) in table {
            XCTAssertEqual(try line(packet), expected, packet)
        }
    }

    func testAttachmentsBecomeBinaryEnvelopes() throws {
        XCTAssertEqual(try line(#"451-["file",{"_placeholder":true,"num":0}]"#, attachments: [[0, 1, 2]]),
                       #"{"event":"file","data":{"$binary":"AAEC"}}"#)
        XCTAssertEqual(try line(#"452-/up,4["two",{"a":{"num":1,"_placeholder":true}},{"_placeholder":true,"num":0}]"#,
                                attachments: [[0xFF], [0x41]]),
                       #"{"event":"two","args":[{"a":{"$binary":"QQ=="}},{"$binary":"/w=="}],"ns":"/up","ack":4}"#)
        XCTAssertThrowsError(try line(#"451-["file",{"_placeholder":true,"num":1}]"#, attachments: [[0]]))
    }

    func testBrokenPacketsAreErrors() {
        for bad in ["4", "49[]", "42", #"42{"a":1}"#, "42[1]", "42[\"m\"", "45[\"m\"]", "43[1]"] {
            XCTAssertThrowsError(try line(bad), bad)
        }
    }

    func testLinesBecomePackets() throws {
        let table: [(String, String)] = [
            (#"{"event":"message","data":{"text":"hi"}}"#, #"42["message",{"text":"hi"}]"#),
            (#"{"event":"message","data":{"text":"hi"},"ns":"/chat"}"#, #"42/chat,["message",{"text":"hi"}]"#),
            (#"{"event":"tick"}"#, #"42["tick"]"#),
            (#"{"event":"pair","args":[1, [2,3]]}"#, #"42["pair",1, [2,3]]"#),
            (#"{"event":"none","args":[ ]}"#, #"42["none"]"#),
            (#"{"ack":17,"data":"ok","ns":"/chat"}"#, #"43/chat,17["ok"]"#),
            (#"{"ack":17}"#, #"4317[]"#),
            (#"{"event":"e","data":1,"ack":9}"#, #"429["e",1]"#),
            (#"{"event":"e","data":1,"ns":null,"ack":false}"#, #"42["e",1]"#),
        ]
        for (line, expected) in table {
            XCTAssertEqual(try packet(line).0, expected, line)
        }
        XCTAssertEqual(try packet(#"{"event":"join","data":{"room":"a"},"ack":true}"#, ackID: 4).0, #"424["join",{"room":"a"}]"#)
    }

    func testBinaryLinesBecomeAttachments() throws {
        let (text, attachments) = try packet(#"{"event":"file","data":{"name":"a","body":{"$binary":"AAEC"}},"ns":"/up"}"#)
        XCTAssertEqual(text, #"451-/up,["file",{"name":"a","body":{"_placeholder":true,"num":0}}]"#)
        XCTAssertEqual(attachments, [[0, 1, 2]])
        let (answer, parts) = try packet(#"{"ack":2,"args":[{"$binary":"/w=="},{"$binary":"QQ=="}]}"#)
        XCTAssertEqual(answer, #"462-2[{"_placeholder":true,"num":0},{"_placeholder":true,"num":1}]"#)
        XCTAssertEqual(parts, [[0xFF], [0x41]])
        // A "$binary" that is not an envelope's only member stays as it is.
        XCTAssertEqual(try packet(#"{"event":"e","data":{"$binary":"AA==","x":1}}"#).0, #"42["e",{"$binary":"AA==","x":1}]"#)
    }

    func testBadLinesSayWhy() {
        let table: [(String, String)] = [
            (#"[1]"#, "an object with \"event\""),
            (#"{"data":1}"#, "no \"event\""),
            (#"{"event":1}"#, "\"event\" must be a string"),
            (#"{"event":"e","data":1,"args":[1]}"#, "\"data\" and \"args\" together"),
            (#"{"event":"e","args":1}"#, "\"args\" must be an array"),
            (#"{"event":"e","ns":"chat"}"#, "must start with \"/\""),
            (#"{"event":"e","ns":"/a,b"}"#, "no comma"),
            (#"{"event":"e","ack":"x"}"#, "\"ack\" must be true"),
            (#"{"event":"e","date":1}"#, "unknown member \"date\""),
            (#"{"event":"e","event":"f"}"#, "given twice"),
            (#"{"event":"e","data":{"$binary":"@@"}}"#, "invalid base64"),
        ]
        for (line, reason) in table {
            XCTAssertThrowsError(try packet(line), line) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(line): \(error)")
            }
        }
    }

    func testRoundTrip() throws {
        for line in [#"{"event":"m","data":{"a":[1,{"$binary":"AAEC"}]},"ns":"/x","ack":3}"#,
                     #"{"event":"m","args":[1,"two",null]}"#, #"{"event":"m"}"#] {
            let (text, attachments) = try packet(line)
            XCTAssertEqual(try self.line(text, attachments: attachments), line)
        }
    }
}
