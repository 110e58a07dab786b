import XCTest
@testable import WSBridge

/// --check's comparison (wspipe(1): CHECKING A SERVER): JSON as values,
/// the first difference in KEYPATH notation, matchers, captures and --ignore.
final class MessageComparisonTests: XCTestCase {
    private func expected(_ json: String, captures: Set<String> = []) throws -> ExpectedMessage {
        var names = captures
        return .json(try ExpectedValue.expected(try JSONTree.parse(Array(json.utf8)), captures: &names))
    }

    private func compare(_ expectedJSON: String, _ actual: String, ignoring: [[String]] = [],
                         comparison: inout MessageComparison) throws -> Difference? {
        let message = try expected(expectedJSON, captures: Set(comparison.captures.keys))
        return Array(actual.utf8).withUnsafeBytes { comparison.compare(message, .text($0)) }
    }

    private func difference(_ expectedJSON: String, _ actual: String, ignoring: [[String]] = []) throws -> Difference? {
        var comparison = MessageComparison(ignores: ignoring.map { KeyPathPattern($0) })
        return try compare(expectedJSON, actual, comparison: &comparison)
    }

    private func text(_ bytes: [UInt8]?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }

    func testValuesNotSpellings() throws {
        XCTAssertNil(try difference(#"{"a":1,"b":[true,null,"x"]}"#, " {\"b\" : [ true , null , \"x\" ] ,\n \"a\" : 1.0 } "))
        XCTAssertNil(try difference(#"{"n":150}"#, #"{"n":1.50e2}"#))
        XCTAssertNil(try difference(#"{"n":0}"#, #"{"n":-0.0}"#))
        XCTAssertNil(try difference(#"{"n":0.05}"#, #"{"n":5E-2}"#))
        XCTAssertNil(try difference(#"{"s":"é\n"}"#, #"{"s":"\u00e9\u000a"}"#))
        XCTAssertNil(try difference("42", " 42 "))
        XCTAssertNil(try difference(#"{"n":123456789012345678901234567890}"#, #"{"n":1.23456789012345678901234567890e29}"#))
        XCTAssertNotNil(try difference(#"{"n":123456789012345678901234567890}"#, #"{"n":123456789012345678901234567891}"#))
    }

    func testTheFirstDifferenceAndItsPath() throws {
        var d = try XCTUnwrap(try difference(#"{"type":"joined","room":{"topic":"general","users":2}}"#,
                                              #"{"room":{"users":3,"topic":"random"},"type":"joined"}"#))
        // In the recording's order: topic comes before users.
        XCTAssertEqual(d.path.description, "room.topic")
        XCTAssertEqual(d.kind, .differs)
        XCTAssertEqual(text(d.expected), #""general""#)
        XCTAssertEqual(text(d.actual), #""random""#)

        d = try XCTUnwrap(try difference(#"{"items":[{"ts":1},{"ts":2},{"ts":3}]}"#, #"{"items":[{"ts":1},{"ts":2},{"ts":4}]}"#))
        XCTAssertEqual(d.path.description, "items.2.ts")

        d = try XCTUnwrap(try difference(#"{"a":1,"b":2}"#, #"{"a":1}"#))
        XCTAssertEqual(d.path.description, "b")
        XCTAssertEqual(d.kind, .missing)
        XCTAssertNil(d.actual)

        d = try XCTUnwrap(try difference(#"{"a":1}"#, #"{"z":0,"a":1,"y":[1, 2]}"#))
        XCTAssertEqual(d.path.description, "z")
        XCTAssertEqual(d.kind, .extra)
        XCTAssertNil(d.expected)

        // A missing key of the recording comes before a key the message adds.
        d = try XCTUnwrap(try difference(#"{"a":1,"b":2}"#, #"{"x":1,"a":1}"#))
        XCTAssertEqual(d.path.description, "b")

        d = try XCTUnwrap(try difference(#"[1,2]"#, #"[1,2,3]"#))
        XCTAssertEqual(d.path.description, "2")
        XCTAssertEqual(d.kind, .extra)
        d = try XCTUnwrap(try difference(#"[1,2,3]"#, #"[1]"#))
        XCTAssertEqual(d.path.description, "1")
        XCTAssertEqual(d.kind, .missing)

        d = try XCTUnwrap(try difference(#"{"a":{"b":1}}"#, #"{"a":[1]}"#))
        XCTAssertEqual(d.path.description, "a")
        XCTAssertEqual(text(d.actual), "[1]")
        d = try XCTUnwrap(try difference(#"{"a":"1"}"#, #"{"a":1}"#))
        XCTAssertEqual(d.path.description, "a")
        d = try XCTUnwrap(try difference(#"{"a":true}"#, #"{"a":false}"#))
        XCTAssertEqual(text(d.actual), "false")
        d = try XCTUnwrap(try difference(#"{"a":1}"#, "[]"))
        XCTAssertTrue(d.path.isRoot)
        XCTAssertEqual(d.path.description, "(the whole message)")
    }

    func testMatchers() throws {
        XCTAssertNil(try difference(#"{"id":"${any}","n":"${number}","s":"${string}"}"#, #"{"id":{"x":[1]},"n":-2.5e3,"s":""}"#))
        var d = try XCTUnwrap(try difference(#"{"n":"${number}"}"#, #"{"n":"12"}"#))
        XCTAssertEqual(d.wanted, "a number")
        XCTAssertEqual(text(d.expected), #""${number}""#)
        d = try XCTUnwrap(try difference(#"{"s":"${string}"}"#, #"{"s":null}"#))
        XCTAssertEqual(d.wanted, "a string")
        // ${any} still needs the key.
        d = try XCTUnwrap(try difference(#"{"id":"${any}"}"#, #"{}"#))
        XCTAssertEqual(d.kind, .missing)
        XCTAssertNil(try difference(#"{"at":"${re:\\d{4}-\\d{2}-\\d{2}T.*Z}"}"#, #"{"at":"2026-11-28T10:00:00Z"}"#))
        d = try XCTUnwrap(try difference(#"{"at":"${re:\\d+}"}"#, #"{"at":"12a"}"#))
        XCTAssertEqual(d.wanted, #"a string matching /\d+/"#)
        // The string is unescaped before it is matched.
        XCTAssertNil(try difference(#"{"t":"${re:a\"b}"}"#, #"{"t":"a\u0022b"}"#))
        // $${...} is the text itself.
        XCTAssertNil(try difference(#"{"t":"$${any}"}"#, #"{"t":"${any}"}"#))
        XCTAssertNotNil(try difference(#"{"t":"$${any}"}"#, #"{"t":"x"}"#))
    }

    func testMatcherErrors() {
        var names: Set<String> = []
        for (json, reason) in [(#"{"a":"${nope!}"}"#, "is no matcher"), (#"{"a":"${sid}"}"#, "no \"${capture:sid}\""),
                               (#"{"a":"${re:(}"}"#, "regular expression"), (#"{"a":"${capture:1x}"}"#, "letters")] {
            XCTAssertThrowsError(try ExpectedValue.expected(try JSONTree.parse(Array(json.utf8)), captures: &names)) { error in
                let text = (error as? ExpectedValue.MatcherError)?.reason ?? "\(error)"
                XCTAssertTrue(text.contains(reason), "\(json): \(text)")
            }
        }
    }

    func testCapturesAreKeptOnlyWhenTheMessageMatches() throws {
        var comparison = MessageComparison(ignores: [])
        // Bound in a message that fails: not kept.
        XCTAssertNotNil(try compare(#"{"sid":"${capture:sid}","ok":true}"#, #"{"sid":"abc","ok":false}"#, comparison: &comparison))
        XCTAssertNil(comparison.captures["sid"])
        XCTAssertNil(try compare(#"{"sid":"${capture:sid}","ok":true}"#, #"{"sid": {"k": [1, 2]},"ok":true}"#,
                                 comparison: &comparison))
        XCTAssertEqual(text(comparison.captures["sid"]?.json), #"{"k":[1,2]}"#)
        XCTAssertNil(try compare(#"{"again":"${sid}"}"#, #"{"again":{"k":[1,2.0]}}"#, comparison: &comparison))
        let d = try XCTUnwrap(try compare(#"{"again":"${sid}"}"#, #"{"again":{"k":[1]}}"#, comparison: &comparison))
        XCTAssertEqual(d.path.description, "again")
        XCTAssertTrue(d.wanted?.contains("captured as sid") == true)
    }

    func testIgnore() throws {
        XCTAssertNil(try difference(#"{"ts":1,"a":1}"#, #"{"ts":2,"a":1}"#, ignoring: [["ts"]]))
        XCTAssertNil(try difference(#"{"a":1}"#, #"{"ts":2,"a":1}"#, ignoring: [["ts"]]))
        XCTAssertNil(try difference(#"{"ts":1,"a":1}"#, #"{"a":1}"#, ignoring: [["ts"]]))
        XCTAssertNil(try difference(#"{"items":[{"ts":1,"v":1},{"ts":2,"v":2}]}"#,
                                    #"{"items":[{"ts":9,"v":1},{"v":2}]}"#, ignoring: [["items", "*", "ts"]]))
        let d = try XCTUnwrap(try difference(#"{"items":[{"ts":1,"v":1}]}"#, #"{"items":[{"ts":9,"v":2}]}"#,
                                             ignoring: [["items", "*", "ts"]]))
        XCTAssertEqual(d.path.description, "items.0.v")
        XCTAssertNil(try difference(#"{"m":{"1":"x"},"l":[0,1]}"#, #"{"m":{"1":"y"},"l":[0,5]}"#,
                                    ignoring: [["m", "1"], ["l", "1"]]))
        XCTAssertNil(try difference(#"[1,2]"#, #"[1,2,3]"#, ignoring: [["2"]]))
    }

    func testTextAndBinary() {
        var comparison = MessageComparison(ignores: [])
        let hello = Array("hello".utf8)
        XCTAssertNil(hello.withUnsafeBytes { comparison.compare(.text(hello), .text($0)) })
        XCTAssertNotNil(Array("hello ".utf8).withUnsafeBytes { comparison.compare(.text(hello), .text($0)) })
        XCTAssertNil([UInt8](arrayLiteral: 0, 1).withUnsafeBytes { comparison.compare(.binary([0, 1]), .binary($0)) })
        let d = [UInt8](arrayLiteral: 0, 2).withUnsafeBytes { comparison.compare(.binary([0, 1]), .binary($0)) }
        XCTAssertEqual(text(d?.actual), #"{"$binary":"AAI="}"#)
        XCTAssertEqual(text(d?.expected), #"{"$binary":"AAE="}"#)
        let kind = hello.withUnsafeBytes { comparison.compare(.binary([0]), .text($0)) }
        XCTAssertEqual(kind?.wanted, "a binary message")
        let notJSON = hello.withUnsafeBytes { comparison.compare(.json(.null), .text($0)) }
        XCTAssertEqual(notJSON?.wanted, "a JSON message")
        XCTAssertEqual(text(notJSON?.actual), #"{"$text":"hello"}"#)
    }

    /// A message much larger or deeper than the recording is walked, not built.
    func testLargeAndDeepMessages() throws {
        // As deep as JSON is read anywhere in wspipe (WSJSON's nesting limit).
        let deep = String(repeating: "[", count: 9_000) + String(repeating: "]", count: 9_000)
        let d = try XCTUnwrap(try difference(#"{"a":1}"#, #"{"a":1,"deep":"# + deep + "}"))
        XCTAssertEqual(d.path.description, "deep")
        XCTAssertTrue(text(d.actual)!.hasSuffix("… (18000 bytes)"))
        XCTAssertNil(try difference(#"{"a":1,"deep":"${any}"}"#, #"{"a":1,"deep":"# + deep + "}"))
    }
}
