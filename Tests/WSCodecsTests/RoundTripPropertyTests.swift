import WSCodecs
import WSJSON
import XCTest

/// Property tests: random values, nested and of every type, go through
/// both conversions and come back the same. The binary forms are written
/// here by a small encoder of the test's own, which picks among the
/// encodings a format allows (a short string in a str16, a small integer
/// in eight bytes, CBOR's indefinite lengths), so the decoder reads more
/// than the encoder writes.
final class RoundTripPropertyTests: XCTestCase {
    /// A value of the data model both formats share, plus what only one has.
    indirect enum Value {
        case null, bool(Bool), integer(negative: Bool, magnitude: UInt64), bigInteger(negative: Bool, digits: String)
        case double(Double), string(String), bytes([UInt8]), array([Value]), map([(Value, Value)])
        case ext(Int8, [UInt8]), tag(UInt64, Value), undefined, simple(UInt8)
    }

    struct Generator {
        var random: SeededGenerator
        let format: BinaryFormat

        mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
        mutating func chance(_ percent: Int) -> Bool { int(1 ... 100) <= percent }

        mutating func value(depth: Int) -> Value {
            let leaf = depth >= 5 || chance(45)
            switch int(0 ... (leaf ? 9 : 12)) {
            case 0: return .null
            case 1: return .bool(chance(50))
            case 2: return .integer(negative: chance(50), magnitude: UInt64.random(in: 0 ... 300, using: &random))
            case 3:
                let bits = int(0 ... 64)
                let magnitude = bits == 64 ? UInt64.random(in: 0 ... .max, using: &random) : UInt64.random(in: 0 ... (1 << bits) - 1 + (1 << bits), using: &random)
                let negative = chance(50) && (format == .cbor || magnitude <= 1 << 63)
                return .integer(negative: negative, magnitude: magnitude)
            case 4: return .double(double())
            case 5: return .string(string())
            case 6: return .bytes((0 ..< int(0 ... 40)).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
            case 7:
                if format == .msgpack {
                    return .ext(Int8.random(in: .min ... .max, using: &random),
                                (0 ..< [1, 2, 4, 8, 16, 0, 3, 17, 300][int(0 ... 8)]).map { _ in UInt8.random(in: 0 ... 255, using: &random) })
                }
                return chance(50) ? .undefined : .simple([0, 7, 19, 32, 100, 255][int(0 ... 5)])
            case 8:
                guard format == .cbor else { return .string("plain") }
                let digits = String(int(1 ... 9)) + String((0 ..< int(20 ... 60)).map { _ in Character(String(int(0 ... 9))) })
                return .bigInteger(negative: chance(50), digits: digits)
            case 9: return .string(["$bytes", "$text", "value", "$int", "$", "$x", "ü"][int(0 ... 6)])
            case 10: return .array((0 ..< int(0 ... 6)).map { _ in value(depth: depth + 1) })
            case 11:
                return .map((0 ..< int(0 ... 6)).map { _ in
                    let key: Value = chance(80) ? .string(chance(20) ? ["$bytes", "$map", "$text", "k"][int(0 ... 3)] : string())
                        : value(depth: depth + 1)
                    return (key, value(depth: depth + 1))
                })
            default:
                if format == .cbor { return .tag(UInt64.random(in: 4 ... 100_000, using: &random), value(depth: depth + 1)) }
                return .array([value(depth: depth + 1)])
            }
        }

        mutating func double() -> Double {
            switch int(0 ... 4) {
            case 0: return Double(bitPattern: UInt64.random(in: 0 ... .max, using: &random)).isNaN ? 0.5 : Double(bitPattern: UInt64.random(in: 0 ... 0x7FEF_FFFF_FFFF_FFFF, using: &random)) * (chance(50) ? 1 : -1)
            case 1: return Double(int(-1000 ... 1000)) / 10   // 0.1 is not exact
            case 2: return Double(Float(bitPattern: UInt32.random(in: 0 ... 0x7F7F_FFFF, using: &random)))
            case 3: return [0.0, -0.0, 1.0, 1e300, 5e-324, 2.2250738585072014e-308, 1e15, 123456789012345680.0, .infinity, -.infinity][int(0 ... 9)]
            default: return Double(int(-100_000 ... 100_000))
            }
        }

        mutating func string() -> String {
            let pieces = ["a", "Z", " ", "\"", "\\", "\n", "\u{1}", "\u{7f}", "é", "€", "😀", "中", "/", "$", "\u{2028}"]
            return String((0 ..< int(0 ... 20)).map { _ in pieces[int(0 ... pieces.count - 1)] }.joined())
        }
    }

