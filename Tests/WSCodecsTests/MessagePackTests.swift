import WSCodecs
import XCTest

/// MessagePack to JSON and back, against byte sequences written out from
/// the msgpack spec's formats.
final class MessagePackTests: XCTestCase {
    let codec = Transcoder(.msgpack, maxJSONBytes: 1 << 20)

    func assertDecodes(_ hexBytes: String, _ json: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try codec.json(bytes(hexBytes)).get(), json, hexBytes, file: file, line: line)
    }

    func assertEncodes(_ json: String, _ hexBytes: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(try codec.message(json).map(hex).get(), hex(bytes(hexBytes)), json, file: file, line: line)
    }

    func assertRejects(_ hexBytes: String, at offset: Int, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        switch codec.json(bytes(hexBytes)) {
        case .success(let json): XCTFail("\(hexBytes) decoded to \(json)", file: file, line: line)
        case .failure(let error):
            XCTAssertEqual(error.offset, offset, "\(error)", file: file, line: line)
            XCTAssertTrue(error.reason.contains(reason), "\(error)", file: file, line: line)
        }
    }

    /// Integers around every power of ten and fractions below 1, written
    /// by the digit code that does eight at a time and the one that puts
    /// "0." before the zeros: the text Swift itself prints.
    func testNumbersAtDigitBoundaries() {
        var values: [UInt64] = [UInt64.max, UInt64.max - 1, 1 << 53, (1 << 53) + 1, 18_446_744_073_709_551_000]
        var power: UInt64 = 1
        for _ in 0 ... 19 {
            values += [power - 1, power, power + 1, power &* 3 &+ 7, power / 7 &* 6]
            if power <= UInt64.max / 10 { power *= 10 }
        }
        for value in values {
            let big = (0 ..< 8).map { String(format2: UInt8(truncatingIfNeeded: value >> (56 - 8 * $0))) }.joined()
            let text = value <= 1 << 53 ? String(value) : #"{"$int":"\#(value)"}"#
            assertDecodes("cf" + big, text)
            if value <= 1 << 63 && value > 0 {
                let negative = UInt64(bitPattern: 0 &- Int64(bitPattern: value))
                let bytes = (0 ..< 8).map { String(format2: UInt8(truncatingIfNeeded: negative >> (56 - 8 * $0))) }.joined()
                assertDecodes("d3" + bytes, value <= 1 << 53 ? "-\(value)" : #"{"$int":"-\#(value)"}"#)
            }
        }
        for fraction in [0.5, 0.125, 0.1, 0.01, 0.001, 0.0001, 0.00012345, 0.12345678, 0.99999999, 0.05, 0.000101, 0.3] {
            for value in [fraction, -fraction] {
                let big = (0 ..< 8).map { String(format2: UInt8(truncatingIfNeeded: value.bitPattern >> (56 - 8 * $0))) }.joined()
                assertDecodes("cb" + big, value.description)
            }
        }
    }

    func testScalars() {
        assertDecodes("c0", "null")
        assertDecodes("c2", "false")
        assertDecodes("c3", "true")
        assertDecodes("00", "0")
        assertDecodes("7f", "127")
        assertDecodes("ff", "-1")
        assertDecodes("e0", "-32")
        assertDecodes("cc ff", "255")
        assertDecodes("cd ff ff", "65535")
        assertDecodes("ce ff ff ff ff", "4294967295")
        assertDecodes("cf 00 20 00 00 00 00 00 00", "9007199254740992")
        assertDecodes("cf 00 20 00 00 00 00 00 01", #"{"$int":"9007199254740993"}"#)
        assertDecodes("cf ff ff ff ff ff ff ff ff", #"{"$int":"18446744073709551615"}"#)
        assertDecodes("d0 80", "-128")
        assertDecodes("d1 80 00", "-32768")
        assertDecodes("d2 80 00 00 00", "-2147483648")
        assertDecodes("d3 80 00 00 00 00 00 00 00", #"{"$int":"-9223372036854775808"}"#)
        assertDecodes("d3 ff e0 00 00 00 00 00 00", "-9007199254740992")
        assertDecodes("cb 3f f0 00 00 00 00 00 00", "1.0")
        assertDecodes("cb 40 00 00 00 00 00 00 00", "2.0")
        assertDecodes("cb 3f b9 99 99 99 99 99 9a", "0.1")
        assertDecodes("cb 80 00 00 00 00 00 00 00", "-0.0")
        assertDecodes("cb 7f f8 00 00 00 00 00 00", #"{"$float":"NaN"}"#)
        assertDecodes("cb 7f f0 00 00 00 00 00 00", #"{"$float":"Infinity"}"#)
        assertDecodes("cb ff f0 00 00 00 00 00 00", #"{"$float":"-Infinity"}"#)
        assertDecodes("cb 44 b5 2d 02 c7 e1 4a f6", "1e+23")
        assertDecodes("cb 3e e4 f8 b5 88 e3 68 f1", "1e-05")
        // float32: the double of the same value, as Python's msgpack reads it.
        assertDecodes("ca 3d cc cc cd", "0.10000000149011612")
        assertDecodes("ca 3f c0 00 00", "1.5")
    }

    func testStringsAndBytes() {
        assertDecodes("a0", #""""#)
        assertDecodes("a5 68 65 6c 6c 6f", #""hello""#)
        assertDecodes("d9 03 e2 82 ac", #""€""#)
        assertDecodes("da 00 02 22 5c", #""\"\\""#)
        assertDecodes("a3 0a 01 7f", #""\n\u0001\u007f""#.replacingOccurrences(of: "\\u007f", with: "\u{7f}"))
        assertDecodes("c4 00", #"{"$bytes":""}"#)
        assertDecodes("c4 03 01 02 03", #"{"$bytes":"AQID"}"#)
        assertDecodes("c5 00 01 ff", #"{"$bytes":"/w=="}"#)
        assertDecodes("d4 05 aa", #"{"$ext":5,"$bytes":"qg=="}"#)
        assertDecodes("d6 ff 00 00 00 01", #"{"$ext":-1,"$bytes":"AAAAAQ=="}"#)
        assertDecodes("c7 00 07", #"{"$ext":7,"$bytes":""}"#)
    }

    func testContainers() {
        assertDecodes("90", "[]")
        assertDecodes("80", "{}")
        assertDecodes("93 01 a1 61 c0", #"[1,"a",null]"#)
        assertDecodes("82 a1 61 01 a1 62 92 02 03", #"{"a":1,"b":[2,3]}"#)
        assertDecodes("91 91 91 90", "[[[[]]]]")
        assertDecodes("dc 00 02 c3 c2", "[true,false]")
        assertDecodes("de 00 01 a1 6b 80", #"{"k":{}}"#)
        // A key that is not a string, or an envelope key: `$map`, at that map only.
        assertDecodes("82 01 02 a1 61 03", #"{"$map":[[1,2],["a",3]]}"#)
        assertDecodes("81 a1 78 81 c4 01 00 c0", #"{"x":{"$map":[[{"$bytes":"AA=="},null]]}}"#)
        assertDecodes("81 a6 24 62 79 74 65 73 01", #"{"$map":[["$bytes",1]]}"#)
        assertDecodes("81 a5 24 74 65 78 74 01", #"{"$map":[["$text",1]]}"#)
        assertDecodes("92 81 01 81 02 03 81 a1 61 80", #"[{"$map":[[1,{"$map":[[2,3]]}]]},{"a":{}}]"#)
        assertDecodes("81 a4 24 74 61 67 01", #"{"$map":[["$tag",1]]}"#)
        assertDecodes("81 a4 24 61 62 63 01", #"{"$abc":1}"#)
    }

    func testEncoding() {
        assertEncodes("null", "c0")
        assertEncodes(" [true , false] ", "92 c3 c2")
        assertEncodes("0", "00")
        assertEncodes("-0", "00")
        assertEncodes("127", "7f")
        assertEncodes("128", "cc 80")
        assertEncodes("256", "cd 01 00")
        assertEncodes("65536", "ce 00 01 00 00")
        assertEncodes("4294967296", "cf 00 00 00 01 00 00 00 00")
        assertEncodes("18446744073709551615", "cf ff ff ff ff ff ff ff ff")
        assertEncodes("-1", "ff")
        assertEncodes("-32", "e0")
        assertEncodes("-33", "d0 df")
        assertEncodes("-128", "d0 80")
        assertEncodes("-129", "d1 ff 7f")
        assertEncodes("-9223372036854775808", "d3 80 00 00 00 00 00 00 00")
        assertEncodes(#"{"$int":"-9223372036854775808"}"#, "d3 80 00 00 00 00 00 00 00")
        assertEncodes(#"{"$int":"5"}"#, "05")
        assertEncodes("1.0", "cb 3f f0 00 00 00 00 00 00")
        assertEncodes("1e0", "cb 3f f0 00 00 00 00 00 00")
        assertEncodes("0.1", "cb 3f b9 99 99 99 99 99 9a")
        assertEncodes("-0.0", "cb 80 00 00 00 00 00 00 00")
        assertEncodes("5e-324", "cb 00 00 00 00 00 00 00 01")
        assertEncodes("1.7976931348623157e308", "cb 7f ef ff ff ff ff ff ff")
        assertEncodes("123456789.123456789e-3", "cb" + hex(withUnsafeBytes(of: (123456.789123456789).bitPattern.bigEndian) { Array($0) }))
        assertEncodes(#"{"$float":"NaN"}"#, "cb 7f f8 00 00 00 00 00 00")
        assertEncodes(#"{"$float":"-Infinity"}"#, "cb ff f0 00 00 00 00 00 00")
        assertEncodes(#""""#, "a0")
        assertEncodes(#""\u00e9\n\ud83d\ude00\/""#, "a8 c3 a9 0a f0 9f 98 80 2f")
        assertEncodes(#"{"a":1,"b":[2,3]}"#, "82 a1 61 01 a1 62 92 02 03")
        assertEncodes("{}", "80")
        assertEncodes("[]", "90")
        assertEncodes(#"{"$bytes":"AQID"}"#, "c4 03 01 02 03")
        assertEncodes(#"{"$bytes":"AQI"}"#, "c4 02 01 02")
        assertEncodes(#"{"$ext":5,"$bytes":"qg=="}"#, "d4 05 aa")
        assertEncodes(#"{"$bytes":"qg==","$ext":-1}"#, "d4 ff aa")
        assertEncodes(#"{"$ext":7,"$bytes":"AQID"}"#, "c7 03 07 01 02 03")
        assertEncodes(#"{"$map":[[1,2],["a",[3]]]}"#, "82 01 02 a1 61 91 03")
        assertEncodes(#"{"$map":[]}"#, "80")
        assertEncodes(#"{"\u0024bytes":"AA=="}"#, "c4 01 00")
        // `$text` and `$binary` are plain keys inside a value.
        assertEncodes(#"[{"$text":"a"}]"#, "91 81 a5 24 74 65 78 74 a1 61")
        let sixteen = "[" + (1 ... 16).map(String.init).joined(separator: ",") + "]"
        assertEncodes(sixteen, "dc 00 10" + (1 ... 16).map { hex([UInt8($0)]) }.joined())
        let long = String(repeating: "x", count: 40)
        assertEncodes("\"\(long)\"", "d9 28" + String(repeating: "78", count: 40))
    }

    func testEncodingErrors() {
        func rejects(_ json: String, at offset: Int, _ reason: String, line: UInt = #line) {
            switch codec.message(json) {
            case .success(let data): XCTFail("\(json) encoded to \(hex(data))", line: line)
            case .failure(let error):
                XCTAssertEqual(error.offset, offset, "\(error)", line: line)
                XCTAssertTrue(error.reason.contains(reason), "\(error)", line: line)
            }
        }
        rejects("18446744073709551616", at: 0, "out of MessagePack's range")
        rejects("-9223372036854775809", at: 0, "out of MessagePack's range")
        rejects(#"{"$int":"99999999999999999999"}"#, at: 9, "out of MessagePack's range")
        rejects(#"{"$tag":1,"value":2}"#, at: 0, "CBOR tag")
        rejects(#"{"$undefined":true}"#, at: 0, "CBOR's")
        rejects(#"{"$bytes":"A*=="}"#, at: 12, "invalid base64")
        rejects(#"{"$bytes":"AA==","x":1}"#, at: 17, "$bytes goes alone")
        rejects(#"{"a":1,"$bytes":"AA=="}"#, at: 7, "is an envelope key")
        rejects(#"{"$ext":300,"$bytes":""}"#, at: 8, "extension type")
        rejects(#"{"$float":"nan"}"#, at: 11, "$float holds")
        rejects(#"{"$int":"012"}"#, at: 9, "$int holds")
        rejects(#"{"$map":[[1]]}"#, at: 11, "after the key of a [key, value] pair")
        rejects(#"{"$map":[1]}"#, at: 9, "[key, value] pair")
        rejects("1e400", at: 0, "too large for a 64-bit float")
        rejects(#""\ud800""#, at: 1, "lone surrogate")
        rejects("[1,]", at: 3, "expected a value")
        rejects("[1] 2", at: 4, "trailing characters")
        rejects("", at: 0, "empty")
    }

    func testHostileInputIsBounded() {
        assertRejects("dd ff ff ff ff", at: 0, "array of 4294967295 items is announced, but only 0 byte(s) follow")
        assertRejects("df ff ff ff ff 01", at: 0, "map of 4294967295 entries")
        assertRejects("db ff ff ff ff 61", at: 0, "string of 4294967295 bytes")
        assertRejects("c6 ff ff ff ff", at: 0, "byte string of 4294967295 bytes")
        assertRejects("c9 ff ff ff ff 01", at: 0, "ext of 4294967295 bytes")
        assertRejects("92 01", at: 0, "an array of 2 items is announced, but only 1 byte(s) follow")
        assertRejects("92 01 a1", at: 2, "a string of 1 bytes is announced, but only 0 byte(s) follow")
        assertRejects("81 a1 61", at: 3, "message ends where a value was expected")
        assertRejects("cd 01", at: 2, "ends inside the header at byte 0")
        assertRejects("c1", at: 0, "0xc1")
        assertRejects("01 02", at: 1, "1 byte(s) after the value")
        assertRejects("a2 c3 28", at: 1, "not valid UTF-8")
        assertRejects("a3 ed a0 80", at: 1, "not valid UTF-8")   // a surrogate
        assertRejects("", at: 0, "empty message")
        let deep = [UInt8](repeating: 0x91, count: 100_000) + [0xC0]
        switch codec.json(deep) {
        case .success: XCTFail("100000 levels decoded")
        case .failure(let error): XCTAssertEqual(error.reason, "nesting deeper than 10000")
        }
        let fine = [UInt8](repeating: 0x91, count: 10_000) + [0xC0]
        XCTAssertEqual(try codec.json(fine).get(), String(repeating: "[", count: 10_000) + "null" + String(repeating: "]", count: 10_000))
        let deepJSON = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        switch codec.message(deepJSON) {
        case .success: XCTFail("100000 levels encoded")
        case .failure(let error): XCTAssertEqual(error.reason, "nesting deeper than 10000")
        }
        // Every prefix of a message is an error, never a crash.
        let message = try! codec.message(#"{"a":[1,2.5,"xyz",{"$bytes":"AQID"},{"$ext":3,"$bytes":"AA=="}],"b":{"$map":[[1,2]]}}"#).get()
        for cut in 0 ..< message.count {
            if case .success(let json) = codec.json(Array(message[..<cut])) { XCTFail("prefix \(cut) decoded: \(json)") }
        }
    }

    func testTheJSONOfAMessageIsBounded() {
        let small = Transcoder(.msgpack, maxJSONBytes: 100)
        XCTAssertNoThrow(try small.json(bytes("92 a1 61 a1 62")).get())
        // 60 nils: 60 bytes, 299 bytes of JSON.
        switch small.json([0xDC, 0, 60] + [UInt8](repeating: 0xC0, count: 60)) {
        case .success: XCTFail("not bounded")
        case .failure(let error): XCTAssertTrue(error.reason.contains("longer than 100 bytes"), "\(error)")
        }
    }
}

extension String {
    /// Two lower-case hex digits.
    init(format2 byte: UInt8) {
        let digits = Array("0123456789abcdef")
        self = String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
