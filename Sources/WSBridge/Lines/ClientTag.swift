import WSJSON
/// `--tag` (wspipe(1): OPTIONS, Server mode): the `"$client":N` member that says which client a line
/// came from (stdout) or is for (stdin). Both directions work on the bytes
/// as they are: no tree is built and every other byte stays where it was.
enum ClientTag {
    /// The key path of the member, for `JSONScanner.valueRange`.
    static let path: [[UInt8]] = [Array("$client".utf8)]

    private static let memberPrefix = Array(#""$client":"#.utf8)

    /// Puts `"$client":N` first in the JSON object held by the line that
    /// starts at `lineStart` and runs to the end of `buffer` (what the output
    /// formatter just appended): `{"type":"chat"}` becomes
    /// `{"$client":3,"type":"chat"}` and `{}` becomes `{"$client":3}`. Blanks
    /// after the brace stay before the new member, so stripping it again
    /// (`address`, `appendRemoving`) gives back the original bytes.
    /// Lines that are not objects (arrays, strings, numbers, literals) are
    /// left alone and the result is false. The `$text` / `$binary` envelopes
    /// are objects and get the member like any other.
    @discardableResult
    static func insert(client: Int, into buffer: inout [UInt8], lineStart: Int) -> Bool {
        let end = buffer.count
        var open = lineStart
        while open < end && isBlank(buffer[open]) { open += 1 }
        guard open < end, buffer[open] == UInt8(ascii: "{") else { return false }
        var next = open + 1
        while next < end && isBlank(buffer[next]) { next += 1 }
        let needsComma = next < end && buffer[next] != UInt8(ascii: "}")

        let digits = decimalDigitCount(client)
        let added = memberPrefix.count + digits + (needsComma ? 1 : 0)
        let at = next
        let tail = end - at
        // Grow once, move the rest of the line up, write the member into the
        // gap: one memmove of this line, no temporary array.
        buffer.append(contentsOf: repeatElement(0, count: added))
        buffer.withUnsafeMutableBytes { bytes in
            let base = bytes.baseAddress!
            (base + at + added).copyMemory(from: base + at, byteCount: tail)
            var i = at
            for byte in memberPrefix { bytes[i] = byte; i += 1 }
            var value = client.magnitude
            var d = i + digits - 1
            repeat {
                bytes[d] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
                d -= 1
            } while d >= i
            i += digits
            if needsComma { bytes[i] = UInt8(ascii: ",") }
        }
        return true
    }

    /// Where a stdin line names its client.
    struct Address: Equatable {
        /// The client number; nil when the value is not one (a string, a
        /// fraction, a negative number, something too long to be an id).
        var client: Int?
        /// The value as written, for the warning about a bad one.
        var value: Range<Int>
        /// The bytes to leave out: the member and the comma that separated it
        /// from a neighbour (and the blanks after that comma), so what remains
        /// is a valid object with every other byte unchanged.
        var removal: Range<Int>
    }

    /// The top-level `"$client"` member of `json`, if it is an object that has
    /// one (keys compare after unescaping, as everywhere else; with duplicates
    /// the first wins). `json` should be valid: for other input the answer is
    /// wrong but memory is never read out of bounds.
    static func address(in json: UnsafeRawBufferPointer) -> Address? {
        guard let value = JSONScanner.valueRange(atPath: path, in: json) else { return nil }
        guard let keyStart = keyStart(before: value.lowerBound, in: json) else { return nil }

        var after = value.upperBound
        while after < json.count && isBlank(json[after]) { after += 1 }
        var removal: Range<Int>
        if after < json.count && json[after] == UInt8(ascii: ",") {
            // A member follows: drop ours with the comma after it.
            after += 1
            while after < json.count && isBlank(json[after]) { after += 1 }
            removal = keyStart ..< after
        } else {
            // The last member: drop the comma before it with the blanks around
            // it, or, if it is the only one, everything between the braces.
            var before = keyStart - 1
            while before >= 0 && isBlank(json[before]) { before -= 1 }
            guard before >= 0 else { return nil }
            if json[before] == UInt8(ascii: ",") {
                while before > 0 && isBlank(json[before - 1]) { before -= 1 }
                removal = before ..< value.upperBound
            } else {
                removal = before + 1 ..< after
            }
        }
        return Address(client: clientNumber(UnsafeRawBufferPointer(rebasing: json[value])),
                       value: value, removal: removal)
    }

    /// A client's message without the top-level `"$client"` members it put
    /// there itself, however spelled (`"\u0024client"` is the same key):
    /// nil when it has none, else the message without them, every other byte
    /// unchanged. The tag is wspipe's to give: a client's own member would
    /// follow the one `insert` puts first, and jq, Python and JavaScript keep
    /// the last of duplicate keys, so a reader of stdout would take one
    /// client for another. `json` must be valid.
    static func removingClientMembers(from json: UnsafeRawBufferPointer) -> [UInt8]? {
        guard mayName(json), let first = address(in: json) else { return nil }
        var rest: [UInt8] = []
        appendRemoving(first.removal, from: json, into: &rest)
        // Duplicates: `address` finds the first each time.
        while let next = rest.withUnsafeBytes({ address(in: $0) }) {
            rest.removeSubrange(next.removal)
        }
        return rest
    }

    /// Whether `json` may hold the key `"$client"`: it is spelled so, or
    /// escaped with `\u` (no other escape spells one of its letters). One
    /// pass over bytes, so that messages without it are not parsed again.
    private static func mayName(_ json: UnsafeRawBufferPointer) -> Bool {
        let key = Array(#""$client""#.utf8)
        var i = 0
        let n = json.count
        while i < n {
            let b = json[i]
            if b == 0x5C, i + 1 < n, json[i + 1] == UInt8(ascii: "u") { return true }
            if b == 0x22, i + key.count <= n {
                var k = 1
                while k < key.count && json[i + k] == key[k] { k += 1 }
                if k == key.count { return true }
            }
            i += 1
        }
        return false
    }

    /// `json` without `removal` (see `Address.removal`), appended to `out`.
    static func appendRemoving(_ removal: Range<Int>, from json: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: json[..<removal.lowerBound]))
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: json[removal.upperBound...]))
    }

    /// Index of the opening quote of the key whose value starts at `valueStart`
    /// (`"key" : value`), found by walking back over the colon and the key.
    private static func keyStart(before valueStart: Int, in json: UnsafeRawBufferPointer) -> Int? {
        var i = valueStart - 1
        while i >= 0 && isBlank(json[i]) { i -= 1 }
        guard i >= 0, json[i] == UInt8(ascii: ":") else { return nil }
        i -= 1
        while i >= 0 && isBlank(json[i]) { i -= 1 }
        guard i >= 0, json[i] == 0x22 else { return nil }
        // The opening quote is the first '"' not escaped by an odd run of
        // backslashes (RFC 8259 §7: inside a string '"' only appears as \").
        i -= 1
        while i >= 0 {
            if json[i] == 0x22 {
                var slashes = 0
                while i - slashes - 1 >= 0 && json[i - slashes - 1] == 0x5C { slashes += 1 }
                if slashes % 2 == 0 { return i }
            }
            i -= 1
        }
        return nil
    }

    /// A client number: plain decimal digits (RFC 8259 §6 int, not negative,
    /// no leading zero), short enough for an Int.
    static func clientNumber(_ token: UnsafeRawBufferPointer) -> Int? {
        guard token.count > 0, token.count <= 18 else { return nil }
        if token.count > 1 && token[0] == UInt8(ascii: "0") { return nil }
        var n = 0
        for byte in token {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            n = n * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return n
    }

    /// RFC 8259 §2 whitespace.
    @inline(__always)
    private static func isBlank(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    private static func decimalDigitCount(_ n: Int) -> Int {
        var value = n.magnitude
        var count = 1
        while value >= 10 { value /= 10; count += 1 }
        return count
    }
}
