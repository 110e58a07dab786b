import WSTerminal

/// ANSI colours for JSON lines written to a terminal (wspipe(1): ENVIRONMENT,
/// NO_COLOR: only when stdout is a TTY, never with NO_COLOR, never into a pipe). The input is one
/// valid, compact-or-not JSON line; every byte is kept, escapes are only
/// inserted around tokens, so copying from the terminal gives the same JSON.
package enum JSONColorizer {
    // The one palette of JSON at a terminal, shared with the transcript's layout.
    private static let key = RowWriter.Style.key.sgr                  // bold blue, as jq
    private static let string = RowWriter.Style.string.sgr            // green
    private static let number = Array("\u{1B}[0m".utf8)       // plain
    private static let literal = RowWriter.Style.literal.sgr          // grey: true false null
    private static let punctuation = RowWriter.Style.punctuation.sgr  // bold: { } [ ] : ,
    private static let reset = Array("\u{1B}[0m".utf8)

    /// Appends `line` (ending in "\n") to `out` with colours.
    package static func append(_ line: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var i = 0
        // A string is a key when the next non-blank byte after it is ':'.
        while i < line.count {
            let b = line[i]
            switch b {
            case UInt8(ascii: "\""):
                let end = stringEnd(line, from: i)
                let isKey = nextNonBlank(line, from: end) == UInt8(ascii: ":")
                out.append(contentsOf: isKey ? key : string)
                out.append(contentsOf: line[i..<end])
                out.append(contentsOf: reset)
                i = end
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["), UInt8(ascii: "]"),
                 UInt8(ascii: ":"), UInt8(ascii: ","):
                out.append(contentsOf: punctuation)
                out.append(b)
                out.append(contentsOf: reset)
                i += 1
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                let end = tokenEnd(line, from: i)
                out.append(contentsOf: literal)
                out.append(contentsOf: line[i..<end])
                out.append(contentsOf: reset)
                i = end
            default:
                out.append(b)
                i += 1
            }
        }
    }

    /// Index after the closing quote of the string starting at `start`.
    private static func stringEnd(_ s: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start + 1
        while i < s.count {
            if s[i] == UInt8(ascii: "\\") { i += 2; continue }
            if s[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return s.count
    }

    private static func tokenEnd(_ s: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start
        while i < s.count, s[i] >= UInt8(ascii: "a"), s[i] <= UInt8(ascii: "z") { i += 1 }
        return i
    }

    private static func nextNonBlank(_ s: UnsafeRawBufferPointer, from start: Int) -> UInt8? {
        var i = start
        while i < s.count, s[i] == 32 || s[i] == 9 || s[i] == 10 || s[i] == 13 { i += 1 }
        return i < s.count ? s[i] : nil
    }
}
