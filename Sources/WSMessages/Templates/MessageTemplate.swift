import WSJSON

/// A message with `${...}` variables (wspipe(1): TEMPLATES), the one form of
/// --on-connect, --on-reconnect, --answer, --heartbeat and --wrap.
///
/// Parsed and checked once, at start-up: a variable that is malformed,
/// unknown, or has no value in its flag (`TemplateScope`) is refused, and so
/// is a template that would not be JSON once its values are put in
/// (`TemplateCheck`), each with its position. Every value is put in as JSON
/// (a string quoted and escaped, a captured or answered value as it came),
/// so what `render` makes is always JSON. `${` always starts a variable; a
/// literal `$` in a string can be written `\u0024`.
///
/// Pure: no I/O and no session state; the caller hands the values in.
public struct MessageTemplate: Sendable, Equatable {
    /// The template as given.
    public let source: String
    private let text: [UInt8]
    private let parts: [Part]
    /// Some `${seq}`: rendering takes the next number.
    public let usesSeq: Bool
    /// The values of its `${env:NAME}`, as JSON strings, by name.
    private let environmentValues: [String: [UInt8]]

    enum Part: Sendable, Equatable {
        case literal(Range<Int>)
        /// A variable at byte `offset` of the template; `path` is a field's key path as UTF-8.
        case variable(TemplateVariable, offset: Int, path: [[UInt8]], inString: Bool)
    }

    /// Parses and checks `source`. `captures`: the --capture names there are;
    /// `environment`: where `${env:NAME}` reads NAME (none: every one unset).
    public init(_ source: String, scope: TemplateScope, captures: [String] = [],
                environment: (String) -> String? = { _ in nil }) throws(TemplateError) {
        self.source = source
        text = Array(source.utf8)
        parts = try Self.parse(text, scope: scope, captures: captures)
        usesSeq = parts.contains { if case .variable(.seq, _, _, _) = $0 { true } else { false } }
        var values: [String: [UInt8]] = [:]
        for part in parts {
            guard case .variable(.environment(let name), let offset, _, _) = part else { continue }
            guard let value = environment(name) else {
                throw .at(offset, in: text, "${env:\(name)}: \(name) is not set in the environment")
            }
            var quoted: [UInt8] = []
            Array(value.utf8).withUnsafeBytes { JSONScanner.appendQuoted($0, into: &quoted) }
            values[name] = quoted
        }
        environmentValues = values
        try TemplateCheck.check(text, parts)
    }

    /// The variables, in order.
    public var variables: [TemplateVariable] {
        parts.compactMap { if case .variable(let variable, _, _, _) = $0 { variable } else { nil } }
    }

    /// Appends the message to `out`: the template with each variable's value as JSON.
    public func render(_ values: TemplateValues, into out: inout [UInt8]) {
        for part in parts {
            switch part {
            case .literal(let range):
                out.append(contentsOf: text[range])
            case .variable(.environment(let name), _, _, _):
                out.append(contentsOf: environmentValues[name] ?? Array("null".utf8))
            case .variable(let variable, _, let path, _):
                Self.appendValue(of: variable, path: path, values, into: &out)
            }
        }
    }

