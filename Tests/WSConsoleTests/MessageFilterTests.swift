import XCTest
@testable import WSConsole

final class MessageFilterTests: XCTestCase {
    private func filter(_ expression: String, typeKey: [String] = ["type"]) -> MessageFilter {
        guard case .success(let filter) = MessageFilter.parse(expression, typeKey: typeKey) else {
            XCTFail("\(expression) did not parse")
            return try! MessageFilter.parse("in", typeKey: typeKey).get()
        }
        return filter
    }

    private func error(_ expression: String) -> String? {
        if case .failure(let error) = MessageFilter.parse(expression, typeKey: ["type"]) { return error.message }
        return nil
    }

    private func shows(_ f: MessageFilter, _ text: String, _ direction: TranscriptDirection = .received,
                       binary: Bool = false) -> Bool {
        Array(text.utf8).withUnsafeBytes { f.shows($0, binary: binary, direction: direction) }
    }

    func testTypeAndKeyPaths() {
        let chat = filter("type=chat")
        XCTAssertTrue(shows(chat, #"{"type":"chat","text":"hi"}"#))
        XCTAssertFalse(shows(chat, #"{"type":"pong"}"#))
        XCTAssertFalse(shows(chat, #"{"kind":"chat"}"#))
        XCTAssertFalse(shows(chat, "type=chat"), "text that is not JSON has no key paths")
        XCTAssertTrue(shows(filter(#"user.name="ann smith""#), #"{"user":{"name":"ann smith"}}"#))
        XCTAssertFalse(shows(filter(#"user.name="ann""#), #"{"user":{"name":"ann smith"}}"#))
        XCTAssertTrue(shows(filter(#"user.name="a\"b""#), #"{"user":{"name":"a\u0022b"}}"#), "compared unescaped")
        XCTAssertTrue(shows(filter("id=7"), #"{"id":7}"#))
        XCTAssertTrue(shows(filter("id=7"), #"{"id":"7"}"#), "a word matches a string of that text too")
        XCTAssertFalse(shows(filter(#"id="7""#), #"{"id":7}"#), "a JSON string only strings")
        XCTAssertTrue(shows(filter("done=true"), #"{"done":true}"#))
        XCTAssertTrue(shows(filter("type=tick", typeKey: ["event", "kind"]), #"{"event":{"kind":"tick"}}"#),
                      "type= reads --type-key")
    }

    func testHidingDirectionsAndText() {
        let noPongs = filter("-type=pong")
        XCTAssertFalse(shows(noPongs, #"{"type":"pong"}"#))
        XCTAssertTrue(shows(noPongs, #"{"type":"chat"}"#))
        XCTAssertTrue(shows(noPongs, "plain text"))
        XCTAssertTrue(shows(noPongs, "\u{1}", binary: true))
        XCTAssertFalse(shows(filter("in"), "{}", .sent))
        XCTAssertTrue(shows(filter("out"), "{}", .sent))
        XCTAssertFalse(shows(filter("error"), #"{"type":"chat"}"#))
        XCTAssertTrue(shows(filter("ERROR"), #"{"msg":"an Error occurred"}"#), "any ASCII case")
        XCTAssertTrue(shows(filter(#""an error""#), #"{"msg":"AN ERROR"}"#))
        XCTAssertFalse(shows(filter("error"), "error", binary: true), "binary has no text")
        XCTAssertTrue(shows(filter(#""in""#), "going in"), "quoted: text, not the direction")
    }

    func testTextIsFoundAsTheStringsReadToo() {
        // Python's json.dumps writes é as \u00e9, Go's encoding/json < as \u003c.
        XCTAssertTrue(shows(filter("café"), #"{"name":"Caf\u00e9"}"#))
        XCTAssertFalse(shows(filter("CAFÉ"), #"{"name":"caf\u00e9"}"#), "ASCII case only: É is not é")
        XCTAssertTrue(shows(filter("<b>"), #"{"html":"\u003cb\u003e"}"#))
        XCTAssertTrue(shows(filter(#""say \"hi\"""#), #"{"m":"say \u0022hi\""}"#))
        XCTAssertTrue(shows(filter(#"u00e9"#), #"{"name":"caf\u00e9"}"#), "as written, too")
        XCTAssertFalse(shows(filter("-café"), #"{"name":"caf\u00e9"}"#), "hiding reads the same text")
        XCTAssertFalse(shows(filter("café"), #"caf\u00e9 is not JSON"#), "text that is not JSON: as written only")
    }

    func testTermsCombine() {
        let chatOrJoin = filter("type=chat type=join")
        XCTAssertTrue(shows(chatOrJoin, #"{"type":"chat"}"#))
        XCTAssertTrue(shows(chatOrJoin, #"{"type":"join"}"#))
        XCTAssertFalse(shows(chatOrJoin, #"{"type":"pong"}"#))
        let both = filter("error timeout")
        XCTAssertTrue(shows(both, #"{"m":"timeout error"}"#))
        XCTAssertFalse(shows(both, #"{"m":"timeout"}"#))
        let inChat = filter("in type=chat -room=lobby")
        XCTAssertTrue(shows(inChat, #"{"type":"chat","room":"dev"}"#))
        XCTAssertFalse(shows(inChat, #"{"type":"chat","room":"lobby"}"#))
        XCTAssertFalse(shows(inChat, #"{"type":"chat","room":"dev"}"#, .sent))
        XCTAssertEqual(filter("  in   -type=pong ").source, "in -type=pong")
    }

    func testErrorsNameTheTerm() {
        XCTAssertEqual(error(""), "an empty filter")
        XCTAssertEqual(error("a..b=1"), "a..b: a key path is keys separated by dots")
        XCTAssertEqual(error("type="), #"type=: no value after = (type="" for an empty string)"#)
        XCTAssertEqual(error(#"name="ann"#), #""ann is not a JSON string (write \" for a quote inside)"#)
        XCTAssertEqual(error(#""open"#), #""open is not a JSON string (write \" for a quote inside)"#)
    }

    func testWords() {
        XCTAssertEqual(MessageFilter.words(#"a "b c" d="e f" "g\"h i""#), ["a", #""b c""#, #"d="e f""#, #""g\"h i""#])
    }
}
