/// ASCII-only string helpers for HTTP header handling (no Foundation):
/// header names and the tokens RFC 6455 compares are case-insensitive ASCII
/// (RFC 7230 §3.2, §6.7).
enum ASCII {
    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    /// Case-insensitive ASCII equality.
    static func equalsIgnoringCase(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { lowercased($0) == lowercased($1) }
    }

    /// `values` with `separator` between them. (Not `joined(separator:)`:
    /// the generic one looks its associated types up at run time, 20,000
    /// instructions of every connection's start, callgrind.)
    static func joined(_ values: [String], separator: String) -> String {
        var text = ""
        for index in 0 ..< values.count {
            if index > 0 { text += separator }
            text += values[index]
        }
        return text
    }

    /// Case-insensitive ASCII substring test.
    static func contains(_ text: String, ignoringCase needle: String) -> Bool {
        let haystack = Array(text.utf8).map(lowercased)
        let pattern = Array(needle.utf8).map(lowercased)
        guard pattern.count <= haystack.count else { return false }
        if pattern.isEmpty { return true }
        for start in 0...(haystack.count - pattern.count)
        where haystack[start..<start + pattern.count].elementsEqual(pattern) {
            return true
        }
        return false
    }

    /// Removes leading and trailing spaces and tabs (RFC 7230 §3.2.3 OWS).
    static func trimmed(_ text: Substring) -> String {
        let bytes = Array(text.utf8)
        var start = 0, end = bytes.count
        while start < end && isWhitespace(bytes[start]) { start += 1 }
        while end > start && isWhitespace(bytes[end - 1]) { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    static func trimmed(_ text: String) -> String {
        trimmed(text[...])
    }

    /// The elements of a comma-separated header list (RFC 7230 §7), trimmed,
    /// empty elements dropped.
    static func commaList(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: false)
            .map { trimmed($0) }
            .filter { !$0.isEmpty }
    }

    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// RFC 7230 §3.2.6 tchar: the characters a header name (token) may use.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        HTTPToken.isCharacter(byte)
    }
}

/// RFC 9110 §5.6.2 tokens: header names, subprotocol names (RFC 6455 §4.1:
/// Sec-WebSocket-Protocol elements are tokens).
public enum HTTPToken {
    /// tchar: a letter, a digit, or one of !#$%&'*+-.^_`|~.
    public static func isCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// 1*tchar.
    public static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isCharacter)
    }
}
