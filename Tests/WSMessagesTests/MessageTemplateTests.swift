import XCTest
@testable import WSJSON
@testable import WSMessages

/// Templates (wspipe(1): TEMPLATES): variables put in as JSON, and the
/// start-up check that refuses, with its position, a template that would not
/// stay JSON.
final class MessageTemplateTests: XCTestCase {
    private let every: TemplateScope = [.captures, .message, .line]

    private struct Captures: TemplateCaptures {
        var values: [String: String]
        func value(_ name: String) -> [UInt8]? { values[name].map { Array($0.utf8) } }
    }

    private func render(_ text: String, scope: TemplateScope? = nil, captures: [String: String] = [:],
                        message: String? = nil, line: [UInt8]? = nil, seq: Int = 0, nowMs: Int64 = 0) throws -> String {
        let template = try MessageTemplate(text, scope: scope ?? every, captures: Array(captures.keys))
        var values = TemplateValues(seq: seq, nowMs: nowMs)
        values.captures = Captures(values: captures)
        let messageBytes = message.map { Array($0.utf8) } ?? []
        let lineBytes = line ?? []
        return messageBytes.withUnsafeBytes { m in
            lineBytes.withUnsafeBytes { l in
                values.message = message == nil ? nil : m
                values.line = line == nil ? nil : l
                return String(decoding: template.render(values), as: UTF8.self)
            }
        }
    }

