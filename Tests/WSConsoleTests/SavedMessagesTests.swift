import Dispatch
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import WSConsole

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

    /// Saves made at the same moment (two sessions) each read the file the
    /// one before wrote: none is lost. Threads stand for the processes: a
    /// flock(2) taken through another open of the file excludes them alike.
    func testSavesAtTheSameMomentAreAllKept() {
        var template = Array("/tmp/wspipe-saved-XXXXXX".utf8CString)
        let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer { _ = system("rm -rf '\(directory)'") }
        let path = directory + "/wspipe/messages.ndjson"
        DispatchQueue.concurrentPerform(iterations: 6) { worker in
            for k in 0..<20 { _ = SavedMessages(path: path).save(name: "w\(worker)-\(k)", message: "\(k)") }
        }
        guard case .success(let contents) = SavedMessages(path: path).load() else { return XCTFail("unreadable") }
        XCTAssertEqual(contents.names.count, 120, "every save kept")
        XCTAssertEqual(contents.unreadable, [], "no line half written")
    }
}
