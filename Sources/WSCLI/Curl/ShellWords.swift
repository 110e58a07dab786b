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

/// bash's quoting: '...', "..." (with \ before $ ` " \ and a newline),
/// $'...' (ANSI-C escapes), \ outside quotes, and \ at a line's end to go
/// on with the next line.
enum BashWords {
    static func split(_ scalars: [Unicode.Scalar]) throws(CommandText.Problem) -> [String] {
        var reader = Reader(scalars: scalars)
        try reader.run()
        if reader.open != nil { throw CommandText.Problem(message: "a quote is not closed") }
        return reader.words.map(CommandText.text)
    }

    /// Whether the text ends inside a quote or with a continued line.
    static func isOpen(_ scalars: [Unicode.Scalar]) -> Bool {
        var reader = Reader(scalars: scalars)
        do { try reader.run() } catch { return false }
        return reader.open != nil || reader.continued
    }

    private struct Reader {
        let scalars: [Unicode.Scalar]
        var index = 0
        var words: [[UInt8]] = []
        var word: [UInt8]? = nil
        /// The quote the text ended in.
        var open: Unicode.Scalar? = nil
        /// The text ended with a backslash and a newline.
        var continued = false
        /// A newline ended the command: any other word is a second command.
        var ended = false

        init(scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var next: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        mutating func append(_ scalar: Unicode.Scalar) {
            if word == nil { startWord() }
            word!.append(contentsOf: Array(String(Character(scalar)).utf8))
        }

        mutating func startWord() {
            if word == nil { word = [] }
        }

        mutating func endWord() {
            if let word { words.append(word) }
            word = nil
        }

        mutating func run() throws(CommandText.Problem) {
            while let c = next {
                index += 1
                continued = false
                if ended && c != " " && c != "\t" && c != "\n" && c != "#" {
                    throw CommandText.Problem(message: "the text holds more than one command: paste one curl command")
                }
                switch c {
                case " ", "\t": endWord()
                case "\n":
                    endWord()
                    if !words.isEmpty { ended = true }
                case "\\":
                    guard let escaped = next else { continue }
                    index += 1
                    if escaped == "\n" { continued = index == scalars.count; continue }
                    append(escaped)
                case "'": try singleQuoted()
                case "\"": try doubleQuoted()
                case "$":
                    if next == "'" { index += 1; try ansiQuoted() }
                    else if next == "\"" { index += 1; try doubleQuoted() }
                    else if let n = next, isExpansionStart(n) { throw expansion() }
                    else { append(c) }
                case "`": throw expansion()
                case "#" where word == nil:
                    while let n = next, n != "\n" { index += 1 }
                case ";", "|", "&", "<", ">", "(", ")":
                    throw CommandText.Problem(message: "'\(c)' outside quotes: paste one curl command, "
                                              + "without pipes, redirections or a second command")
                default: append(c)
                }
            }
            endWord()
        }

        func isExpansionStart(_ c: Unicode.Scalar) -> Bool {
            c == "{" || c == "(" || c == "_" || (c.isASCII && (Character(c).isLetter || Character(c).isNumber))
                || "@*#?!-$".unicodeScalars.contains(c)
        }

        func expansion() -> CommandText.Problem {
            CommandText.Problem(message: "the command uses a shell variable or command ($, `): "
                                + "give its words as arguments instead, so that your shell expands them")
        }

        mutating func singleQuoted() throws(CommandText.Problem) {
            startWord()
            while let c = next {
                index += 1
                if c == "'" { return }
                append(c)
            }
            open = "'"
        }

        mutating func doubleQuoted() throws(CommandText.Problem) {
            startWord()
            while let c = next {
                index += 1
                switch c {
                case "\"": return
                case "\\":
                    guard let escaped = next else { continue }
                    index += 1
                    switch escaped {
                    case "\n": continue
                    case "$", "`", "\"", "\\": append(escaped)
                    default: append("\\"); append(escaped)
                    }
                case "$":
                    if let n = next, isExpansionStart(n) { throw expansion() }
                    append(c)
                case "`": throw expansion()
                default: append(c)
                }
            }
            open = "\""
        }

        /// $'...': bash's ANSI-C quoting, as Chrome and Firefox write a value
        /// with a quote, a control character or (Firefox) a non-ASCII one.
        mutating func ansiQuoted() throws(CommandText.Problem) {
            startWord()
            while let c = next {
                index += 1
                if c == "'" { return }
                guard c == "\\", let e = next else { append(c); continue }
                index += 1
                switch e {
                case "a": word!.append(7)
                case "b": word!.append(8)
                case "e", "E": word!.append(27)
                case "f": word!.append(12)
                case "n": word!.append(10)
                case "r": word!.append(13)
                case "t": word!.append(9)
                case "v": word!.append(11)
                case "\\", "'", "\"", "?": append(e)
                case "x": if let byte = number(radix: 16, digits: 2) { word!.append(UInt8(byte)) } else { append("\\"); append(e) }
                case "u", "U":
                    if let code = number(radix: 16, digits: e == "u" ? 4 : 8), let scalar = Unicode.Scalar(code) {
                        append(scalar)
                    } else { append("\\"); append(e) }
                case "c":
                    if let control = next { index += 1; word!.append(UInt8(control.value & 0x1F)) }
                case "0"..."7":
                    index -= 1
                    word!.append(UInt8(truncatingIfNeeded: number(radix: 8, digits: 3) ?? 0))
                default: append("\\"); append(e)
                }
            }
            open = "'"
        }

        /// Up to `digits` digits of `radix` at the reader, consumed; nil when there are none.
        mutating func number(radix: UInt32, digits: Int) -> UInt32? {
            var value: UInt32 = 0
            var count = 0
            while count < digits, let c = next, let digit = Character(c).hexDigitValue, UInt32(digit) < radix {
                value = value * radix + UInt32(digit)
                index += 1
                count += 1
            }
            return count == 0 ? nil : value
        }
    }
}

/// cmd.exe, then the C runtime's argument splitting, as a command copied for
/// Windows is read there: first cmd removes its ^ escapes (a ^ at a line's
/// end joins the next line, whose first character it escapes, so "^" and
/// two newlines are one newline in a value) outside "..."; then the
/// program's runtime splits the line at blanks outside "...", where \" is a
/// quote and a run of backslashes before a quote is halved.
///
/// The browsers write every backslash twice (escapeStringWin: \ as \\
/// first, then " as \"), where the C runtime halves only those before a
/// quote: read with its rules, C:\temp copied from a page would arrive as
/// C:\\temp. A browser's copy (its words in ^"...^") is therefore read back
/// as they wrote it: a backslash stands for the character after it.
enum CmdWords {
    static func split(_ scalars: [Unicode.Scalar], browser: Bool = false) throws(CommandText.Problem) -> [String] {
        let line = try commandLine(scalars)
        return browser ? browserArguments(line) : arguments(line)
    }

