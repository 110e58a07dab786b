import XCTest
@testable import WSConsole

final class SlashCommandTests: XCTestCase {
    private func parse(_ s: String) -> SlashCommand.Parsed { SlashCommand.parse(s) }

    private func error(_ s: String) -> String? {
        if case .error(let message, _) = parse(s) { return message }
        return nil
    }

    func testMessagesAreNotCommands() {
        XCTAssertEqual(parse(#"{"a":1}"#), .message)
        XCTAssertEqual(parse(" /ping"), .message, "only a slash in the first column")
        XCTAssertEqual(parse("//ping"), .escapedMessage("/ping"))
        XCTAssertEqual(parse("//"), .escapedMessage("/"))
    }

    func testPing() {
        XCTAssertEqual(parse("/ping"), .command(.ping("")))
        XCTAssertEqual(parse("/ping hello  there"), .command(.ping("hello  there")))
        XCTAssertEqual(parse("/ping " + String(repeating: "x", count: 125)), .command(.ping(String(repeating: "x", count: 125))))
        XCTAssertEqual(parse("/ping " + String(repeating: "x", count: 126)),
                       .error("a ping carries at most 125 bytes", offset: 6 + 125))
    }

    func testClose() {
        XCTAssertEqual(parse("/close"), .command(.close(code: 1000, reason: "")))
        XCTAssertEqual(parse("/close 4001"), .command(.close(code: 4001, reason: "")))
        XCTAssertEqual(parse("/close 1001  going away now"), .command(.close(code: 1001, reason: "going away now")))
        XCTAssertEqual(parse("/close 1012"), .command(.close(code: 1012, reason: "")))
        for bad in ["999", "1004", "1005", "1006", "1015", "2000", "5000", "abc", "-1", "70000"] {
            XCTAssertEqual(error("/close \(bad)"), "close code must be 1000-1003, 1007-1014 or 3000-4999 (not \(bad))", bad)
        }
        if case .error(_, let offset) = parse("/close  1005") { XCTAssertEqual(offset, 8, "on the code") }
        else { XCTFail() }
        XCTAssertEqual(error("/close 1000 " + String(repeating: "r", count: 124)), "a close reason has at most 123 bytes")
        XCTAssertEqual(parse("/close 1000 " + String(repeating: "r", count: 123)),
                       .command(.close(code: 1000, reason: String(repeating: "r", count: 123))))
    }

    func testBinaryTextAndTheRest() {
        XCTAssertEqual(parse("/binary  ~/a file.bin "), .command(.binary(path: "~/a file.bin")))
        XCTAssertEqual(error("/binary"), "usage: /binary FILE")
        XCTAssertEqual(parse("/text  raw {not json"), .command(.text(" raw {not json")), "text as typed after one blank")
        XCTAssertEqual(parse("/text"), .command(.text("")))
        XCTAssertEqual(parse("/text a\nb"), .command(.text("a\nb")))
        XCTAssertEqual(parse("/reconnect"), .command(.reconnect))
        XCTAssertEqual(parse("/help "), .command(.help))
        XCTAssertEqual(parse("/quit"), .command(.quit))
        XCTAssertEqual(error("/quit now"), "/quit takes no argument")
    }

    func testUnknownCommandsGetHelp() {
        XCTAssertEqual(error("/pi"), "unknown command /pi (did you mean /ping?); /help lists the commands")
        XCTAssertEqual(error("/frobnicate x"), "unknown command /frobnicate; /help lists the commands")
        XCTAssertEqual(error("/re\u{1B}[2J"), "unknown command /re\\x1b[2J; /help lists the commands")
        XCTAssertEqual(error("/"), "a line starting with / is a command (/help lists them); // sends a line starting with /")
        XCTAssertEqual(error("/ ping"), "a line starting with / is a command (/help lists them); // sends a line starting with /")
    }

    func testTranscriptAndSavedMessageCommands() {
        XCTAssertEqual(parse("/filter"), .command(.filter(nil)))
        XCTAssertEqual(parse("/filter  -type=pong  in "), .command(.filter("-type=pong  in")))
        XCTAssertEqual(parse("/find"), .command(.find("")))
        XCTAssertEqual(parse("/find two words "), .command(.find("two words")))
        XCTAssertEqual(parse("/show 12"), .command(.show(12)))
        XCTAssertEqual(error("/show"), "usage: /show N, a message's number (/find lists them)")
        XCTAssertEqual(error("/show x"), "usage: /show N, a message's number (/find lists them)")
        XCTAssertEqual(parse("/resend"), .command(.resend(nil)))
        XCTAssertEqual(parse("/resend 3"), .command(.resend(3)))
        XCTAssertEqual(error("/resend 0"), "usage: /resend [N], a sent message's number (/find out lists them)")
        XCTAssertEqual(parse("/pretty"), .command(.pretty))
        XCTAssertEqual(parse("/compact"), .command(.compact))
        XCTAssertEqual(parse("/save greet"), .command(.save(name: "greet", message: nil)))
        XCTAssertEqual(parse(#"/save join {"a": ${x}}"#), .command(.save(name: "join", message: #"{"a": ${x}}"#)))
        XCTAssertEqual(error("/save"), "usage: /save NAME [MESSAGE]; without MESSAGE, the last message sent")
        XCTAssertEqual(parse("/send"), .command(.send(name: nil)))
        XCTAssertEqual(parse("/send greet"), .command(.send(name: "greet")))
        XCTAssertEqual(error("/send a b"), "usage: /send [NAME]; a name has no blanks")
    }

    func testEveryCommandIsInTheHelp() {
        for name in SlashCommand.names {
            XCTAssertTrue(InteractiveHelp.commands.contains { $0.usage.hasPrefix("/\(name)") }, name)
        }
    }
}