    /// The message, as a new array.
    public func render(_ values: TemplateValues) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 16)
        render(values, into: &out)
        return out
    }

    private static func appendValue(of variable: TemplateVariable, path: [[UInt8]], _ values: TemplateValues,
                                    into out: inout [UInt8]) {
        switch variable {
        case .capture(let name):
            if let value = values.captures?.value(name) { out.append(contentsOf: value) } else { appendNull(&out) }
        case .field:
            guard let message = values.message, let range = JSONScanner.valueRange(atPath: path, in: message) else {
                return appendNull(&out)
            }
            out.append(contentsOf: message[JSONSkipper.trimmingWhitespace(range, in: message)])
        case .line:
            guard let line = values.line else { return appendNull(&out) }
            JSONScanner.appendQuoted(line, into: &out)
        case .seq:
            appendDecimal(Int64(values.seq), into: &out)
        case .nowMs:
            appendDecimal(values.nowMs, into: &out)
        case .environment:
            appendNull(&out)   // rendered by `render` from the values read at parse time
        }
    }

    private static func appendNull(_ out: inout [UInt8]) {
        out.append(contentsOf: "null".utf8)
    }

    package static func appendDecimal(_ value: Int64, into out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        let start = out.count
        repeat {
            out.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        out[start...].reverse()
    }

    // MARK: parsing

    private static func parse(_ text: [UInt8], scope: TemplateScope, captures: [String]) throws(TemplateError) -> [Part] {
        var parts: [Part] = []
        var literalStart = 0
        var i = 0
        // Whether `i` is inside a JSON string of the literal text: a variable
        // there is usually a mistake, which the check's message points out.
        var inString = false
        var escaped = false
        while i < text.count {
            let byte = text[i]
            if byte == UInt8(ascii: "$"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "{") {
                guard let close = text[(i + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw .at(i, in: text, "'${' without a closing '}' (write \\u0024 for a literal $ in a string)")
                }
                if literalStart < i { parts.append(.literal(literalStart ..< i)) }
                let body = String(decoding: text[(i + 2) ..< close], as: UTF8.self)
                let variable = try variable(body, at: i, in: text, scope: scope, captures: captures)
                var path: [[UInt8]] = []
                if case .field(let keys) = variable { path = keys.map { Array($0.utf8) } }
                parts.append(.variable(variable, offset: i, path: path, inString: inString))
                i = close + 1
                literalStart = i
                continue
            }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true }
                else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            i += 1
        }
        if literalStart < text.count { parts.append(.literal(literalStart ..< text.count)) }
        return parts
    }

    /// The variable `${body}` at `offset`, if it is well formed and has a value in `scope`.
    private static func variable(_ body: String, at offset: Int, in text: [UInt8], scope: TemplateScope,
                                 captures: [String]) throws(TemplateError) -> TemplateVariable {
        func refuse(_ reason: String) -> TemplateError { .at(offset, in: text, reason) }
        let spelled = "${\(body)}"
        if body.hasPrefix(".") {
            let keys = body.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            let path = keys == [""] ? [] : keys
            if path.contains(where: \.isEmpty) { throw refuse("empty key in \(spelled)") }
            guard scope.contains(.message) else {
                throw refuse("\(spelled) reads the message being answered, and there is none here (only in --answer)")
            }
            return .field(path)
        }
        if body.hasPrefix("env:") {
            let name = String(body.dropFirst(4))
            guard isIdentifier(name) else {
                throw refuse("malformed variable \(spelled): expected ${env:NAME}, NAME an environment variable")
            }
            return .environment(name)
        }
        guard isIdentifier(body) else {
            throw refuse("malformed variable \(spelled): expected ${NAME}, ${.KEYPATH}, ${env:NAME}, ${line}, ${seq} or ${now_ms}"
                         + " (write \\u0024 for a literal $ in a string)")
        }
        switch body {
        case "seq": return .seq
        case "now_ms": return .nowMs
        case "line":
            guard scope.contains(.line) else { throw refuse("${line} is the stdin line, and there is none here (only in --wrap)") }
            return .line
        default:
            guard scope.contains(.captures) else {
                throw refuse("unknown variable \(spelled) (here: ${seq}, ${now_ms}"
                             + (scope.contains(.message) ? ", ${.KEYPATH}" : "") + (scope.contains(.line) ? ", ${line}" : "")
                             + "; write \\u0024 for a literal $ in a string)")
            }
            guard captures.contains(body) else {
                throw refuse("unknown variable \(spelled) (no --capture \(body); write \\u0024 for a literal $ in a string)")
            }
            return .capture(body)
        }
    }

    /// [A-Za-z_][A-Za-z0-9_]*, what a --capture name may be.
    package static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(first >= 0x30 && first <= 0x39) else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F
        }
    }
}

/// The values of one rendering. Only those the template's scope allows are
/// read; a missing one is null.
public struct TemplateValues {
    public var seq = 0
    public var nowMs: Int64 = 0
    /// The message being answered (valid JSON).
    public var message: UnsafeRawBufferPointer? = nil
    /// The stdin line (valid UTF-8), without its line end.
    public var line: UnsafeRawBufferPointer? = nil
    public var captures: (any TemplateCaptures)? = nil

    public init(seq: Int = 0, nowMs: Int64 = 0) {
        self.seq = seq
        self.nowMs = nowMs
    }
}

/// Where `${NAME}` finds its value: the latest raw JSON captured under NAME.
public protocol TemplateCaptures {
    func value(_ name: String) -> [UInt8]?
}
