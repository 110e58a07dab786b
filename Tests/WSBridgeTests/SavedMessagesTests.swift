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
}
