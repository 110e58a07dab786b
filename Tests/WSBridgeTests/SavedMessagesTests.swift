import XCTest
@testable import WSBridge

final class SavedMessagesTests: XCTestCase {
    func testLinesAndTheirReading() {
        XCTAssertEqual(String(decoding: SavedMessages.line(name: "join", message: #"{"room":${.room}}"#), as: UTF8.self),
                       #"{"name":"join","message":"{\"room\":${.room}}"}"# + "\n")
        let contents = SavedMessages.parse(Array(("""
            {"name":"a","message":"1"}
            junk
            {"message":"2","name":"b","note":"other members are ignored"}
            {"name":"a","message":"3"}
            {"name":"","message":"4"}

            """).utf8))
        XCTAssertEqual(contents.names, ["a", "b"])
        XCTAssertEqual(contents.message(named: "a"), "3", "the last of a name wins")
        XCTAssertEqual(contents.unreadable, [2, 5])
    }

    func testDefaultPath() {
        XCTAssertEqual(SavedMessages.defaultPath(configHome: "/c", home: "/h"), "/c/wspipe/messages.ndjson")
        XCTAssertEqual(SavedMessages.defaultPath(configHome: "relative", home: "/h"), "/h/.config/wspipe/messages.ndjson")
        XCTAssertNil(SavedMessages.defaultPath(configHome: nil, home: nil))
    }

    func testTemplates() {
        var values = SavedMessageTemplate.Values()
        values.captureNames = ["sid"]
        values.capture = { $0 == "sid" ? Array("\"x\"".utf8) : nil }
        values.lastReceived = Array(#"{"room":{"id":7,"name":"dev"}}"#.utf8)
        func render(_ t: String) -> String {
            switch SavedMessageTemplate.render(t, values) {
            case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .failure(let error): return "error at \(error.offset): \(error.message)"
            }
        }
        XCTAssertEqual(render(#"{"s":${sid},"r":${.room.id},"all":${.},"none":${.nope}}"#),
                       #"{"s":"x","r":7,"all":{"room":{"id":7,"name":"dev"}},"none":null}"#)
        XCTAssertEqual(render("${other}"), "error at 0: unknown variable ${other}: ${NAME} needs --capture NAME=KEYPATH, "
                       + "${.KEYPATH} reads the last message received")
        XCTAssertEqual(render("[1, ${sid"), "error at 4: '${' without a closing '}'")
        XCTAssertEqual(render("${.a..b}"), "error at 0: empty key in ${.a..b}")
        values.lastReceived = nil
        XCTAssertEqual(render("${.room}"), "null")
    }
}
