import WSJSON

/// --answer TYPE=TEMPLATE (wspipe(1): SCRIPTED PEER): which templates answer
/// an incoming JSON message, by its type, a string at --type-key (as
/// --route reads it). Several rules for one TYPE answer in the order given.
struct AnswerTable {
    private let rules: [AnswerRule]
    private let typePath: [[UInt8]]
    private let types: [[UInt8]]
    /// The unescaped type of the message looked at, reused.
    private var scratch: [UInt8] = []

    init(rules: [AnswerRule], typeKey: [String]) {
        self.rules = rules
        typePath = typeKey.map { Array($0.utf8) }
        types = rules.map { Array($0.type.utf8) }
    }

    var isEmpty: Bool { rules.isEmpty }

    /// Calls `body` with each template that answers `json` (valid JSON).
    mutating func forEachAnswer(to json: UnsafeRawBufferPointer, _ body: (MessageTemplate) -> Void) {
        guard !rules.isEmpty, let range = JSONScanner.valueRange(atPath: typePath, in: json),
              json[range.lowerBound] == UInt8(ascii: "\"") else { return }
        scratch.removeAll(keepingCapacity: true)
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: json[range]), into: &scratch)
        for (index, type) in types.enumerated() where type == scratch {
            body(rules[index].template)
        }
    }
}
