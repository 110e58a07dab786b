/// Value checks shared by the flag table's `apply` closures. Each returns the
/// parsed value or throws the usage error naming the flag.
enum FlagValue {
    static func duration(_ long: String, _ value: String) throws(UsageError) -> Int64 {
        guard let nanos = DurationParser.nanos(value) else { throw .invalidDuration(long, value) }
        return nanos
    }

    /// A size greater than zero.
    static func size(_ long: String, _ value: String) throws(UsageError) -> Int {
        guard let bytes = SizeParser.bytes(value) else { throw .invalidSize(long, value) }
        guard bytes > 0 else { throw UsageError("--\(long): size must be greater than 0") }
        return bytes
    }

    static func positiveInteger(_ long: String, _ value: String) throws(UsageError) -> Int {
        guard let number = Int(value), number > 0, value.first != "+" else {
            throw .notPositive(long, value)
        }
        return number
    }

    static func nonEmpty(_ long: String, _ value: String) throws(UsageError) -> String {
        guard !value.isEmpty else { throw UsageError("--\(long): empty value") }
        return value
    }

    /// `-H 'Name: value'` (curl's form): the name is an HTTP token (RFC 9110
    /// §5.1: no spaces, no separators), the value is what follows the first
    /// colon with its leading spaces and tabs trimmed. CR and LF are refused
    /// in both: they would let a value inject headers into the request.
    static func header(_ long: String, _ value: String) throws(UsageError) -> (name: String, value: String) {
        guard let colon = value.firstIndex(of: ":") else {
            throw UsageError("--\(long): expected 'Name: value', got '\(value)'")
        }
        let name = String(value[..<colon])
        guard isToken(name) else {
            throw UsageError("--\(long): expected 'Name: value', got '\(value)'")
        }
        let rest = value[value.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" })
        guard !rest.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
            throw UsageError("--\(long): header value contains a line break")
        }
        return (name, String(rest))
    }

    /// RFC 9110 §5.6.2 token: 1*tchar. Also the form of a subprotocol name
    /// (RFC 6455 §4.1: Sec-WebSocket-Protocol elements are tokens).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}
