/// A curl command as text (pasted on stdin, or in one argument) cut into its
/// words the way the shell it was written for would: bash for DevTools'
/// "Copy as cURL (bash)" and Firefox's "(POSIX)", cmd.exe for Chrome's
/// "(cmd)" and Firefox's "(Windows)". Nothing is expanded or run: a
/// variable, a command substitution, a pipe or a second command is refused.
enum CommandText {
    struct Problem: Error { var message: String }

    enum Dialect { case bash, cmd }

    /// cmd when the command quotes its words with ^" (as both browsers'
    /// Windows copies do) or continues its first line with ^.
    static func dialect(_ text: String) -> Dialect {
        let scalars = normalized(text)
        var body = scalars[...].drop { $0 == " " || $0 == "\t" || $0 == "\n" }
        // After the command word: "curl ^"..." or "curl.exe ^"...".
        body = body.drop { $0 != " " && $0 != "\t" && $0 != "\n" }.drop { $0 == " " || $0 == "\t" }
        if body.starts(with: ["^", "\""]) { return .cmd }
        let firstLine = scalars.split(separator: "\n").first { !$0.allSatisfy { $0 == " " || $0 == "\t" } } ?? []
        return firstLine.reversed().drop { $0 == " " || $0 == "\t" }.first == "^" ? .cmd : .bash
    }

    /// The words of the command.
    static func words(_ text: String) throws(Problem) -> [String] {
        switch dialect(text) {
        case .bash: return try BashWords.split(normalized(text))
        case .cmd: return try CmdWords.split(normalized(text), browser: text.contains("^\""))
        }
    }

    /// Whether `text` (the lines read so far) is a whole command: no quote
    /// left open, no line continued, and at least one word.
    static func isComplete(_ text: String) -> Bool {
        let scalars = normalized(text)
        guard scalars.contains(where: { $0 != " " && $0 != "\t" && $0 != "\n" }) else { return false }
        switch dialect(text) {
        case .bash: return !BashWords.isOpen(scalars)
        case .cmd: return !CmdWords.isOpen(scalars)
        }
    }

    /// CRLF and CR line ends (a Windows clipboard) as LF.
    static func normalized(_ text: String) -> [Unicode.Scalar] {
        var result: [Unicode.Scalar] = []
        var previousCR = false
        for scalar in text.unicodeScalars {
            if scalar == "\r" { result.append("\n"); previousCR = true; continue }
            if scalar == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            result.append(scalar)
        }
        return result
    }

    /// A word's bytes as text: UTF-8 where they are, and any other byte as a
    /// Latin-1 character (Firefox writes é as \xe9, which bash would pass on
    /// as that one byte: Firefox meant the character).
    static func text(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let length = sequenceLength(bytes[index])
            if length > 1, index + length <= bytes.count,
               let valid = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                scalars.append(contentsOf: valid.unicodeScalars)
                index += length
            } else {
                scalars.append(Unicode.Scalar(bytes[index]))
                index += 1
            }
        }
        return String(scalars)
    }

    /// The length a UTF-8 sequence starting with `lead` has (1 for any other byte).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: return 2
        case 0xE0...0xEF: return 3
        case 0xF0...0xF4: return 4
        default: return 1
        }
    }
}
