import WSJSON
import WSMessages

/// --answer TYPE=TEMPLATE (wspipe(1): SCRIPTED PEER): which templates answer
/// an incoming message. TYPE is, as --route reads it:
/// - a type: the value at --type-key, a string equal to TYPE, or a number,
///   true, false or null written exactly as TYPE (`--type-key op
///   --answer '1=...'`);
/// - `.KEYPATH`: any JSON message with a value at KEYPATH, whatever it is
///   (`--answer '.ping={"pong":${.ping}}'` answers `{"ping":1700000000}`);
/// - `$text`: a text message that is not JSON (a plain `ping`);
/// - `$binary`: a binary message.
/// Several rules for one TYPE answer in the order given.
struct AnswerTable {
    enum Match: Equatable {
        case type([UInt8])
        case keyPath([[UInt8]])
        case text
        case binary

        /// TYPE as --answer gives it; a `.KEYPATH` with an empty key is
        /// refused by the plan first (`keyPath(of:)`).
        init(_ type: String) {
            switch type {
            case "$text": self = .text
            case "$binary": self = .binary
            default:
                if let path = Self.keyPath(of: type) { self = .keyPath(path.map { Array($0.utf8) }) } else { self = .type(Array(type.utf8)) }
            }
        }

        /// The keys of a `.KEYPATH` TYPE (nil for any other TYPE); a key
        /// that is empty makes it [] (refused).
        static func keyPath(of type: String) -> [String]? {
            guard type.first == ".", type.count > 1 else { return nil }
            let keys = type.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            return keys.contains(where: \.isEmpty) ? [] : keys
        }
    }

    private let rules: [AnswerRule]
    private let typePath: [[UInt8]]
    private let matches: [Match]
    /// The unescaped type of the message looked at, reused.
    private var scratch: [UInt8] = []

    init(rules: [AnswerRule], typeKey: [String]) {
        self.rules = rules
        typePath = typeKey.map { Array($0.utf8) }
        matches = rules.map { Match($0.type) }
    }

    var isEmpty: Bool { rules.isEmpty }

    /// Calls `body` with each template that answers `json` (valid JSON).
    mutating func forEachAnswer(to json: UnsafeRawBufferPointer, _ body: (MessageTemplate) -> Void) {
        guard !rules.isEmpty else { return }
        var type: ArraySlice<UInt8>?
        if let range = JSONScanner.valueRange(atPath: typePath, in: json) {
            scratch.removeAll(keepingCapacity: true)
            if json[range.lowerBound] == UInt8(ascii: "\"") {
                JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[range]), into: &scratch)
                type = scratch[...]
            } else if json[range.lowerBound] != UInt8(ascii: "{") && json[range.lowerBound] != UInt8(ascii: "[") {
                // A number, true, false or null: its JSON text.
                scratch.append(contentsOf: json[JSONSkipper.trimmingWhitespace(range, in: json)])
                type = scratch[...]
            }
        }
        for (index, match) in matches.enumerated() {
            switch match {
            case .type(let wanted):
                if let type, type.elementsEqual(wanted) { body(rules[index].template) }
            case .keyPath(let path):
                if JSONScanner.valueRange(atPath: path, in: json) != nil { body(rules[index].template) }
            case .text, .binary:
                break
            }
        }
    }

    /// Calls `body` with each template that answers a text message that is
    /// not JSON (`$text`), or a binary one (`$binary`).
    func forEachAnswer(toPlain binary: Bool, _ body: (MessageTemplate) -> Void) {
        for (index, match) in matches.enumerated() where match == (binary ? .binary : .text) {
            body(rules[index].template)
        }
    }
}

extension AnswerRule {
    /// TYPE is a `.KEYPATH` with an empty key (`.a..b`): refused at start.
    public static func isMalformedKeyPath(_ type: String) -> Bool {
        AnswerTable.Match.keyPath(of: type) == []
    }
}
