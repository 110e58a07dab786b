import WSCore
import WSJSON

/// The `{"$text":"…"}` and `{"$binary":"…"}` envelopes (wspipe(1): LINES AND
/// MESSAGES): a JSON object whose only member is one of those keys stands for
/// a text or binary message rather than for itself. One decoder for stdin
/// lines and for lines addressed to one client with `--tag`.
package struct EnvelopeDecoder {
    package enum Outcome {
        /// Not an envelope: send the JSON itself.
        case notEnvelope
        /// The message the envelope stands for; bytes valid until the next call.
        case text(UnsafeRawBufferPointer)
        case binary(UnsafeRawBufferPointer)
        /// A `$binary` string that is not base64; `offset` is its first byte
        /// inside the quotes, from the start of the JSON.
        case invalidBase64(offset: Int)
        /// A `$text` string with an unpaired surrogate escape (`\ud800`),
        /// which no UTF-8 text can hold; `offset` is its backslash, from the
        /// start of the JSON.
        case loneSurrogate(offset: Int)
    }

    /// Reused for the unescaped string and the decoded bytes.
    private var unescaped: [UInt8] = []
    private var decoded: [UInt8] = []

    package init() {}

    /// Decodes `json` (valid JSON) if it is an envelope and hands the outcome
    /// to `body`, whose buffers point into this decoder's storage.
    package mutating func decode<R>(_ json: UnsafeRawBufferPointer, _ body: (Outcome) -> R) -> R {
        guard Self.mayBeEnvelope(json), let member = JSONScanner.soleStringMember(json) else {
            return body(.notEnvelope)
        }
        let token = UnsafeRawBufferPointer(rebasing: json[member.value])
        if member.key.elementsEqual("$text".utf8) {
            if let at = JSONScanner.firstLoneSurrogate(inStringToken: token) {
                return body(.loneSurrogate(offset: member.value.lowerBound + at))
            }
            decoded.removeAll(keepingCapacity: true)
            JSONScanner.appendUnescaped(stringToken: token, into: &decoded)
            return decoded.withUnsafeBytes { body(.text($0)) }
        }
        guard member.key.elementsEqual("$binary".utf8) else { return body(.notEnvelope) }
        guard decodeBase64(token) else { return body(.invalidBase64(offset: member.value.lowerBound + 1)) }
        return decoded.withUnsafeBytes { body(.binary($0)) }
    }

    /// Base64 needs no escapes, but a JSON encoder may still write "\/".
    private mutating func decodeBase64(_ token: UnsafeRawBufferPointer) -> Bool {
        decoded.removeAll(keepingCapacity: true)
        let inner = UnsafeRawBufferPointer(rebasing: token[1 ..< token.count - 1])
        guard inner.contains(UInt8(ascii: "\\")) else { return Base64.decode(inner, into: &decoded) }
        unescaped.removeAll(keepingCapacity: true)
        JSONScanner.appendUnescaped(stringToken: token, into: &unescaped)
        return unescaped.withUnsafeBytes { Base64.decode($0, into: &decoded) }
    }

    /// `json` (valid JSON) is what `decode` would take for an envelope: an
    /// object whose only member is `"$text"` or `"$binary"` with a string
    /// value (a `$binary` that is not base64 and a `$text` with a lone
    /// surrogate included: stdin would refuse them rather than send them as
    /// they are). A text message of that shape is written in a `$text`
    /// envelope of its own, so the line gives it back (`wspipe A | wspipe B`).
    package static func isEnvelope(_ json: UnsafeRawBufferPointer) -> Bool {
        guard mayBeEnvelope(json), let member = JSONScanner.soleStringMember(json) else { return false }
        return member.key.elementsEqual("$text".utf8) || member.key.elementsEqual("$binary".utf8)
    }

    /// Cheap test before the full member scan: `{`, blanks, `"$`.
    package static func mayBeEnvelope(_ json: UnsafeRawBufferPointer) -> Bool {
        // Compact JSON (most lines) starts `{"`: the third byte decides.
        if json.count >= 3, let p = json.baseAddress, p.load(as: UInt8.self) == UInt8(ascii: "{"),
           p.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: "\"") {
            return p.load(fromByteOffset: 2, as: UInt8.self) == UInt8(ascii: "$")
        }
        let n = json.count
        var i = skipBlanks(json, from: 0)
        guard i < n, json[i] == UInt8(ascii: "{") else { return false }
        i = skipBlanks(json, from: i + 1)
        return i + 1 < n && json[i] == UInt8(ascii: "\"") && json[i + 1] == UInt8(ascii: "$")
    }

    @inline(__always)
    private static func skipBlanks(_ json: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        while i < json.count, json[i] == 32 || json[i] == 9 || json[i] == 10 || json[i] == 13 { i += 1 }
        return i
    }
}
