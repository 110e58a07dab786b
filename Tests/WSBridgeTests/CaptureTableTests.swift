import XCTest
@testable import WSBridge
import WSJSON
@testable import WSMessages

/// --capture NAME=KEYPATH and its ${NAME} in templates (wspipe(1): TEMPLATES).
final class CaptureTableTests: XCTestCase {
    private func observe(_ table: inout CaptureTable, _ text: String) {
        let bytes = Array(text.utf8)
        // observe's contract: the caller passes only valid JSON.
        XCTAssertEqual(bytes.withUnsafeBytes { JSONScanner.validate($0) }, .valid(needsCompaction: false), text)
        bytes.withUnsafeBytes { table.observe($0) }
    }

    private func value(_ table: CaptureTable, _ name: String) -> String? {
        table.value(name).map { String(decoding: $0, as: UTF8.self) }
    }

    func testEmptyTable() {
        var table = CaptureTable([])
        XCTAssertTrue(table.isEmpty)
        observe(&table, #"{"a":1}"#)
        XCTAssertNil(table.value("a"))
        XCTAssertFalse(CaptureTable([(name: "a", path: ["a"])]).isEmpty)
    }

    func testTopLevelAndNestedPaths() {
        var table = CaptureTable([(name: "session", path: ["session"]),
                                  (name: "cursor", path: ["meta", "page", "cursor"])])
        observe(&table, #"{"type":"hello","session":"abc","meta":{"page":{"cursor":{"after":17}}}}"#)
        XCTAssertEqual(value(table, "session"), #""abc""#)
        XCTAssertEqual(value(table, "cursor"), #"{"after":17}"#)
    }

    func testLatestValueWinsAndMissingPathKeepsIt() {
        var table = CaptureTable([(name: "seq", path: ["seq"])])
        XCTAssertNil(table.value("seq"))
        observe(&table, #"{"seq":1}"#)
        observe(&table, #"{"seq": 22 }"#)
        XCTAssertEqual(value(table, "seq"), "22")
        observe(&table, #"{"other":3}"#)
        XCTAssertEqual(value(table, "seq"), "22")
        observe(&table, #"{"seq":"a much longer value than before"}"#)
        XCTAssertEqual(value(table, "seq"), #""a much longer value than before""#)
        observe(&table, #"{"seq":7}"#)
        XCTAssertEqual(value(table, "seq"), "7")
    }

    func testNonObjectMessagesAreIgnored() {
        var table = CaptureTable([(name: "seq", path: ["seq"]), (name: "x", path: ["a", "b"])])
        observe(&table, #"{"seq":5,"a":{"b":true}}"#)
        for text in [#"[{"seq":9}]"#, #""seq""#, "42", "null", #"{"a":[{"b":1}]}"#, #"{"a":"b"}"#] {
            observe(&table, text)
        }
        XCTAssertEqual(value(table, "seq"), "5")
        XCTAssertEqual(value(table, "x"), "true")
    }

    func testTemplatesPutInValuesOfEveryKind() throws {
        var table = CaptureTable([(name: "s", path: ["s"]), (name: "n", path: ["n"]),
                                  (name: "o", path: ["o"]), (name: "never", path: ["never"])])
        observe(&table, #"{"s":"x\"y","n":-1.5e3,"o":{"k":[1,2]}}"#)
        XCTAssertEqual(try render(table, #"{"type":"resume","s":${s},"n":${n},"o":${o},"m":${never}}"#),
                       #"{"type":"resume","s":"x\"y","n":-1.5e3,"o":{"k":[1,2]},"m":null}"#)
    }

    func testMultipleOccurrences() throws {
        var table = CaptureTable([(name: "id", path: ["id"]), (name: "t", path: ["t"])])
        observe(&table, #"{"id":"é\u00e9","t":true}"#)
        XCTAssertEqual(try render(table, "[${id},${id},${t},${id}]"),
                       #"["é\u00e9","é\u00e9",true,"é\u00e9"]"#)
    }

    /// `template` rendered with the table's values (MessageTemplate does the substituting).
    private func render(_ table: CaptureTable, _ template: String) throws -> String {
        let parsed = try MessageTemplate(template, scope: .captures, captures: ["s", "n", "o", "never", "id", "t"])
        var values = TemplateValues()
        values.captures = table
        return String(decoding: parsed.render(values), as: UTF8.self)
    }

    func testNameGivenTwiceKeepsTheLaterPath() {
        var table = CaptureTable([(name: "v", path: ["a"]), (name: "v", path: ["b"])])
        observe(&table, #"{"a":1,"b":2}"#)
        XCTAssertEqual(value(table, "v"), "2")
    }

    func testEscapedKeysInMessagesMatch() {
        var table = CaptureTable([(name: "k", path: ["ké"])])
        observe(&table, #"{"k\u00e9":"yes"}"#)
        XCTAssertEqual(value(table, "k"), #""yes""#)
    }
}
