/// The body of a Close frame (RFC 6455 §5.5.1): empty, or a 2-byte status code
/// in network byte order followed by a UTF-8 reason.
enum ClosePayload {
    enum Parsed: Equatable {
        case valid(code: UInt16?, reason: String)
        /// The frame breaks a rule; fail the connection with this code.
        case invalid(CloseCode, String)
    }

    /// Control frames carry at most 125 bytes (§5.5), 2 of which are the code.
    static let maxReasonBytes = 123

    static func parse(_ payload: UnsafeRawBufferPointer) -> Parsed {
        if payload.isEmpty { return .valid(code: nil, reason: "") }
        // §5.5.1: "If there is a body, the first two bytes of the body MUST be
        // a 2-byte unsigned integer" -- one byte cannot be a status code.
        if payload.count == 1 { return .invalid(.protocolError, "close frame with a 1-byte payload") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        if !CloseCode(rawValue: code).isValidOnWire {
            return .invalid(.protocolError, "invalid close code \(code)")
        }
        let reason = UnsafeRawBufferPointer(rebasing: payload[2...])
        // §5.5.1: the reason's "data is not guaranteed to be human readable"
        // but it is UTF-8 text, and §8.1 makes invalid UTF-8 a failure (1007).
        if !UTF8Validator.isValid(reason) { return .invalid(.invalidPayload, "invalid UTF-8 in close reason") }
        return .valid(code: code, reason: String(decoding: reason, as: UTF8.self))
    }

    /// The body to send: empty when `code` is nil, else code + reason cut to
    /// 123 bytes on a character boundary.
    static func encode(code: CloseCode?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        var bytes: [UInt8] = [UInt8(truncatingIfNeeded: code.rawValue >> 8), UInt8(truncatingIfNeeded: code.rawValue)]
        bytes.append(contentsOf: truncated(reason, to: maxReasonBytes))
        return bytes
    }

    /// The longest prefix of `text`'s UTF-8 that fits in `limit` bytes and does
    /// not split a character: back up while the first dropped byte is a
    /// continuation byte (10xxxxxx), i.e. the middle of a character.
    static func truncated(_ text: String, to limit: Int) -> ArraySlice<UInt8> {
        let bytes = Array(text.utf8)
        if bytes.count <= limit { return bytes[...] }
        var cut = limit
        while cut > 0 && bytes[cut] & 0xC0 == 0x80 {
            cut -= 1
        }
        return bytes[..<cut]
    }
}
