extension JSONScanner {
    /// Byte range of the raw value found by following `path` (object keys, e.g.
    /// ["event","kind"]) from the top-level object; nil if the top level is not an
    /// object or a key is missing. Keys compare after unescaping. Input known valid.
    ///
    /// Only what lies on the way is looked at: members before the wanted one are
    /// skipped whole (strings eight bytes at a time, containers by counting
    /// brackets), and nothing after the found value is read. With duplicate keys
    /// (RFC 8259 §4 leaves their meaning open) the first one wins. An empty path
    /// gives the whole top-level value without surrounding whitespace.
    public static func valueRange(atPath path: [[UInt8]], in json: UnsafeRawBufferPointer) -> Range<Int>? {
        guard let raw = json.baseAddress, json.count > 0 else { return nil }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = json.count
        var i = JSONSkipper.skipWhitespace(p, n, from: 0)
        guard i < n else { return nil }
        if path.isEmpty { return i ..< JSONSkipper.skipValue(p, n, from: i) }

        var level = 0
        while true {
            // p[i] starts the value of path[level - 1] (or the top level).
            guard i < n, p[i] == UInt8(ascii: "{") else { return nil }
            i &+= 1
            let wanted = path[level]
            while true {
                i = JSONSkipper.skipWhitespace(p, n, from: i)
                guard i < n, p[i] == 0x22 else { return nil }   // '}': not found
                let keyStart = i
                var escaped = false
                let keyEnd = JSONSkipper.skipString(p, n, from: i &+ 1, sawEscape: &escaped)
                let matches = keyMatches(p, keyStart, keyEnd, escaped: escaped, wanted)
                i = JSONSkipper.skipWhitespace(p, n, from: keyEnd)
                guard i < n, p[i] == UInt8(ascii: ":") else { return nil }
                i = JSONSkipper.skipWhitespace(p, n, from: i &+ 1)
                guard i < n else { return nil }
                if matches {
                    if level == path.count - 1 {
                        return i ..< JSONSkipper.skipValue(p, n, from: i)
                    }
                    level &+= 1
                    break
                }
                i = JSONSkipper.skipWhitespace(p, n, from: JSONSkipper.skipValue(p, n, from: i))
                guard i < n, p[i] == UInt8(ascii: ",") else { return nil }
                i &+= 1
            }
        }
    }

    /// If `json` (known valid) is an object with exactly one member whose value is a
    /// string: that member's key (unescaped) and the byte range of the string token (with quotes).
    ///
    /// This recognises the bridge's `{"$binary":"..."}` and `{"$text":"..."}`
    /// envelopes without building anything for other messages.
    public static func soleStringMember(_ json: UnsafeRawBufferPointer) -> (key: [UInt8], value: Range<Int>)? {
        guard let raw = json.baseAddress, json.count > 0 else { return nil }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = json.count
        var escaped = false
        var i = JSONSkipper.skipWhitespace(p, n, from: 0)
        guard i < n, p[i] == UInt8(ascii: "{") else { return nil }
        i = JSONSkipper.skipWhitespace(p, n, from: i &+ 1)
        guard i < n, p[i] == 0x22 else { return nil }
        let keyStart = i
        let keyEnd = JSONSkipper.skipString(p, n, from: i &+ 1, sawEscape: &escaped)
        i = JSONSkipper.skipWhitespace(p, n, from: keyEnd)
        guard i < n, p[i] == UInt8(ascii: ":") else { return nil }
        i = JSONSkipper.skipWhitespace(p, n, from: i &+ 1)
        guard i < n, p[i] == 0x22 else { return nil }
        let valueStart = i
        let valueEnd = JSONSkipper.skipString(p, n, from: i &+ 1, sawEscape: &escaped)
        i = JSONSkipper.skipWhitespace(p, n, from: valueEnd)
        guard i < n, p[i] == UInt8(ascii: "}") else { return nil }
        guard JSONSkipper.skipWhitespace(p, n, from: i &+ 1) == n else { return nil }

        var key: [UInt8] = []
        appendUnescaped(stringToken: UnsafeRawBufferPointer(start: p + keyStart, count: keyEnd &- keyStart),
                        into: &key)
        return (key, valueStart ..< valueEnd)
    }

    /// Does the key token `start ..< end` (with quotes) equal `wanted` once unescaped?
    private static func keyMatches(_ p: UnsafePointer<UInt8>, _ start: Int, _ end: Int,
                                   escaped: Bool, _ wanted: [UInt8]) -> Bool {
        let bodyCount = end &- start &- 2
        guard bodyCount >= 0 else { return false }
        if !escaped {
            // Fast path: no backslash, so the raw bytes are the key.
            guard bodyCount == wanted.count else { return false }
            return wanted.withUnsafeBufferPointer { w in
                var k = 0
                while k < bodyCount {
                    if p[start &+ 1 &+ k] != w[k] { return false }
                    k &+= 1
                }
                return true
            }
        }
        // An escape never makes text longer than its raw form.
        guard bodyCount >= wanted.count else { return false }
        var key: [UInt8] = []
        appendUnescaped(stringToken: UnsafeRawBufferPointer(start: p + start, count: end &- start), into: &key)
        return key == wanted
    }
}
