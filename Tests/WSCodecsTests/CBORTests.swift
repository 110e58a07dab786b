import WSCodecs
import XCTest

/// CBOR to JSON and back, against the examples of RFC 8949 Appendix A.
final class CBORTests: XCTestCase {
    let codec = Transcoder(.cbor, maxJSONBytes: 1 << 20)

    func assertDecodes(_ hexBytes: String, _ json: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try codec.json(bytes(hexBytes)).get(), json, hexBytes, file: file, line: line)
    }

    func assertEncodes(_ json: String, _ hexBytes: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try codec.message(json).map(hex).get(), hex(bytes(hexBytes)), json, file: file, line: line)
    }

    /// Decoded as the RFC's diagnostic notation says, and (when `exact`)
    /// encoded back to the same bytes: the RFC's examples use the
    /// preferred serialization wspipe writes, except for floats (wspipe
    /// writes float 64) and indefinite lengths.
    func assertBothWays(_ hexBytes: String, _ json: String, file: StaticString = #filePath, line: UInt = #line) {
        assertDecodes(hexBytes, json, file: file, line: line)
        assertEncodes(json, hexBytes, file: file, line: line)
    }

    func testAppendixAIntegers() {
        assertBothWays("00", "0")
        assertBothWays("01", "1")
        assertBothWays("0a", "10")
        assertBothWays("17", "23")
        assertBothWays("18 18", "24")
        assertBothWays("18 19", "25")
        assertBothWays("18 64", "100")
        assertBothWays("19 03e8", "1000")
        assertBothWays("1a 000f4240", "1000000")
        assertBothWays("1b 000000e8d4a51000", "1000000000000")
        assertDecodes("1b ffffffffffffffff", #"{"$int":"18446744073709551615"}"#)
        assertEncodes("18446744073709551615", "1b ffffffffffffffff")
        assertBothWays("c2 49 010000000000000000", #"{"$int":"18446744073709551616"}"#)
        assertEncodes("18446744073709551616", "c2 49 010000000000000000")
        assertDecodes("3b ffffffffffffffff", #"{"$int":"-18446744073709551616"}"#)
        assertEncodes(#"{"$int":"-18446744073709551616"}"#, "3b ffffffffffffffff")
        assertEncodes("-18446744073709551616", "3b ffffffffffffffff")
        assertBothWays("c3 49 010000000000000000", #"{"$int":"-18446744073709551617"}"#)
        assertBothWays("20", "-1")
        assertBothWays("29", "-10")
        assertBothWays("38 63", "-100")
        assertBothWays("39 03e7", "-1000")
        // Bignums that fit 64 bits (not preferred, still read as integers).
        assertDecodes("c2 42 0100", "256")
        assertDecodes("c3 40", "-1")
        assertDecodes("c2 4a 00 010000000000000000", #"{"$int":"18446744073709551616"}"#)
        // A bignum on something else than a byte string is just a tag.
        assertDecodes("c2 61 61", #"{"$tag":2,"value":"a"}"#)
    }

    func testAppendixAFloats() {
        assertDecodes("f9 0000", "0.0")
        assertDecodes("f9 8000", "-0.0")
        assertDecodes("f9 3c00", "1.0")
        assertDecodes("fb 3ff199999999999a", "1.1")
        assertDecodes("f9 3e00", "1.5")
        assertDecodes("f9 7bff", "65504.0")
        assertDecodes("fa 47c35000", "100000.0")
        assertDecodes("fa 7f7fffff", "3.4028234663852886e+38")
        assertDecodes("fb 7e37e43c8800759c", "1e+300")
        assertDecodes("f9 0001", "5.960464477539063e-08")
        assertDecodes("f9 0400", "6.103515625e-05")
        assertDecodes("f9 c400", "-4.0")
        assertDecodes("fb c010666666666666", "-4.1")
        assertDecodes("f9 7c00", #"{"$float":"Infinity"}"#)
        assertDecodes("f9 7e00", #"{"$float":"NaN"}"#)
        assertDecodes("f9 fc00", #"{"$float":"-Infinity"}"#)
        assertDecodes("fa 7f800000", #"{"$float":"Infinity"}"#)
        assertDecodes("fb fff0000000000000", #"{"$float":"-Infinity"}"#)
        assertEncodes("1.1", "fb 3ff199999999999a")
        assertEncodes("1.0", "fb 3ff0000000000000")
        assertEncodes(#"{"$float":"Infinity"}"#, "fb 7ff0000000000000")
    }

    func testAppendixASimpleValuesAndTags() {
        assertBothWays("f4", "false")
        assertBothWays("f5", "true")
        assertBothWays("f6", "null")
        assertBothWays("f7", #"{"$undefined":true}"#)
        assertBothWays("f0", #"{"$simple":16}"#)
        assertBothWays("f8 ff", #"{"$simple":255}"#)
        assertBothWays("c0 74 323031332d30332d32315432303a30343a30305a", #"{"$tag":0,"value":"2013-03-21T20:04:00Z"}"#)
        assertBothWays("c1 1a 514b67b0", #"{"$tag":1,"value":1363896240}"#)
        assertBothWays("c1 fb 41d452d9ec200000", #"{"$tag":1,"value":1363896240.5}"#)
        assertBothWays("d7 44 01020304", #"{"$tag":23,"value":{"$bytes":"AQIDBA=="}}"#)
        assertBothWays("d8 18 45 6449455446", #"{"$tag":24,"value":{"$bytes":"ZElFVEY="}}"#)
        assertBothWays("d8 20 76 687474703a2f2f7777772e6578616d706c652e636f6d",
                       #"{"$tag":32,"value":"http://www.example.com"}"#)
        assertBothWays("db ffffffffffffffff 00", #"{"$tag":18446744073709551615,"value":0}"#)
        assertBothWays("c6 c6 80", #"{"$tag":6,"value":{"$tag":6,"value":[]}}"#)
    }

    func testAppendixAStrings() {
        assertBothWays("40", #"{"$bytes":""}"#)
        assertBothWays("44 01020304", #"{"$bytes":"AQIDBA=="}"#)
        assertBothWays("60", #""""#)
        assertBothWays("61 61", #""a""#)
        assertBothWays("64 49455446", #""IETF""#)
        assertBothWays("62 225c", #""\"\\""#)
        assertBothWays("62 c3bc", #""ü""#)
        assertBothWays("63 e6b0b4", #""水""#)
        assertBothWays("64 f0908591", #""𐅑""#)
        assertDecodes("5f 42 0102 43 030405 ff", #"{"$bytes":"AQIDBAU="}"#)
        assertDecodes("7f 65 7374726561 64 6d696e67 ff", #""streaming""#)
        assertDecodes("7f ff", #""""#)
        assertDecodes("5f ff", #"{"$bytes":""}"#)
    }

    func testAppendixAContainers() {
        assertBothWays("80", "[]")
        assertBothWays("83 010203", "[1,2,3]")
        assertBothWays("83 01 820203 820405", "[1,[2,3],[4,5]]")
        let twentyFive = "[" + (1 ... 25).map(String.init).joined(separator: ",") + "]"
        assertBothWays("98 19 0102030405060708090a0b0c0d0e0f101112131415161718181819", twentyFive)
        assertBothWays("a0", "{}")
        assertBothWays("a2 0102 0304", #"{"$map":[[1,2],[3,4]]}"#)
        assertBothWays("a2 6161 01 6162 820203", #"{"a":1,"b":[2,3]}"#)
        assertBothWays("82 6161 a1 6162 6163", #"["a",{"b":"c"}]"#)
        assertBothWays("a5 6161 6141 6162 6142 6163 6143 6164 6144 6165 6145", #"{"a":"A","b":"B","c":"C","d":"D","e":"E"}"#)
        assertDecodes("9f ff", "[]")
        assertDecodes("9f 01 820203 9f0405ff ff", "[1,[2,3],[4,5]]")
        assertDecodes("9f 01 820203 820405 ff", "[1,[2,3],[4,5]]")
        assertDecodes("83 01 820203 9f0405ff", "[1,[2,3],[4,5]]")
        assertDecodes("83 01 9f0203ff 820405", "[1,[2,3],[4,5]]")
        assertDecodes("bf 6161 01 6162 9f0203ff ff", #"{"a":1,"b":[2,3]}"#)
        assertDecodes("82 6161 bf 6162 6163 ff", #"["a",{"b":"c"}]"#)
        assertDecodes("bf 6346756e f5 63416d74 21 ff", #"{"Fun":true,"Amt":-2}"#)
        assertDecodes("bf ff", "{}")
        assertDecodes("bf 01 02 ff", #"{"$map":[[1,2]]}"#)
        // A key of indefinite length is a string key like any other.
        assertDecodes("a1 7f 6161 6162 ff 01", #"{"ab":1}"#)
        assertDecodes("a1 7f 6124 63627974 626573 ff 01", #"{"$map":[["$bytes",1]]}"#)
        assertDecodes("a1 a0 f6", #"{"$map":[[{},null]]}"#)
        assertDecodes("a1 40 f6", #"{"$map":[[{"$bytes":""},null]]}"#)
        assertDecodes("a1 6a 2475 6e646566696e6564 f5", #"{"$map":[["$undefined",true]]}"#)
    }

    func testWellFormedness() {
        func rejects(_ hexBytes: String, at offset: Int, _ reason: String, line: UInt = #line) {
            switch codec.json(bytes(hexBytes)) {
            case .success(let json): XCTFail("\(hexBytes) decoded to \(json)", line: line)
            case .failure(let error):
                XCTAssertEqual(error.offset, offset, "\(error)", line: line)
                XCTAssertTrue(error.reason.contains(reason), "\(error)", line: line)
            }
        }
        // RFC 8949 Appendix F's examples of what is not well-formed.
        rejects("18", at: 1, "ends inside the head at byte 0")
        rejects("1b 01", at: 2, "8 more bytes")
        rejects("1c", at: 0, "reserved additional information 28")
        rejects("1f", at: 0, "reserved additional information 31")
        rejects("3f", at: 0, "reserved additional information 31")
        rejects("df", at: 0, "reserved additional information 31")
        rejects("ff", at: 0, "break (0xff) where a data item was expected")
        rejects("81 ff", at: 1, "break")
        rejects("f8 18", at: 0, "simple value 24 in two bytes")
        rejects("fc", at: 0, "reserved additional information 28")
        rejects("5f 61 61 ff", at: 1, "must be a definite byte string")
        rejects("7f 5f ff ff", at: 1, "must be a definite text string")
        rejects("7f 62 c3 ff", at: 2, "not valid UTF-8")
        rejects("5f 41", at: 1, "byte string of 1 bytes is announced")
        rejects("9f 01", at: 2, "ends inside a container of indefinite length")
        rejects("bf 01 ff", at: 2, "break")
        rejects("62 c3 28", at: 1, "not valid UTF-8")
        rejects("9b 00000001 00000000", at: 0, "an array of 4294967296 items is announced, but only 0 byte(s) follow")
        rejects("bb ffffffffffffffff", at: 0, "a map of 18446744073709551615 entries")
        rejects("5a ffffffff 00", at: 0, "a byte string of 4294967295 bytes is announced, but only 1 byte(s) follow")
        rejects("7b 7fffffffffffffff", at: 0, "a text string of 9223372036854775807 bytes")
        rejects("c6", at: 1, "message ends where a data item was expected")
        rejects("01 01", at: 1, "1 byte(s) after the data item")
        rejects("", at: 0, "empty message")
        let deep = [UInt8](repeating: 0xC6, count: 100_000) + [0xF6]
        switch codec.json(deep) {
        case .success: XCTFail("100000 tags decoded")
        case .failure(let error): XCTAssertEqual(error.reason, "nesting deeper than 10000")
        }
        let deepArrays = [UInt8](repeating: 0x9F, count: 100_000)
        switch codec.json(deepArrays) {
        case .success: XCTFail("100000 levels decoded")
        case .failure(let error): XCTAssertEqual(error.reason, "nesting deeper than 10000")
        }
    }

    func testEncodingErrors() {
        func rejects(_ json: String, _ reason: String, line: UInt = #line) {
            switch codec.message(json) {
            case .success(let data): XCTFail("\(json) encoded to \(hex(data))", line: line)
            case .failure(let error): XCTAssertTrue(error.reason.contains(reason), "\(error)", line: line)
            }
        }
        rejects(#"{"$ext":1,"$bytes":"AA=="}"#, "CBOR has tags instead")
        rejects(#"{"$simple":20}"#, "false, true, null and undefined")
        rejects(#"{"$simple":24}"#, "reserved")
        rejects(#"{"$simple":256}"#, "at most 255")
        rejects(#"{"$tag":-1,"value":1}"#, "a tag number")
        rejects(#"{"$tag":1,"x":1}"#, "expected \"value\"")
        rejects(#"{"$tag":1,"value":1,"x":2}"#, "'}' after the value of $tag")
        rejects(#"{"value":1,"$tag":1}"#, "is an envelope key")
        rejects(#"{"$undefined":false}"#, "expected 'true'")
        rejects("1" + String(repeating: "0", count: 1000), "longer than 1000 digits")
    }

    func testBigIntegersBothWays() {
        for digits in ["18446744073709551616", "340282366920938463463374607431768211456",
                       "123456789012345678901234567890123456789012345678901234567890"] {
            for sign in ["", "-"] {
                let json = #"{"$int":"\#(sign)\#(digits)"}"#
                let message = try! codec.message(json).get()
                XCTAssertEqual(try codec.json(message).get(), json)
                XCTAssertEqual(try codec.message(sign + digits).get(), message)
            }
        }
        let big = "9" + String(repeating: "8", count: 999)
        XCTAssertEqual(try codec.json(try codec.message(big).get()).get(), #"{"$int":"\#(big)"}"#)
    }
}