    // MARK: the JSON wspipe writes for a value (wspipe(1): BINARY CODECS)

    static func json(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let negative, let magnitude):
            let digits = (negative && magnitude > 0 ? "-" : "") + String(magnitude)
            return magnitude <= 1 << 53 ? digits : #"{"$int":"\#(digits)"}"#
        case .bigInteger(let negative, let digits): return #"{"$int":"\#(negative ? "-" : "")\#(digits)"}"#
        case .double(let d):
            if d.isNaN { return #"{"$float":"NaN"}"# }
            if d.isInfinite { return d < 0 ? #"{"$float":"-Infinity"}"# : #"{"$float":"Infinity"}"# }
            return d.description
        case .string(let s): return quoted(s)
        case .bytes(let b): return #"{"$bytes":"\#(base64(b))"}"#
        case .array(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .map(let entries):
            let envelopeKeys: Set = ["$bytes", "$ext", "$tag", "$map", "$float", "$undefined", "$int", "$simple", "$text", "$binary"]
            let plain = entries.allSatisfy { if case .string(let k) = $0.0 { return !envelopeKeys.contains(k) }; return false }
            if plain { return "{" + entries.map { json($0.0) + ":" + json($0.1) }.joined(separator: ",") + "}" }
            return #"{"$map":["# + entries.map { "[" + json($0.0) + "," + json($0.1) + "]" }.joined(separator: ",") + "]}"
        case .ext(let type, let data): return #"{"$ext":\#(type),"$bytes":"\#(base64(data))"}"#
        case .tag(let number, let inner): return #"{"$tag":\#(number),"value":\#(json(inner))}"#
        case .undefined: return #"{"$undefined":true}"#
        case .simple(let n): return #"{"$simple":\#(n)}"#
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{8}": out += "\\b"
            case "\u{c}": out += "\\f"
            case _ where scalar.value < 0x20:
                let h = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    static func base64(_ data: [UInt8]) -> String {
        let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var out = ""
        var i = 0
        while i < data.count {
            let b0 = Int(data[i]), b1 = i + 1 < data.count ? Int(data[i + 1]) : 0, b2 = i + 2 < data.count ? Int(data[i + 2]) : 0
            out.append(table[b0 >> 2])
            out.append(table[(b0 & 3) << 4 | b1 >> 4])
            out.append(i + 1 < data.count ? table[(b1 & 15) << 2 | b2 >> 6] : "=")
            out.append(i + 2 < data.count ? table[b2 & 63] : "=")
            i += 3
        }
        return out
    }

    // MARK: the test's own encoders, with the choices a format allows

    static func be(_ v: UInt64, _ width: Int) -> [UInt8] { (0 ..< width).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }

    static func msgpack(_ value: Value, _ g: inout Generator) -> [UInt8] {
        func sized(_ n: Int, _ fix: (UInt8, Int)?, _ types: [UInt8], widths: [Int] = [1, 2, 4]) -> [UInt8] {
            if let (base, max) = fix, n <= max, g.chance(70) { return [base | UInt8(n)] }
            let options = types.indices.filter { n < (1 << (8 * widths[$0])) }
            let pick = options[g.int(0 ... options.count - 1)]
            return [types[pick]] + be(UInt64(n), widths[pick])
        }
        switch value {
        case .null: return [0xC0]
        case .bool(let b): return [b ? 0xC3 : 0xC2]
        case .integer(let negative, let magnitude):
            if !negative || magnitude == 0 {
                if magnitude < 128 && g.chance(60) { return [UInt8(magnitude)] }
                let all: [(UInt8, Int)] = [(0xCC, 1), (0xCD, 2), (0xCE, 4), (0xCF, 8), (0xD3, 8)]
                let options = all.filter { (type: UInt8, width: Int) -> Bool in
                    if type == 0xD3 { return magnitude < 1 << 63 }
                    return width == 8 || magnitude < UInt64(1) << UInt64(8 * width)
                }
                let (type, width) = options[g.int(0 ... options.count - 1)]
                return [type] + be(magnitude, width)
            }
            let v = 0 &- Int64(bitPattern: magnitude)
            if magnitude <= 32 && g.chance(60) { return [UInt8(truncatingIfNeeded: v)] }
            let all: [(UInt8, Int)] = [(0xD0, 1), (0xD1, 2), (0xD2, 4), (0xD3, 8)]
            let options = all.filter { (_: UInt8, width: Int) -> Bool in magnitude <= UInt64(1) << UInt64(8 * width - 1) }
            let (type, width) = options[g.int(0 ... options.count - 1)]
            return [type] + be(UInt64(bitPattern: v), width)
        case .bigInteger: fatalError("not in MessagePack")
        case .double(let d):
            if Double(Float(d)) == d && !d.isNaN && g.chance(50) { return [0xCA] + be(UInt64(Float(d).bitPattern), 4) }
            return [0xCB] + be(d.bitPattern, 8)
        case .string(let s): let u = Array(s.utf8); return sized(u.count, (0xA0, 31), [0xD9, 0xDA, 0xDB]) + u
        case .bytes(let b): return sized(b.count, nil, [0xC4, 0xC5, 0xC6]) + b
        case .array(let items): return sized(items.count, (0x90, 15), [0xDC, 0xDD], widths: [2, 4]) + items.flatMap { msgpack($0, &g) }
        case .map(let entries):
            return sized(entries.count, (0x80, 15), [0xDE, 0xDF], widths: [2, 4]) + entries.flatMap { msgpack($0.0, &g) + msgpack($0.1, &g) }
        case .ext(let type, let data):
            let fixed: [Int: UInt8] = [1: 0xD4, 2: 0xD5, 4: 0xD6, 8: 0xD7, 16: 0xD8]
            if let f = fixed[data.count], g.chance(70) { return [f, UInt8(bitPattern: type)] + data }
            return sized(data.count, nil, [0xC7, 0xC8, 0xC9]) + [UInt8(bitPattern: type)] + data
        case .tag, .undefined, .simple: fatalError("not in MessagePack")
        }
    }

    static func cbor(_ value: Value, _ g: inout Generator) -> [UInt8] {
        func head(_ major: UInt8, _ arg: UInt64) -> [UInt8] {
            var options: [Int] = []
            if arg < 24 { options.append(0) }
            if arg <= 0xFF { options.append(1) }
            if arg <= 0xFFFF { options.append(2) }
            if arg <= 0xFFFF_FFFF { options.append(4) }
            options.append(8)
            let width = g.chance(60) ? options[0] : options[g.int(0 ... options.count - 1)]
            if width == 0 { return [major << 5 | UInt8(arg)] }
            return [major << 5 | [1: 24, 2: 25, 4: 26, 8: 27][width]!] + be(arg, width)
        }
        func chunks(_ major: UInt8, _ data: [UInt8], cut: (Int) -> Bool) -> [UInt8] {
            guard g.chance(20) else { return head(major, UInt64(data.count)) + data }
            var out: [UInt8] = [major << 5 | 31]
            var start = 0
            for k in 0 ... data.count where k == data.count || (k > start && cut(k) && g.chance(30)) {
                out += head(major, UInt64(k - start)) + data[start ..< k]
                start = k
            }
            return out + [0xFF]
        }
        switch value {
        case .null: return [0xF6]
        case .bool(let b): return [b ? 0xF5 : 0xF4]
        case .integer(let negative, let magnitude):
            return negative && magnitude > 0 ? head(1, magnitude - 1) : head(0, magnitude)
        case .bigInteger(let negative, let digits):
            var limbs: [UInt8] = [0]   // big-endian bytes of the magnitude (minus one when negative)
            for d in digits.utf8 {
                var carry = Int(d - 48)
                for k in limbs.indices.reversed() { let v = Int(limbs[k]) * 10 + carry; limbs[k] = UInt8(v & 255); carry = v >> 8 }
                while carry > 0 { limbs.insert(UInt8(carry & 255), at: 0); carry >>= 8 }
            }
            if negative { var k = limbs.count - 1; while limbs[k] == 0 { limbs[k] = 255; k -= 1 }; limbs[k] -= 1 }
            return head(6, negative ? 3 : 2) + head(2, UInt64(limbs.count)) + limbs
        case .double(let d):
            if Double(Float(d)) == d && !d.isNaN && g.chance(50) { return [0xFA] + be(UInt64(Float(d).bitPattern), 4) }
            return [0xFB] + be(d.bitPattern, 8)
        case .string(let s):
            let u = Array(s.utf8)
            return chunks(3, u) { u.indices.contains($0) && u[$0] & 0xC0 != 0x80 }
        case .bytes(let b): return chunks(2, b) { _ in true }
        case .array(let items):
            let body = items.flatMap { cbor($0, &g) }
            return g.chance(20) ? [0x9F] + body + [0xFF] : head(4, UInt64(items.count)) + body
        case .map(let entries):
            let body = entries.flatMap { cbor($0.0, &g) + cbor($0.1, &g) }
            return g.chance(20) ? [0xBF] + body + [0xFF] : head(5, UInt64(entries.count)) + body
        case .tag(let number, let inner): return head(6, number) + cbor(inner, &g)
        case .undefined: return [0xF7]
        case .simple(let n): return n < 24 ? [0xE0 | n] : [0xF8, n]
        case .ext: fatalError("not in CBOR")
        }
    }

    // MARK: the properties

    func roundTrips(_ format: BinaryFormat, seeds: Range<UInt64>) {
        let codec = Transcoder(format, maxJSONBytes: 1 << 24)
        for seed in seeds {
            var g = Generator(random: SeededGenerator(state: seed), format: format)
            let value = g.value(depth: 0)
            let expected = Self.json(value)
            // Binary (in any encoding the format allows) to JSON: the JSON wspipe writes.
            let message = format == .msgpack ? Self.msgpack(value, &g) : Self.cbor(value, &g)
            guard case .success(let json) = codec.json(message) else {
                return XCTFail("seed \(seed): \(hex(message)) did not decode: \(codec.json(message)) (expected \(expected))")
            }
            XCTAssertEqual(json, expected, "seed \(seed): \(hex(message))")
            // What it writes is valid compact JSON, one line.
            let validation = Array(json.utf8).withUnsafeBytes { JSONScanner.validate($0) }
            XCTAssertEqual(validation, .valid(needsCompaction: false), "seed \(seed): \(json)")
            // JSON to binary and back: the same JSON; binary to JSON to binary: the same bytes.
            guard case .success(let encoded) = codec.message(json) else {
                return XCTFail("seed \(seed): \(json) did not encode: \(codec.message(json))")
            }
            XCTAssertEqual(try codec.json(encoded).get(), expected, "seed \(seed)")
            XCTAssertEqual(try codec.message(try codec.json(encoded).get()).get(), encoded, "seed \(seed)")
        }
    }

    func testMessagePackRoundTrips() { roundTrips(.msgpack, seeds: 0 ..< 3000) }
    func testCBORRoundTrips() { roundTrips(.cbor, seeds: 0 ..< 3000) }

    /// Every double goes through JSON and comes back with the same bits
    /// (NaN as NaN), through both formats.
    func testEveryDoubleComesBackExactly() {
        var random = SeededGenerator(state: 42)
        for format in BinaryFormat.allCases {
            let codec = Transcoder(format, maxJSONBytes: 1 << 20)
            for _ in 0 ..< 20_000 {
                let value = Double(bitPattern: UInt64.random(in: 0 ... .max, using: &random))
                let message = (format == .msgpack ? [0xCB] : [0xFB]) + Self.be(value.bitPattern, 8)
                let json = try! codec.json(message).get()
                let back = try! codec.message(json).get()
                if value.isNaN {
                    XCTAssertEqual(json, #"{"$float":"NaN"}"#)
                } else {
                    XCTAssertEqual(back, message, "\(value) written \(json)")
                    XCTAssertTrue(json.contains(".") || json.contains("e") || json.contains("$float"), json)
                }
            }
        }
    }
}
