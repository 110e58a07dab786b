import WSJSON

/// `/filter EXPR` (wspipe(1): INTERACTIVE MODE): which messages the
/// transcript shows. EXPR is terms separated by blanks:
///
/// - `in`, `out`: the direction (received, sent);
/// - `KEYPATH=VALUE`: the value at a dotted key path of a JSON message;
///   `type=` reads the --type-key path, as --route does. VALUE is a JSON
///   string (`user.name="ann smith"`), or a word that matches a string of
///   that text or a number or literal written so (`type=chat`, `id=7`,
///   `done=true`);
/// - anything else: text the message contains, ignoring ASCII case; in
///   double quotes (a JSON string) when it holds blanks or `=`, or is `in`.
///
/// A term after `-` hides what it matches. A message is shown when it
/// matches every hiding term's opposite and, for the others: one of the
/// directions given, one of the values given for each key path, and every
/// text (so `type=chat type=join` shows both types, `error timeout` only
/// messages with both words).
struct MessageFilter: Equatable {
    enum Term: Equatable {
        case direction(TranscriptDirection)
        /// The key path as the scanner wants it, and the value wanted.
        case field(path: [[UInt8]], value: Value)
        /// Lower-cased (ASCII).
        case text([UInt8])
    }

    enum Value: Equatable {
        /// A JSON string given quoted: strings with this (unescaped) content.
        case string([UInt8])
        /// A bare word: a string with this content, or a number or literal written so.
        case word([UInt8])
    }

    /// As typed, for `/filter` and the status line.
    let source: String
    private(set) var shown: [Term] = []
    private(set) var hidden: [Term] = []

    /// Parses EXPR; the error names the term that is wrong.
    static func parse(_ expression: String, typeKey: [String]) -> Result<MessageFilter, FilterError> {
        var filter = MessageFilter(source: expression.split(separator: " ", omittingEmptySubsequences: true)
                                               .joined(separator: " "))
        for word in words(expression) {
            var spelled = word
            let negated = spelled.hasPrefix("-") && spelled.count > 1
            if negated { spelled.removeFirst() }
            let parsed: Term
            switch term(spelled, typeKey: typeKey) {
            case .success(let term): parsed = term
            case .failure(let error): return .failure(error)
            }
            if negated { filter.hidden.append(parsed) } else { filter.shown.append(parsed) }
        }
        guard !filter.shown.isEmpty || !filter.hidden.isEmpty else { return .failure(FilterError("an empty filter")) }
        return .success(filter)
    }

    private static func term(_ spelled: String, typeKey: [String]) -> Result<Term, FilterError> {
        if spelled == "in" { return .success(.direction(.received)) }
        if spelled == "out" { return .success(.direction(.sent)) }
        if spelled.hasPrefix("\"") {
            guard let text = unquoted(spelled) else {
                return .failure(FilterError("\(spelled) is not a JSON string (write \\\" for a quote inside)"))
            }
            return .success(.text(lowercased(text)))
        }
        guard let equals = spelled.firstIndex(of: "="), equals != spelled.startIndex else {
            return .success(.text(lowercased(Array(spelled.utf8))))
        }
        let pathText = String(spelled[..<equals])
        let valueText = String(spelled[spelled.index(after: equals)...])
        let keys = pathText == "type" ? typeKey[...].map { Substring($0) }
            : pathText.split(separator: ".", omittingEmptySubsequences: false)
        guard !keys.contains(where: \.isEmpty) else {
            return .failure(FilterError("\(pathText): a key path is keys separated by dots"))
        }
        let value: Value
        if valueText.hasPrefix("\"") {
            guard let text = unquoted(valueText) else {
                return .failure(FilterError("\(valueText) is not a JSON string (write \\\" for a quote inside)"))
            }
            value = .string(text)
        } else {
            guard !valueText.isEmpty else {
                return .failure(FilterError("\(spelled): no value after = (\(pathText)=\"\" for an empty string)"))
            }
            value = .word(Array(valueText.utf8))
        }
        return .success(.field(path: keys.map { Array($0.utf8) }, value: value))
    }

