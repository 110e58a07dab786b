/// Why a template was refused at start-up, and where: a variable that is
/// malformed, unknown or has no value in that flag, or a template that would
/// not be JSON once its values are put in.
public struct TemplateError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Byte offset in the template.
    public var offset: Int
    /// 1-based line and column (in characters) of `offset`.
    public var line: Int
    public var column: Int
    public var reason: String

    /// "column 12: reason", or "line 2, column 3: reason" in a template of several lines.
    public var description: String {
        (line > 1 ? "line \(line), column \(column)" : "column \(column)") + ": " + reason
    }

    /// The error at `offset` of `text`, with its line and column.
    static func at(_ offset: Int, in text: [UInt8], _ reason: String) -> TemplateError {
        var line = 1
        var column = 1
        for byte in text[..<min(max(offset, 0), text.count)] {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {   // a character starts at every byte but a continuation byte
                column += 1
            }
        }
        return TemplateError(offset: offset, line: line, column: column, reason: reason)
    }
}
