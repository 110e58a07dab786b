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
