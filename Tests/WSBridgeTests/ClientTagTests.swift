import XCTest
@testable import WSBridge

final class ClientTagTests: XCTestCase {
    // MARK: insert (stdout lines)

    /// The line after `prefix` (an earlier line in the same buffer) once tagged.
    private func tagged(_ line: String, client: Int = 3, prefix: String = "",
                        file: StaticString = #filePath, lineNumber: UInt = #line) -> (String, Bool) {
        var buffer = Array(prefix.utf8) + Array(line.utf8)
        let done = ClientTag.insert(client: client, into: &buffer, lineStart: prefix.utf8.count)
        let text = String(decoding: buffer, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix(prefix), "earlier bytes changed", file: file, line: lineNumber)
        return (String(text.dropFirst(prefix.count)), done)
    }

    func testInsertPutsTheMemberFirst() {
        XCTAssertEqual(tagged("{\"type\":\"chat\",\"text\":\"hi\"}\n").0, "{\"$client\":3,\"type\":\"chat\",\"text\":\"hi\"}\n")
    }

    func testInsertIntoAnEmptyObjectHasNoComma() {
        XCTAssertEqual(tagged("{}\n").0, "{\"$client\":3}\n")
        XCTAssertEqual(tagged("{ }\n").0, "{ \"$client\":3}\n")
        XCTAssertEqual(tagged("{\n}\n").0, "{\n\"$client\":3}\n")
    }

    func testInsertKeepsWhitespaceAroundTheObject() {
        XCTAssertEqual(tagged("  {\"a\":1}\n").0, "  {\"$client\":3,\"a\":1}\n")
        XCTAssertEqual(tagged("\t{ \"a\" : 1 }\n").0, "\t{ \"$client\":3,\"a\" : 1 }\n")
    }

    func testInsertTagsTheEnvelopes() {
        XCTAssertEqual(tagged("{\"$text\":\"not json\"}\n", client: 12).0, "{\"$client\":12,\"$text\":\"not json\"}\n")
        XCTAssertEqual(tagged("{\"$binary\":\"AAE=\"}\n", client: 7).0, "{\"$client\":7,\"$binary\":\"AAE=\"}\n")
    }

    func testInsertWritesEveryDigit() {
        XCTAssertEqual(tagged("{}\n", client: 1).0, "{\"$client\":1}\n")
        XCTAssertEqual(tagged("{}\n", client: 10).0, "{\"$client\":10}\n")
        XCTAssertEqual(tagged("{}\n", client: 9_876_543_210).0, "{\"$client\":9876543210}\n")
    }

    func testInsertLeavesNonObjectsAlone() {
        for line in ["[1,2]\n", "\"text\"\n", "42\n", "true\n", "null\n", "  [{\"a\":1}]\n", "", "\n"] {
            let (out, done) = tagged(line)
            XCTAssertFalse(done, line)
            XCTAssertEqual(out, line)
        }
    }

    func testInsertOnlyTouchesTheLastLine() {
        let (out, done) = tagged("{\"n\":2}\n", prefix: "{\"n\":1}\n")
        XCTAssertTrue(done)
        XCTAssertEqual(out, "{\"$client\":3,\"n\":2}\n")
    }

    func testInsertIntoALongLine() {
        let body = String(repeating: "x", count: 100_000)
        XCTAssertEqual(tagged("{\"a\":\"\(body)\"}\n").0, "{\"$client\":3,\"a\":\"\(body)\"}\n")
    }

    // MARK: address (stdin lines)

    /// (client, the line without the member), or nil when there is no member.
    private func stripped(_ json: String) -> (Int?, String)? {
        let bytes = Array(json.utf8)
        return bytes.withUnsafeBytes { raw -> (Int?, String)? in
            guard let address = ClientTag.address(in: raw) else { return nil }
            var out: [UInt8] = []
            ClientTag.appendRemoving(address.removal, from: raw, into: &out)
            return (address.client, String(decoding: out, as: UTF8.self))
        }
    }

    private func assertStripped(_ json: String, client: Int?, _ rest: String,
                                file: StaticString = #filePath, line: UInt = #line) {
        guard let (found, out) = stripped(json) else {
            XCTFail("no $client member found in \(json)", file: file, line: line)
            return
        }
        XCTAssertEqual(found, client, file: file, line: line)
        XCTAssertEqual(out, rest, file: file, line: line)
    }

