import WSJSON
/// `--until KEYPATH=VALUE` (wspipe(1): OPTIONS, Ending): the incoming message
/// a scripted check waits for.
///
/// VALUE is compared as JSON: when it is valid JSON itself (`200`, `true`,
/// `"done"`, `{"a":1}`) the raw value at KEYPATH must be the same bytes once
/// surrounding whitespace is trimmed, as with --ack; any other VALUE (`done`)
/// stands for that JSON string. Strings also match when the message escapes
/// them differently (`"d\u006fne"`).
public struct UntilCondition: Sendable, Equatable {
    public let path: [String]
    /// VALUE as given.
    public let value: String
    private let keyPath: [[UInt8]]
    /// The JSON value VALUE stands for, trimmed.
    let expected: [UInt8]
    /// When `expected` is a string: its unescaped contents.
    private let expectedString: [UInt8]?

    public init(path: [String], value: String) {
        self.path = path
        self.value = value
        keyPath = path.map { Array($0.utf8) }
        var json: [UInt8] = []
        let raw = Array(value.utf8)
        raw.withUnsafeBytes { bytes in
            if case .valid = JSONScanner.validate(bytes), let range = JSONScanner.valueRange(atPath: [], in: bytes) {
                json.append(contentsOf: bytes[range])
            } else {
                JSONScanner.appendQuoted(bytes, into: &json)
            }
        }
        expected = json
        expectedString = json.first == UInt8(ascii: "\"") ? Self.unescaped(json) : nil
    }

    /// The condition as the user wrote it, for messages.
    public var description: String { path.joined(separator: ".") + "=" + value }

    /// Does `json` (known valid) carry the expected value at the key path?
    func matches(_ json: UnsafeRawBufferPointer) -> Bool {
        guard let found = JSONScanner.valueRange(atPath: keyPath, in: json) else { return false }
        let range = JSONSkipper.trimmingWhitespace(found, in: json)
        let token = UnsafeRawBufferPointer(rebasing: json[range])
        if token.elementsEqual(expected) { return true }
        guard let expectedString, token.first == UInt8(ascii: "\""), token.contains(UInt8(ascii: "\\")) else {
            return false
        }
        return Self.unescaped(token) == expectedString
    }

    private static func unescaped(_ token: UnsafeRawBufferPointer) -> [UInt8] {
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: token, into: &out)
        return out
    }

    private static func unescaped(_ token: [UInt8]) -> [UInt8] {
        token.withUnsafeBytes { unescaped($0) }
    }
}