    /// The words of a browser's copy: blanks separate outside quotes, a
    /// backslash takes the next character as it is.
    static func browserArguments(_ line: [Unicode.Scalar]) -> [String] {
        var words: [String] = []
        var word: String? = nil
        var quoted = false
        var index = 0
        while index < line.count {
            let c = line[index]
            index += 1
            switch c {
            case "\\" where index < line.count:
                word = (word ?? "") + String(Character(line[index]))
                index += 1
            case "\"":
                quoted.toggle()
                word = word ?? ""
            case " ", "\t", "\n":
                if quoted { word = (word ?? "") + String(Character(c)); continue }
                if let w = word { words.append(w) }
                word = nil
            default:
                word = (word ?? "") + String(Character(c))
            }
        }
        if let word { words.append(word) }
        return words
    }

    /// Whether the text ends with a continued line (or inside cmd's quotes).
    static func isOpen(_ scalars: [Unicode.Scalar]) -> Bool {
        var quoted = false
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            index += 1
            if quoted { if c == "\"" { quoted = false }; continue }
            if c == "\"" { quoted = true }
            if c == "^" {
                // ^ then a newline needs the character after it.
                if index >= scalars.count { return true }
                if scalars[index] == "\n" && index + 1 >= scalars.count { return true }
                index += scalars[index] == "\n" ? 2 : 1
            }
        }
        return quoted
    }

    /// What cmd.exe hands the program: ^ escapes removed outside its quotes.
    static func commandLine(_ scalars: [Unicode.Scalar]) throws(CommandText.Problem) -> [Unicode.Scalar] {
        var line: [Unicode.Scalar] = []
        var quoted = false
        var index = 0
        while index < scalars.count {
            let c = scalars[index]
            index += 1
            if quoted {
                if c == "\"" { quoted = false }
                line.append(c)
                continue
            }
            switch c {
            case "^":
                guard index < scalars.count else { continue }
                if scalars[index] == "\n" {
                    index += 1
                    // The first character of the next line is taken as it is.
                    if index < scalars.count { line.append(scalars[index]); index += 1 }
                } else {
                    line.append(scalars[index])
                    index += 1
                }
            case "\"":
                quoted = true
                line.append(c)
            case "\n":
                if scalars[index...].contains(where: { $0 != " " && $0 != "\t" && $0 != "\n" }) {
                    throw CommandText.Problem(message: "the text holds more than one command: paste one curl command")
                }
                index = scalars.count
            case "&", "|", "<", ">":
                throw CommandText.Problem(message: "'\(c)' outside quotes: paste one curl command, "
                                          + "without pipes, redirections or a second command")
            default:
                line.append(c)
            }
        }
        if quoted { throw CommandText.Problem(message: "a quote is not closed") }
        return line
    }

    /// The C runtime's rules (CommandLineToArgvW, parse_cmdline): blanks
    /// separate outside quotes; 2n backslashes before a quote are n and the
    /// quote opens or closes, 2n+1 are n and a literal quote; "" inside
    /// quotes is a quote; other backslashes are themselves.
    static func arguments(_ line: [Unicode.Scalar]) -> [String] {
        var words: [String] = []
        var word: String? = nil
        var quoted = false
        var index = 0
        while index < line.count {
            let c = line[index]
            index += 1
            switch c {
            case "\\":
                var count = 1
                while index < line.count, line[index] == "\\" { count += 1; index += 1 }
                var text = word ?? ""
                if index < line.count, line[index] == "\"" {
                    text += String(repeating: "\\", count: count / 2)
                    if count % 2 == 1 { text += "\""; index += 1 }
                } else {
                    text += String(repeating: "\\", count: count)
                }
                word = text
            case "\"":
                if quoted, index < line.count, line[index] == "\"" {
                    word = (word ?? "") + "\""
                    index += 1
                } else {
                    quoted.toggle()
                    word = word ?? ""
                }
            case " ", "\t", "\n":
                if quoted { word = (word ?? "") + String(Character(c)); continue }
                if let w = word { words.append(w) }
                word = nil
            default:
                word = (word ?? "") + String(Character(c))
            }
        }
        if let word { words.append(word) }
        return words
    }
}