    func testFirstMemberIsRemovedWithItsComma() {
        assertStripped(#"{"$client":3,"type":"chat","text":"hi"}"#, client: 3, #"{"type":"chat","text":"hi"}"#)
    }

    func testOnlyMemberLeavesAnEmptyObject() {
        assertStripped(#"{"$client":3}"#, client: 3, "{}")
        assertStripped(#"{ "$client" : 3 }"#, client: 3, "{}")
    }

    func testMiddleAndLastMembers() {
        assertStripped(#"{"a":1,"$client":2,"b":[3]}"#, client: 2, #"{"a":1,"b":[3]}"#)
        assertStripped(#"{"a":1,"$client":2}"#, client: 2, #"{"a":1}"#)
        assertStripped(#"{"a":1 , "$client":2 }"#, client: 2, #"{"a":1 }"#)
    }

    func testWhitespaceVariants() {
        assertStripped(#"{ "$client" : 14 , "a" : 1 }"#, client: 14, #"{ "a" : 1 }"#)
        assertStripped(#"{"$client":14, "a":1}"#, client: 14, #"{"a":1}"#)
        assertStripped("{\n  \"$client\": 5,\n  \"a\": 1\n}", client: 5, "{\n  \"a\": 1\n}")
        assertStripped("{\"a\":1,\n  \"$client\": 5\n}", client: 5, "{\"a\":1\n}")
        assertStripped("\t{\"$client\":5,\"a\":1}  ", client: 5, "\t{\"a\":1}  ")
    }

    func testEscapedKeysMatchAfterUnescaping() {
        assertStripped(#"{"\u0024client":4,"a":1}"#, client: 4, #"{"a":1}"#)
        assertStripped(#"{"a\"":1,"$cl\u0069ent":4}"#, client: 4, #"{"a\"":1}"#)
        XCTAssertNil(stripped(#"{"\"$client":4}"#))
        XCTAssertNil(stripped(#"{"$client\\":4}"#))
    }

    func testRestIsUnchangedByteForByte() {
        assertStripped(#"{"$client":1,"x":{"$client":9},"y":"\u00e9 \"q\" é","z":1.50e+3}"#, client: 1,
                       #"{"x":{"$client":9},"y":"\u00e9 \"q\" é","z":1.50e+3}"#)
    }

    func testNestedMembersDoNotAddress() {
        XCTAssertNil(stripped(#"{"a":{"$client":1}}"#))
        XCTAssertNil(stripped(#"[{"$client":1}]"#))
        XCTAssertNil(stripped(#"{"a":"$client","b":1}"#))
    }

    func testNonObjectsDoNotAddress() {
        for json in ["[1]", "\"$client\"", "3", "null", "", "{}", #"{"client":1}"#] {
            XCTAssertNil(stripped(json), json)
        }
    }

    func testValuesThatAreNotClientNumbers() {
        assertStripped(#"{"$client":"3","a":1}"#, client: nil, #"{"a":1}"#)
        assertStripped(#"{"$client":-1}"#, client: nil, "{}")
        assertStripped(#"{"$client":1.5}"#, client: nil, "{}")
        assertStripped(#"{"$client":3e0}"#, client: nil, "{}")
        assertStripped(#"{"$client":03}"#, client: nil, "{}")
        assertStripped(#"{"$client":null}"#, client: nil, "{}")
        assertStripped(#"{"$client":1234567890123456789}"#, client: nil, "{}")
        assertStripped(#"{"$client":0}"#, client: 0, "{}")
    }

    func testValueRangeIsTheRawValue() {
        let json = Array(#"{"a":1, "$client" : "x\"y" }"#.utf8)
        json.withUnsafeBytes { raw in
            let address = ClientTag.address(in: raw)
            XCTAssertEqual(address.map { String(decoding: raw[$0.value], as: UTF8.self) }, #""x\"y""#)
        }
    }

    func testFirstDuplicateWins() {
        assertStripped(#"{"$client":1,"$client":2}"#, client: 1, #"{"$client":2}"#)
    }

    func testRoundTripOfInsertAndStrip() {
        for line in [#"{"type":"chat"}"#, "{}", #"{ "a" : [1, {"b":2}] }"#, #"{"$text":"hi"}"#, "\t{\t\"a\":1}"] {
            var buffer = Array(line.utf8)
            XCTAssertTrue(ClientTag.insert(client: 42, into: &buffer, lineStart: 0))
            let back = buffer.withUnsafeBytes { raw -> String? in
                guard let address = ClientTag.address(in: raw), address.client == 42 else { return nil }
                var out: [UInt8] = []
                ClientTag.appendRemoving(address.removal, from: raw, into: &out)
                return String(decoding: out, as: UTF8.self)
            }
            XCTAssertEqual(back, line)
        }
    }
}

/// --tag: a client's own top-level "$client" is removed before ours goes first.
final class ClientTagSpoofTests: XCTestCase {
    private func stripped(_ json: String) -> String? {
        Array(json.utf8).withUnsafeBytes { ClientTag.removingClientMembers(from: $0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    func testEveryTopLevelMemberGoesHoweverSpelled() {
        XCTAssertEqual(stripped(#"{"type":"whoami","$client":1}"#), #"{"type":"whoami"}"#)
        XCTAssertEqual(stripped(#"{"$client":1,"type":"x","$client":"2"}"#), #"{"type":"x"}"#)
        XCTAssertEqual(stripped(#"{"\u0024client":1,"a":2}"#), #"{"a":2}"#)
        XCTAssertEqual(stripped(#"{"$clien\u0074":1}"#), "{}")
        XCTAssertEqual(stripped(#"{ "a" : 1 , "$client" : {"x":[1]} }"#), #"{ "a" : 1 }"#)
    }

    func testOthersAreLeftAlone() {
        XCTAssertNil(stripped(#"{"type":"chat","text":"$client"}"#), "a value, not a key")
        XCTAssertNil(stripped(#"{"inner":{"$client":1}}"#), "not at the top level")
        XCTAssertNil(stripped(#"{"$clients":1,"\u00e9":2}"#))
        XCTAssertNil(stripped(#"[{"$client":1}]"#))
    }

    /// With ours put first, the line has one "$client", ours: what a jq or
    /// Python reader (last duplicate wins) sees is the true client.
    func testTheTaggedLineNamesTheSender() {
        var line = Array(stripped(#"{"type":"whoami","$client":1}"#)!.utf8) + [10]
        XCTAssertTrue(ClientTag.insert(client: 2, into: &line, lineStart: 0))
        XCTAssertEqual(String(decoding: line, as: UTF8.self), "{\"$client\":2,\"type\":\"whoami\"}\n")
    }
}