    /// The words of EXPR: blanks separate them, except inside double quotes.
    static func words(_ expression: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for c in expression {
            if quoted {
                if escaped { escaped = false } else if c == "\\" { escaped = true } else if c == "\"" { quoted = false }
                current.append(c)
            } else if c == " " || c == "\t" {
                if !current.isEmpty { words.append(current); current = "" }
            } else {
                if c == "\"" { quoted = true }
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// The content of a JSON string token, or nil when `token` is not one.
    private static func unquoted(_ token: String) -> [UInt8]? {
        let bytes = Array(token.utf8)
        let valid = bytes.withUnsafeBytes { raw -> Bool in
            if case .valid = JSONScanner.validate(raw) { return true } else { return false }
        }
        guard valid, bytes.first == 0x22 else { return nil }
        var out: [UInt8] = []
        bytes.withUnsafeBytes { JSONScanner.appendUnescaped(stringToken: $0, into: &out) }
        return out
    }

    private static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    // MARK: matching

    /// Whether the transcript shows this message.
    func shows(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: TranscriptDirection) -> Bool {
        let isJSON: Bool = {
            guard !binary, (shown + hidden).contains(where: { if case .field = $0 { true } else { false } }) else { return false }
            if case .valid = JSONScanner.validate(payload) { return true }
            return false
        }()
        func holds(_ term: Term) -> Bool {
            Self.holds(term, payload, binary: binary, direction: direction, isJSON: isJSON)
        }
        if hidden.contains(where: holds) { return false }
        // Directions: any of them.
        let directions = shown.filter { if case .direction = $0 { true } else { false } }
        if !directions.isEmpty && !directions.contains(where: holds) { return false }
        // Each key path: any of its values.
        var paths: [[[UInt8]]] = []
        for case .field(let path, _) in shown where !paths.contains(path) { paths.append(path) }
        for path in paths {
            let alternatives = shown.filter { if case .field(path, _) = $0 { true } else { false } }
            if !alternatives.contains(where: holds) { return false }
        }
        // Texts: all of them.
        for case .text(let text) in shown where !holds(.text(text)) { return false }
        return true
    }

    private static func holds(_ term: Term, _ payload: UnsafeRawBufferPointer, binary: Bool,
                              direction: TranscriptDirection, isJSON: Bool) -> Bool {
        switch term {
        case .direction(let wanted):
            return direction == wanted
        case .text(let text):
            return !binary && containsText(payload, lowercasedText: text)
        case .field(let path, let value):
            guard isJSON, let range = JSONScanner.valueRange(atPath: path, in: payload) else { return false }
            return matches(UnsafeRawBufferPointer(rebasing: payload[range]), value)
        }
    }

    /// `found` is the raw value at the path (a token, or a container).
    private static func matches(_ found: UnsafeRawBufferPointer, _ value: Value) -> Bool {
        guard found.first == 0x22 else {
            if case .word(let word) = value { return found.elementsEqual(word) }
            return false
        }
        var content: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: found, into: &content)
        switch value {
        case .string(let text), .word(let text): return content == text
        }
    }

    /// Whether a text message contains `text` (lower-cased), as written or,
    /// in a JSON message, as its strings read once their escapes are decoded:
    /// a server that writes é as \u00e9 (Python's json.dumps) or < as \u003c
    /// (Go's encoding/json) is found by what its text says. The decoding is
    /// done only for JSON with a backslash that did not match as written.
    static func containsText(_ payload: UnsafeRawBufferPointer, lowercasedText text: [UInt8]) -> Bool {
        if contains(payload, lowercasedText: text) { return true }
        guard payload.contains(0x5C), case .valid = JSONScanner.validate(payload) else { return false }
        return decodingStrings(payload).withUnsafeBytes { contains($0, lowercasedText: text) }
    }

    /// Valid JSON with each string's escapes decoded, its quotes kept.
    static func decodingStrings(_ json: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count)
        var i = 0
        while i < json.count {
            guard json[i] == 0x22 else {
                out.append(json[i])
                i += 1
                continue
            }
            var end = i + 1
            while end < json.count && json[end] != 0x22 { end += json[end] == 0x5C ? 2 : 1 }
            end = min(end + 1, json.count)
            out.append(0x22)
            JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[i..<end]), into: &out)
            out.append(0x22)
            i = end
        }
        return out
    }

    /// ASCII-case-insensitive search for `text` (already lower-cased).
    static func contains(_ haystack: UnsafeRawBufferPointer, lowercasedText text: [UInt8]) -> Bool {
        guard !text.isEmpty else { return true }
        guard haystack.count >= text.count else { return false }
        let first = text[0]
        var i = 0
        let last = haystack.count - text.count
        while i <= last {
            let b = haystack[i]
            if (b >= 0x41 && b <= 0x5A ? b | 0x20 : b) == first {
                var k = 1
                while k < text.count {
                    let c = haystack[i + k]
                    if (c >= 0x41 && c <= 0x5A ? c | 0x20 : c) != text[k] { break }
                    k += 1
                }
                if k == text.count { return true }
            }
            i += 1
        }
        return false
    }
}

/// Why a `/filter` expression was not taken.
struct FilterError: Error, Equatable {
    let message: String
    init(_ message: String) { self.message = message }
}
