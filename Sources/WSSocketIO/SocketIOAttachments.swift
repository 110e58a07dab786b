import WSCore
import WSJSON

/// Binary data inside an event (https://socket.io/docs/v4/socket-io-protocol/#packet-encoding):
/// the packet's JSON holds `{"_placeholder":true,"num":N}` where the N-th
/// binary message that follows it goes. A line holds the data itself, in
/// wspipe's `{"$binary":"<base64>"}` envelope, wherever it sits in the data.
///
/// Both directions copy the JSON once, replacing only those objects; text
/// without the word is copied as it is. Linear in the text, whatever its
/// nesting (no recursion).
public enum SocketIOAttachments {
    /// Copies `json[range]` to `out`, each `{"$binary":"…"}` becoming a
    /// placeholder and its decoded bytes an attachment, in order.
    public static func extract(_ json: UnsafeRawBufferPointer, _ range: Range<Int>, into out: inout [UInt8],
                               attachments: inout [[UInt8]]) throws {
        try rewriteObjects(json, range, containing: "\"$binary\"", into: &out) { i, out in
            guard let (end, token) = envelope(json, at: i) else { return nil }
            var bytes: [UInt8] = []
            guard decodeBase64(UnsafeRawBufferPointer(rebasing: json[token]), into: &bytes) else {
                throw SocketIOError("invalid base64 in $binary", at: token.lowerBound + 1)
            }
            guard attachments.count < SocketIOPacket.maxAttachments else {
                throw SocketIOError("more than \(SocketIOPacket.maxAttachments) $binary values in one event", at: i)
            }
            out += Array("{\"_placeholder\":true,\"num\":\(attachments.count)}".utf8)
            attachments.append(bytes)
            return end
        }
    }

    /// Copies `json[range]` to `out`, each placeholder becoming the
    /// `{"$binary":"…"}` of its attachment.
    public static func insert(_ json: UnsafeRawBufferPointer, _ range: Range<Int>, attachments: [[UInt8]],
                              into out: inout [UInt8]) throws {
        try rewriteObjects(json, range, containing: "\"_placeholder\"", into: &out) { i, out in
            guard let (end, num) = placeholder(json, at: i) else { return nil }
            guard num < attachments.count else {
                throw SocketIOError("a placeholder for attachment \(num) of \(attachments.count)", at: i)
            }
            out += Array("{\"$binary\":\"".utf8)
            attachments[num].withUnsafeBytes { Base64.encode($0, into: &out) }
            out += Array("\"}".utf8)
            return end
        }
    }

    /// Copies `json[range]` to `out`, offering each object outside strings to
    /// `rewrite` (given where its `{` is): it either writes the object's
    /// replacement and answers where the object ends, or answers nil and
    /// the object is copied as it is. A text without `marker` is copied whole.
    private static func rewriteObjects(_ json: UnsafeRawBufferPointer, _ range: Range<Int>, containing marker: StaticString,
                                       into out: inout [UInt8],
                                       _ rewrite: (Int, inout [UInt8]) throws -> Int?) throws {
        guard JSONWalk.contains(json, range, marker) else {
            out.append(contentsOf: json[range])
            return
        }
        var i = range.lowerBound
        while i < range.upperBound {
            let b = json[i]
            if b == 0x22 {
                let end = JSONWalk.skipString(json, i)
                out.append(contentsOf: json[i ..< end])
                i = end
            } else if b == UInt8(ascii: "{"), let end = try rewrite(i, &out) {
                i = end
            } else {
                out.append(b)
                i += 1
            }
        }
    }

    /// `{"$binary":"…"}` at `i` (its only member): where it ends, and its string token.
    static func envelope(_ json: UnsafeRawBufferPointer, at i: Int) -> (end: Int, token: Range<Int>)? {
        var j = JSONWalk.skipWhitespace(json, i + 1)
        guard j < json.count, json[j] == 0x22 else { return nil }
        let keyEnd = JSONWalk.skipString(json, j)
        guard JSONWalk.token(json, j ..< keyEnd, is: "$binary") else { return nil }
        j = JSONWalk.skipWhitespace(json, keyEnd)
        guard j < json.count, json[j] == UInt8(ascii: ":") else { return nil }
        j = JSONWalk.skipWhitespace(json, j + 1)
        guard j < json.count, json[j] == 0x22 else { return nil }
        let tokenEnd = JSONWalk.skipString(json, j)
        let token = j ..< tokenEnd
        j = JSONWalk.skipWhitespace(json, tokenEnd)
        guard j < json.count, json[j] == UInt8(ascii: "}") else { return nil }
        return (j + 1, token)
    }

    /// `{"_placeholder":true,"num":N}` at `i` (those two members, in either
    /// order): where it ends, and N.
    static func placeholder(_ json: UnsafeRawBufferPointer, at i: Int) -> (end: Int, num: Int)? {
        var j = JSONWalk.skipWhitespace(json, i + 1)
        var flagged = false
        var num: Int?
        for _ in 0 ..< 2 {
            guard j < json.count, json[j] == 0x22 else { return nil }
            let keyEnd = JSONWalk.skipString(json, j)
            let key = j ..< keyEnd
            j = JSONWalk.skipWhitespace(json, keyEnd)
            guard j < json.count, json[j] == UInt8(ascii: ":") else { return nil }
            j = JSONWalk.skipWhitespace(json, j + 1)
            let valueEnd = JSONWalk.skipValue(json, j)
            if JSONWalk.token(json, key, is: "_placeholder"), !flagged, valueEnd - j == 4,
               json[j] == UInt8(ascii: "t") {
                flagged = true
            } else if JSONWalk.token(json, key, is: "num"), num == nil, let n = JSONWalk.integer(json, j ..< valueEnd) {
                num = n
            } else {
                return nil
            }
            j = JSONWalk.skipWhitespace(json, valueEnd)
            guard j < json.count else { return nil }
            if json[j] == UInt8(ascii: ",") { j = JSONWalk.skipWhitespace(json, j + 1) }
        }
        guard flagged, let num, j < json.count, json[j] == UInt8(ascii: "}") else { return nil }
        return (j + 1, num)
    }

    /// Base64 needs no escapes, but a JSON encoder may still write "\/".
    static func decodeBase64(_ token: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        let inner = UnsafeRawBufferPointer(rebasing: token[1 ..< token.count - 1])
        guard inner.contains(UInt8(ascii: "\\")) else { return Base64.decode(inner, into: &out) }
        var unescaped: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: token, into: &unescaped)
        return unescaped.withUnsafeBytes { Base64.decode($0, into: &out) }
    }
}
