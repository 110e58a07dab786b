import WSJSON

/// A JSON value as a tree, for what wspipe must look at as a whole: a HAR
/// file, and the expected messages of a --check recording. (Messages on the
/// way through are never made into trees: WSJSON reads them in place.)
/// Strings and keys are their unescaped UTF-8 bytes, numbers their token as
/// written (`DecimalNumber` compares them as values).
indirect enum JSONTree: Equatable, Sendable {
    case null
    case bool(Bool)
    case number([UInt8])
    case string([UInt8])
    case array([JSONTree])
    case object([Member])

    struct Member: Equatable, Sendable {
        var key: [UInt8]
        var value: JSONTree
    }

    /// Containers nested deeper than this are refused (the parser recurses).
    static let maxDepth = 256

    struct ParseError: Error, Equatable {
        var reason: String
    }

    /// Parses one JSON text (RFC 8259); whitespace around it is allowed.
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(ParseError) -> JSONTree {
        if let error = JSONScanner.validate(bytes).error {
            throw ParseError(reason: "column \(error.column): \(error.reason)")
        }
        var reader = JSONTreeReader(bytes)
        return try reader.value(depth: 0)
    }

    /// The tree, and the string values that may be placeholders (`JSONTreeReader.placeholders`).
    static func parseWithPlaceholders(_ bytes: UnsafeRawBufferPointer) throws(ParseError)
        -> (JSONTree, [(range: Range<Int>, text: [UInt8])]) {
        if let error = JSONScanner.validate(bytes).error {
            throw ParseError(reason: "column \(error.column): \(error.reason)")
        }
        var reader = JSONTreeReader(bytes)
        let tree = try reader.value(depth: 0)
        return (tree, reader.placeholders)
    }

    static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSONTree {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(ParseError) in try parse(raw) } }
        return try result.get()
    }

    // MARK: reading a tree

    /// The member `key` of an object (the first with that key), nil otherwise.
    subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        let wanted = Array(key.utf8)
        return members.first { $0.key == wanted }?.value
    }

    var string: String? {
        if case .string(let bytes) = self { return String(decoding: bytes, as: UTF8.self) }
        return nil
    }

    var array: [JSONTree]? {
        if case .array(let items) = self { return items }
        return nil
    }

    /// A number's value as a Double (HAR times and opcodes).
    var double: Double? {
        guard case .number(let token) = self else { return nil }
        return Double(String(decoding: token, as: UTF8.self))
    }

    // MARK: writing a tree

    /// Compact JSON text (strings escaped as `JSONScanner.appendQuoted` does).
    func appendCompact(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(let token): out.append(contentsOf: token)
        case .string(let bytes): bytes.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.appendCompact(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                member.key.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
                out.append(UInt8(ascii: ":"))
                member.value.appendCompact(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    var compactText: [UInt8] {
        var out: [UInt8] = []
        appendCompact(into: &out)
        return out
    }
}

/// Recursive descent over JSON already validated by `JSONScanner`; depth
/// bounded by `JSONTree.maxDepth`.
struct JSONTreeReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var index = 0
    /// String values (not keys) starting with `${` or `$$`: where their
    /// tokens are, and their text (the --check templates of sent messages).
    private(set) var placeholders: [(range: Range<Int>, text: [UInt8])] = []

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private mutating func skipWhitespace() {
        while index < bytes.count && JSONSkipper.isWhitespace(bytes[index]) { index += 1 }
    }

    mutating func value(depth: Int) throws(JSONTree.ParseError) -> JSONTree {
        skipWhitespace()
        guard index < bytes.count else { throw JSONTree.ParseError(reason: "unexpected end") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            guard depth < JSONTree.maxDepth else { throw tooDeep }
            index += 1
            var members: [JSONTree.Member] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            while true {
                skipWhitespace()
                let key = string()
                skipWhitespace()
                index += 1   // ':'
                members.append(JSONTree.Member(key: key, value: try value(depth: depth + 1)))
                skipWhitespace()
                guard index < bytes.count else { throw JSONTree.ParseError(reason: "unexpected end") }
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "}") { return .object(members) }
            }
        case UInt8(ascii: "["):
            guard depth < JSONTree.maxDepth else { throw tooDeep }
            index += 1
            var items: [JSONTree] = []
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            while true {
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                guard index < bytes.count else { throw JSONTree.ParseError(reason: "unexpected end") }
                let separator = bytes[index]
                index += 1
                if separator == UInt8(ascii: "]") { return .array(items) }
            }
        case 0x22:
            let start = index
            let text = string()
            if text.count > 2 && text[0] == UInt8(ascii: "$") && (text[1] == UInt8(ascii: "{") || text[1] == UInt8(ascii: "$")) {
                placeholders.append((start ..< index, text))
            }
            return .string(text)
        case UInt8(ascii: "t"): index += 4; return .bool(true)
        case UInt8(ascii: "f"): index += 5; return .bool(false)
        case UInt8(ascii: "n"): index += 4; return .null
        default:
            let start = index
            while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
            return .number(Array(bytes[start ..< index]))
        }
    }

    private var tooDeep: JSONTree.ParseError {
        JSONTree.ParseError(reason: "nested deeper than \(JSONTree.maxDepth) levels")
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
    }

    /// The string token at `index` (its opening quote), unescaped.
    private mutating func string() -> [UInt8] {
        let start = index
        index += 1
        while index < bytes.count && bytes[index] != 0x22 {
            index += bytes[index] == 0x5C ? 2 : 1
        }
        index = min(index + 1, bytes.count)
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: bytes[start ..< index]), into: &out)
        return out
    }
}

/// A JSON number as a value (RFC 8259 §6): 1, 1.0, 1e0 and 10E-1 are the
/// same; so are 0 and -0. Kept as its significant digits (no leading or
/// trailing zeros) and the power of ten of the last one, so any two numbers
/// compare exactly, however many digits they have.
struct DecimalNumber: Equatable, Sendable {
    var negative: Bool
    var digits: [UInt8]
    var exponent: Int

    /// `token` is a valid JSON number.
    init(_ token: some Collection<UInt8>) {
        var negative = false
        var digits: [UInt8] = []
        var fractionDigits = 0
        var exponent = 0
        var exponentNegative = false
        var part = 0   // 0 whole, 1 fraction, 2 exponent
        for byte in token {
            switch byte {
            case UInt8(ascii: "-"):
                if part == 2 { exponentNegative = true } else { negative = true }
            case UInt8(ascii: "+"): break
            case UInt8(ascii: "."): part = 1
            case UInt8(ascii: "e"), UInt8(ascii: "E"): part = 2
            default:
                let digit = Int(byte &- 0x30)
                if part == 2 {
                    // A bound far past any Double; equal beyond it is equal enough.
                    exponent = min(exponent * 10 + digit, 1 << 40)
                } else {
                    if digits.isEmpty && digit == 0 {
                        if part == 1 { fractionDigits += 1 }
                        continue
                    }
                    digits.append(UInt8(digit))
                    if part == 1 { fractionDigits += 1 }
                }
            }
        }
        var power = (exponentNegative ? -exponent : exponent) - fractionDigits
        while digits.last == 0 {
            digits.removeLast()
            power += 1
        }
        self.negative = negative && !digits.isEmpty
        self.digits = digits
        self.exponent = digits.isEmpty ? 0 : power
    }
}
