/// Why and where a JSON text was rejected (or found incomplete).
///
/// `line` and `column` are computed only when an error is reported, by
/// rescanning the buffer up to `offset`: the valid path never pays for them.
public struct JSONError: Error, Equatable, CustomStringConvertible {
    /// Byte offset of the offending byte in the buffer (the buffer's length when
    /// the input ended too early).
    public var offset: Int
    /// 1-based line: the number of '\n' bytes before `offset`, plus one.
    public var line: Int
    /// 1-based column in Unicode scalars (not bytes) from the start of the line.
    public var column: Int
    /// Short lower-case English phrase naming what was expected.
    public var reason: String

    public init(offset: Int, line: Int, column: Int, reason: String) {
        self.offset = offset
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// "LINE:COL: reason", the form the bridge prints after "stdin:".
    public var description: String { "\(line):\(column): \(reason)" }

    /// Builds the error for `offset` in `bytes`, computing line and column.
    static func located(at offset: Int, in bytes: UnsafeRawBufferPointer, reason: String) -> JSONError {
        let end = min(max(offset, 0), bytes.count)
        var line = 1
        var lineStart = 0
        var k = 0
        while k < end {
            if bytes[k] == UInt8(ascii: "\n") {
                line += 1
                lineStart = k + 1
            }
            k += 1
        }
        // A scalar starts at every byte that is not a UTF-8 continuation byte
        // (10xxxxxx), so counting those bytes counts characters as a terminal shows
        // them (for combining marks, close enough).
        var column = 1
        k = lineStart
        while k < end {
            if bytes[k] & 0xC0 != 0x80 { column += 1 }
            k += 1
        }
        return JSONError(offset: offset, line: line, column: column, reason: reason)
    }
}
