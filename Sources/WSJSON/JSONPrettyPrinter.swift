extension JSONScanner {
    /// Appends `json` (known valid) pretty-printed: one member or element a
    /// line, `indent` blanks per level, `": "` after keys, empty containers
    /// as `{}` and `[]`, `newline` between lines. Returns the number of lines.
    ///
    /// It walks the tokens without building a tree: whitespace outside
    /// strings is dropped (RFC 8259 §2) and every token is copied unchanged,
    /// so the output is the same JSON value.
    public static func appendPretty(_ json: UnsafeRawBufferPointer, indent: Int = 2, newline: [UInt8] = [0x0A],
                             into out: inout [UInt8]) -> Int {
        guard let raw = json.baseAddress, json.count > 0 else { return 0 }
        let p = raw.assumingMemoryBound(to: UInt8.self)
        let n = json.count
        var depth = 0
        var lines = 1
        var escape = false
        func breakLine() {
            out.append(contentsOf: newline)
            out.append(contentsOf: repeatElement(0x20, count: depth * indent))
            lines += 1
        }
        var i = JSONSkipper.skipWhitespace(p, n, from: 0)
        while i < n {
            let c = p[i]
            switch c {
            case 0x22:
                let end = JSONSkipper.skipString(p, n, from: i &+ 1, sawEscape: &escape)
                appendBytes(p, i, end, into: &out)
                i = end
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                out.append(c)
                let next = JSONSkipper.skipWhitespace(p, n, from: i + 1)
                if next < n && (p[next] == UInt8(ascii: "}") || p[next] == UInt8(ascii: "]")) {
                    out.append(p[next])
                    i = next + 1
                } else {
                    depth += 1
                    breakLine()
                    i += 1
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth = max(0, depth - 1)
                breakLine()
                out.append(c)
                i += 1
            case UInt8(ascii: ","):
                out.append(c)
                breakLine()
                i += 1
            case UInt8(ascii: ":"):
                out.append(contentsOf: [c, 0x20])
                i += 1
            default:
                if JSONSkipper.isWhitespace(c) { i += 1; continue }
                // A number or a literal: up to the next delimiter.
                var end = i + 1
                while end < n, !JSONSkipper.isWhitespace(p[end]),
                      p[end] != UInt8(ascii: ","), p[end] != UInt8(ascii: "}"),
                      p[end] != UInt8(ascii: "]"), p[end] != UInt8(ascii: ":") { end += 1 }
                appendBytes(p, i, end, into: &out)
                i = end
            }
        }
        return lines
    }
}