    private func refusal(_ text: String, scope: TemplateScope? = nil, captures: [String] = [],
                         file: StaticString = #filePath, line: UInt = #line) -> TemplateError? {
        do {
            _ = try MessageTemplate(text, scope: scope ?? every, captures: captures)
            XCTFail("accepted: \(text)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    // MARK: values

    func testEveryVariable() throws {
        XCTAssertEqual(try render(#"{"s":${seq},"t":${now_ms},"c":${sid},"f":${.a.b},"l":${line}}"#,
                                  captures: ["sid": #""abc""#], message: #"{"a":{"b":[1, 2]}}"#,
                                  line: Array("hi".utf8), seq: 7, nowMs: 1_700_000_000_123),
                       #"{"s":7,"t":1700000000123,"c":"abc","f":[1, 2],"l":"hi"}"#)
    }

    /// `${env:NAME}`: a JSON string of the value read at start, so a quote
    /// or a backslash in it cannot break the JSON (was: '"$VAR"' spliced in).
    func testEnvironmentVariablesAreJSONStrings() throws {
        let environment = ["TOKEN": "a\"b\\c\td", "EMPTY": ""]
        let template = try MessageTemplate(#"{"t":${env:TOKEN},"e":${env:EMPTY}}"#, scope: [],
                                           environment: { environment[$0] })
        XCTAssertEqual(String(decoding: template.render(TemplateValues()), as: UTF8.self),
                       #"{"t":"a\"b\\c\td","e":""}"#)
        XCTAssertEqual(template.variables, [.environment("TOKEN"), .environment("EMPTY")])
        XCTAssertThrowsError(try MessageTemplate(#"{"t":${env:NOPE}}"#, scope: [], environment: { environment[$0] })) {
            XCTAssertTrue("\($0)".contains("${env:NOPE}: NOPE is not set in the environment"), "\($0)")
        }
        XCTAssertThrowsError(try MessageTemplate(#"{"t":"x${env:TOKEN}"}"#, scope: [], environment: { environment[$0] }),
                             "a string, so not inside one")
        XCTAssertThrowsError(try MessageTemplate(#"{"t":${env:1X}}"#, scope: [], environment: { _ in "v" }))
    }

    func testMissingValuesAreNull() throws {
        XCTAssertEqual(try render(#"[${.nope},${.a.b},${line}]"#, message: #"{"a":1}"#), "[null,null,null]")
        let template = try MessageTemplate("[${x}]", scope: .captures, captures: ["x"])
        XCTAssertEqual(String(decoding: template.render(TemplateValues()), as: UTF8.self), "[null]")
    }

    func testWholeMessageAndEscapedKeys() throws {
        XCTAssertEqual(try render(#"{"echo":${.}}"#, message: #" {"k\u00e9":"v"} "#), #"{"echo":{"k\u00e9":"v"}}"#)
        XCTAssertEqual(try render(#"${.ké}"#, message: #"{"k\u00e9":"v"}"#), #""v""#)
    }

    /// ${line} is a JSON string whatever the line holds.
    func testLineIsEncodedAsAJSONString() throws {
        let line = Array("say \"hi\" \\ back\tslash 😀 \u{1}\u{7F} é".utf8)
        let text = try render(#"{"text":${line}}"#, line: line)
        XCTAssertEqual(text, #"{"text":"say \"hi\" \\ back\tslash 😀 \u0001\#u{7F} é"}"#)
        let bytes = Array(text.utf8)
        XCTAssertEqual(bytes.withUnsafeBytes { JSONScanner.validate($0) }, .valid(needsCompaction: false))
        let range = try XCTUnwrap(bytes.withUnsafeBytes { JSONScanner.valueRange(atPath: [Array("text".utf8)], in: $0) })
        var unescaped: [UInt8] = []
        bytes[range].withUnsafeBytes { JSONScanner.appendUnescaped(stringToken: $0, into: &unescaped) }
        XCTAssertEqual(unescaped, line)
    }

    func testNumbersMayStandInsideAString() throws {
        XCTAssertEqual(try render(#"{"id":"req-${seq}","at":"${now_ms}ms"}"#, seq: 12, nowMs: 5),
                       #"{"id":"req-12","at":"5ms"}"#)
    }

    func testUsesSeq() throws {
        XCTAssertTrue(try MessageTemplate(#"{"a":${seq}}"#, scope: []).usesSeq)
        XCTAssertFalse(try MessageTemplate(#"{"a":${now_ms}}"#, scope: []).usesSeq)
        XCTAssertEqual(try MessageTemplate(#"[${seq},${.a},${line}]"#, scope: every).variables,
                       [.seq, .field(["a"]), .line])
    }

    func testDollarWithoutBraceIsText() throws {
        XCTAssertEqual(try render(#"{"price":"$5","a$":"$"}"#), #"{"price":"$5","a$":"$"}"#)
        XCTAssertEqual(try render(#"{"lit":"\u0024{x}"}"#), #"{"lit":"\u0024{x}"}"#)
    }

    /// Random values, random lines: every template that passes the check
    /// renders to valid JSON.
    func testRenderedTemplatesAreAlwaysJSON() throws {
        // The same sequence on every run (a linear congruential generator).
        var state: UInt64 = 23
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let values = [#""a\"b""#, "-1.5e3", "true", "null", #"{"k":[1,{}]}"#, "[]", #""""#, "0"]
        let templates = [#"{"a":${c}}"#, #"[${c},${line},${seq}]"#, #"{"k":${.x},"l":${line},"n":"n${seq}"}"#,
                         #"${c}"#, #"  [ ${line} , ${now_ms} ]  "#, #"{${line}:${c}}"#]
        for text in templates {
            let template = try MessageTemplate(text, scope: every, captures: ["c"])
            for _ in 0 ..< 50 {
                var line: [UInt8] = []
                for _ in 0 ..< next(12) { line.append(UInt8(next(0x80))) }
                line += Array("é😀".utf8)
                let message = Array((#"{"x":"# + values[next(values.count)] + "}").utf8)
                var v = TemplateValues(seq: 1 + next(1_000_000), nowMs: 1_700_000_000_000)
                v.captures = Captures(values: ["c": values[next(values.count)]])
                let rendered = message.withUnsafeBytes { m in
                    line.withUnsafeBytes { l in
                        v.message = m
                        v.line = l
                        return template.render(v)
                    }
                }
                XCTAssertTrue(rendered.withUnsafeBytes { JSONScanner.validate($0) }.isValid, String(decoding: rendered, as: UTF8.self))
            }
        }
    }

    // MARK: the start-up check

    func testNotJSONIsRefusedWithItsColumn() {
        let error = refusal(#"{"type":"pong","id":${.id}"#)
        XCTAssertEqual(error?.column, 27)
        XCTAssertEqual(error?.reason, "not valid JSON: unexpected end of input")
        XCTAssertEqual(refusal(#"{"a":1,}"#)?.column, 8)
        XCTAssertEqual(refusal("")?.reason, "not valid JSON: empty input")
    }

    func testAVariableInsideAStringIsRefusedAtIt() {
        let error = refusal(#"{"text":"${line}"}"#)
        XCTAssertEqual(error?.column, 10)
        XCTAssertTrue(error?.reason.contains("in place of ${line}") ?? false, error?.reason ?? "")
        XCTAssertTrue(error?.reason.contains("cannot be put inside a string") ?? false, error?.reason ?? "")
        XCTAssertEqual(refusal(#"{"a":"x${c}"}"#, captures: ["c"])?.column, 8)
        XCTAssertEqual(refusal(#"{"a":"${.id}"}"#)?.column, 7)
    }

    /// A value that may be anything cannot be a key, or follow a number or a sign.
    func testAnyValueOnlyWhereAValueStands() {
        XCTAssertEqual(refusal(#"{${c}:1}"#, captures: ["c"])?.column, 2)
        XCTAssertEqual(refusal(#"[-${c}]"#, captures: ["c"])?.column, 3)
        XCTAssertEqual(refusal(#"[1${c}]"#, captures: ["c"])?.column, 3)
        XCTAssertEqual(refusal(#"[${c}${c}]"#, captures: ["c"])?.column, 6)
        XCTAssertEqual(refusal(#"{${seq}:1}"#)?.column, 2)
        XCTAssertNoThrow(try MessageTemplate(#"{${line}:1}"#, scope: .line), "a line is always a string")
    }

    func testUnknownMalformedAndOutOfScopeVariables() {
        XCTAssertEqual(refusal(#"{"a":${foo}}"#, captures: ["bar"])?.reason,
                       #"unknown variable ${foo} (no --capture foo; write \u0024 for a literal $ in a string)"#)
        XCTAssertTrue(refusal(#"{"a":${foo}}"#, scope: [])?.reason.hasPrefix("unknown variable ${foo} (here: ${seq}, ${now_ms};") ?? false)
        XCTAssertTrue(refusal(#"{"a":${line}}"#, scope: .captures)?.reason.hasPrefix("${line} is the stdin line") ?? false)
        XCTAssertTrue(refusal(#"{"a":${.id}}"#, scope: .line)?.reason.hasPrefix("${.id} reads the message") ?? false)
        XCTAssertTrue(refusal(#"{"a":${}}"#)?.reason.hasPrefix("malformed variable ${}") ?? false)
        XCTAssertTrue(refusal(#"{"a":${1x}}"#)?.reason.hasPrefix("malformed variable ${1x}") ?? false)
        XCTAssertEqual(refusal(#"{"a":${.a..b}}"#)?.reason, "empty key in ${.a..b}")
        let unclosed = refusal(#"{"a":${seq"#)
        XCTAssertEqual(unclosed?.column, 6)
        XCTAssertTrue(unclosed?.reason.hasPrefix("'${' without a closing '}'") ?? false)
    }

    func testPositionsCountCharactersAndLines() {
        let error = refusal("{\"é\":${c},\n \"b\":${c}x}", captures: ["c"])
        XCTAssertEqual(error?.line, 2)
        XCTAssertEqual(error?.column, 10)
        XCTAssertEqual(error?.description, "line 2, column 10: not valid JSON: expected ',' or '}' after object member")
        XCTAssertEqual(refusal(#"{"é😀":${nope}}"#)?.column, 7)
    }
}
