/// One element of a Sec-WebSocket-Extensions list: an extension name and its
/// parameters, in order, as RFC 6455 §9.1 writes them:
///
///     extension       = extension-token *( ";" extension-param )
///     extension-param = token [ "=" (token | quoted-string) ]
///
/// "When using the quoted-string syntax variant, the value after
/// quoted-string unescaping MUST conform to the 'token' ABNF", so a value is
/// stored unquoted and is always a token.
public struct ExtensionElement: Hashable, Sendable {
    public struct Parameter: Hashable, Sendable {
        public var name: String
        /// nil for a parameter without "=value".
        public var value: String?

        public init(name: String, value: String? = nil) {
            self.name = name
            self.value = value
        }
    }

    public var name: String
    public var parameters: [Parameter]

    public init(name: String, parameters: [Parameter] = []) {
        self.name = name
        self.parameters = parameters
    }

    /// Parses every value of the header (RFC 7230 §3.2.2: several header
    /// lines are one comma-separated list). nil if any of it breaks the
    /// grammar; empty list elements are skipped (RFC 7230 §7).
    public static func parseList(_ values: [String]) -> [ExtensionElement]? {
        var elements: [ExtensionElement] = []
        for value in values {
            var scanner = ExtensionScanner(Array(value.utf8))
            guard let some = scanner.list() else { return nil }
            elements += some
        }
        return elements
    }
}

/// A cursor over one header value (the grammar above, with optional
/// whitespace around every separator, RFC 7230 §3.2.3).
private struct ExtensionScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func list() -> [ExtensionElement]? {
        var elements: [ExtensionElement] = []
        while true {
            skipWhitespace()
            if atEnd { return elements }
            if peek == UInt8(ascii: ",") { index += 1; continue }
            guard let element = element() else { return nil }
            elements.append(element)
            skipWhitespace()
            if atEnd { return elements }
            guard peek == UInt8(ascii: ",") else { return nil }
            index += 1
        }
    }

    private mutating func element() -> ExtensionElement? {
        guard let name = token() else { return nil }
        var parameters: [ExtensionElement.Parameter] = []
        while true {
            skipWhitespace()
            guard !atEnd, peek == UInt8(ascii: ";") else { break }
            index += 1
            skipWhitespace()
            guard let parameterName = token() else { return nil }
            skipWhitespace()
            var value: String?
            if !atEnd && peek == UInt8(ascii: "=") {
                index += 1
                skipWhitespace()
                guard let text = atEnd ? nil : (peek == 0x22 ? quotedToken() : token()) else { return nil }
                value = text
            }
            parameters.append(.init(name: parameterName, value: value))
        }
        return ExtensionElement(name: name, parameters: parameters)
    }

    /// 1*tchar (RFC 7230 §3.2.6).
    private mutating func token() -> String? {
        let start = index
        while !atEnd && ASCII.isTokenCharacter(peek) { index += 1 }
        guard index > start else { return nil }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    /// A quoted-string (RFC 7230 §3.2.6, backslash escapes) whose content is a token.
    private mutating func quotedToken() -> String? {
        index += 1   // the opening quote
        var content: [UInt8] = []
        while !atEnd {
            let byte = peek
            index += 1
            switch byte {
            case 0x22:
                guard !content.isEmpty, content.allSatisfy(ASCII.isTokenCharacter) else { return nil }
                return String(decoding: content, as: UTF8.self)
            case 0x5C:
                guard !atEnd else { return nil }
                content.append(peek)
                index += 1
            default:
                content.append(byte)
            }
        }
        return nil   // no closing quote
    }

    private mutating func skipWhitespace() {
        while !atEnd && ASCII.isWhitespace(peek) { index += 1 }
    }

    private var atEnd: Bool { index >= bytes.count }
    private var peek: UInt8 { bytes[index] }
}
