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
