import WSJSON

/// A value a --check recording expects (wspipe(1): CHECKING A SERVER): the
/// JSON the recording holds, where a string that is exactly a matcher
/// stands for the values it accepts.
indirect enum ExpectedValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// The number as a value, and as written (for the report).
    case number(DecimalNumber, token: [UInt8])
    case string([UInt8])
    case array([ExpectedValue])
    /// Members in the recording's order, with an index by key (the last of
    /// two equal keys wins, as in JavaScript and Python).
    case object(ExpectedObject)
    case matcher(Matcher)

    /// `"${...}"` in an expected message.
    enum Matcher: Equatable, Sendable {
        /// `${any}`: any value, present.
        case any
        /// `${string}`, `${number}`: any value of that type.
        case string, number
        /// `${re:REGEX}`: a string the pattern matches whole.
        case regex(RegexPattern)
        /// `${capture:NAME}`: any value, kept as NAME for the rest of the recording.
        case capture(String)
        /// `${NAME}`: the value captured as NAME.
        case captured(String)

        /// As the recording spells it.
        var spelling: String {
            switch self {
            case .any: return "${any}"
            case .string: return "${string}"
            case .number: return "${number}"
            case .regex(let pattern): return "${re:\(pattern.source)}"
            case .capture(let name): return "${capture:\(name)}"
            case .captured(let name): return "${\(name)}"
            }
        }
    }

    struct ExpectedObject: Equatable, Sendable {
        var keys: [[UInt8]]
        var values: [ExpectedValue]
        var index: [[UInt8]: Int]
    }

    struct MatcherError: Error, Equatable {
        var reason: String
    }

    /// The tree with its matchers read. `captures`: the names bound so far in
    /// the recording; those bound here are added (a later message may use them).
    static func expected(_ tree: JSONTree, captures: inout Set<String>) throws(MatcherError) -> ExpectedValue {
        switch tree {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let token): return .number(DecimalNumber(token), token: token)
        case .string(let bytes):
            switch try Placeholder.read(bytes) {
            case .none: return .string(bytes)
            case .literal(let text): return .string(text)
            case .matcher(let matcher):
                if case .captured(let name) = matcher, !captures.contains(name) {
                    throw MatcherError(reason: "\"${\(name)}\": no \"${capture:\(name)}\" before it in the recording")
                }
                if case .capture(let name) = matcher { captures.insert(name) }
                return .matcher(matcher)
            }
        case .array(let items):
            var values: [ExpectedValue] = []
            for item in items { values.append(try expected(item, captures: &captures)) }
            return .array(values)
        case .object(let members):
            var object = ExpectedObject(keys: [], values: [], index: [:])
            for member in members {
                let value = try expected(member.value, captures: &captures)
                if let earlier = object.index[member.key] {
                    object.values[earlier] = value
                } else {
                    object.index[member.key] = object.keys.count
                    object.keys.append(member.key)
                    object.values.append(value)
                }
            }
            return .object(object)
        }
    }

    /// A value taken as it is, matchers and all (what a capture holds).
    static func literal(_ tree: JSONTree) -> ExpectedValue {
        switch tree {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .number(let token): return .number(DecimalNumber(token), token: token)
        case .string(let bytes): return .string(bytes)
        case .array(let items): return .array(items.map(literal))
        case .object(let members):
            var object = ExpectedObject(keys: [], values: [], index: [:])
            for member in members {
                if let earlier = object.index[member.key] {
                    object.values[earlier] = literal(member.value)
                    continue
                }
                object.index[member.key] = object.keys.count
                object.keys.append(member.key)
                object.values.append(literal(member.value))
            }
            return .object(object)
        }
    }

    /// Compact JSON as the recording has it (matchers as written), for reports.
    func appendCompact(into out: inout [UInt8]) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let value): out.append(contentsOf: (value ? "true" : "false").utf8)
        case .number(_, let token): out.append(contentsOf: token)
        case .string(let bytes): bytes.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        case .matcher(let matcher):
            Array(matcher.spelling.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.appendCompact(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            for (index, key) in object.keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                key.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &out) }
                out.append(UInt8(ascii: ":"))
                object.values[index].appendCompact(into: &out)
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

/// What a string of a recording that starts with `${` or `$${` stands for.
enum Placeholder: Equatable {
    /// An ordinary string.
    case none
    /// `"$${...}"`: the text with one `$` less, taken literally.
    case literal([UInt8])
    case matcher(ExpectedValue.Matcher)

    /// `bytes`: a string's unescaped bytes.
    static func read(_ bytes: [UInt8]) throws(ExpectedValue.MatcherError) -> Placeholder {
        guard bytes.count >= 3, bytes.last == UInt8(ascii: "}") else { return .none }
        if bytes.starts(with: "$${".utf8) { return .literal(Array(bytes.dropFirst())) }
        guard bytes.starts(with: "${".utf8) else { return .none }
        let inside = String(decoding: bytes[2 ..< bytes.count - 1], as: UTF8.self)
        switch inside {
        case "any": return .matcher(.any)
        case "string": return .matcher(.string)
        case "number": return .matcher(.number)
        default: break
        }
        if inside.hasPrefix("re:") {
            do {
                return .matcher(.regex(try RegexPattern(String(inside.dropFirst(3)))))
            } catch {
                throw ExpectedValue.MatcherError(reason: "\"${\(inside)}\": the regular expression \(error)")
            }
        }
        if inside.hasPrefix("capture:") {
            let name = String(inside.dropFirst(8))
            guard isName(name) else {
                throw ExpectedValue.MatcherError(reason: "\"${\(inside)}\": a capture's name is letters, digits and _")
            }
            return .matcher(.capture(name))
        }
        guard isName(inside) else {
            throw ExpectedValue.MatcherError(
                reason: "\"${\(inside)}\" is no matcher (${any}, ${string}, ${number}, ${re:REGEX}, "
                    + "${capture:NAME}, ${NAME}); write \"$${\(inside)}\" for the text itself")
        }
        return .matcher(.captured(inside))
    }

    /// [A-Za-z_][A-Za-z0-9_]*, not a matcher's own word.
    static func isName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        guard !["any", "string", "number"].contains(text) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
        }
    }
}
