import WSJSON
import WSTerminal

/// A valid JSON message laid out in terminal rows for the transcript
/// (wspipe(1): INTERACTIVE MODE): on one row when it fits, otherwise
/// pretty-printed, two blanks per level, with an array of scalars (numbers,
/// strings, literals) kept on one line when it fits. A line wider than the
/// terminal continues on the next rows, two columns further in than its own
/// indentation, and breaks only between tokens, or inside a string that is
/// too long for a row of its own: a key, a number or a short string is never
/// cut in two.
///
/// Every token is shown as it came, escaped for the terminal
/// (TerminalEscaping, JSON context: a control character in a string becomes
/// its \u escape), so what is copied from the screen is the same JSON.
struct JSONLayout {
    private enum Kind: Equatable { case open, close, colon, comma, string, scalar }

    private struct Token {
        var kind: Kind
        /// The token as shown: escaped, one byte for punctuation.
        var text: [UInt8]
        var columns: Int
        /// A key: a string followed by a colon.
        var isKey = false
        /// For "[" of a non-empty array whose elements are all scalars: the
        /// index of its "]" and the columns `[a, b, c]` takes.
        var inline: (close: Int, columns: Int)?
    }

    /// A word of a pretty-printed line: a token with the punctuation that
    /// must stay on its row (a key's colon, a value's comma).
    private struct Word {
        var pieces: [(text: [UInt8], style: RowWriter.Style)] = []
        var columns = 0
        /// Only a string is ever cut in two (and then only when it does not fit a row of its own).
        var isString = false

        mutating func add(_ text: [UInt8], _ columns: Int, _ style: RowWriter.Style) {
            pieces.append((text, style))
            self.columns += columns
        }
    }

    private struct Line {
        var depth: Int
        var words: [Word] = []
        /// Columns of the words and the blanks between them, indentation aside.
        var textColumns: Int { words.reduce(0) { $0 + $1.columns } + max(words.count - 1, 0) }
    }

    static let indent = 2
    private let tokens: [Token]

    /// `json` must be valid JSON (JSONScanner.validate said so).
    init(_ json: UnsafeRawBufferPointer) {
        tokens = Self.tokenize(json)
    }

    // MARK: one row

    /// The compact form on the writer's current row, cut with "…" where the
    /// row ends. With `more`, what was given is the start of a longer value:
    /// it ends with "…" even when it all fits.
    func writeCompact(into writer: inout RowWriter, more: Bool = false) {
        for token in tokens {
            guard writer.writeCut(token.text, columns: token.columns, style: style(of: token)) else {
                writer.writeEllipsis()
                return
            }
        }
        if more { writer.writeEllipsis() }
    }

    // MARK: pretty

    /// The pretty-printed form from the writer's current row on.
    func writePretty(into writer: inout RowWriter) {
        let lines = self.lines(width: writer.width)
        for (n, line) in lines.enumerated() {
            if n > 0 { writer.newRow() }
            write(line, into: &writer)
        }
    }

    /// One line of the pretty form, on as many rows as it needs.
    private func write(_ line: Line, into writer: inout RowWriter) {
        // Deep nesting on a narrow terminal: the indentation stops growing
        // at half the width, so every row keeps room for its text.
        let indent = min(line.depth * Self.indent, writer.width / 2)
        let continuation = min(indent + Self.indent, writer.width / 2 + Self.indent)
        writer.blanks(indent)
        var rowHasWord = false
        for word in line.words {
            let gap = rowHasWord ? 1 : 0
            if word.columns + gap <= writer.room {
                writer.blanks(gap)
                writeWhole(word, into: &writer)
            } else if word.columns <= writer.width - continuation || !word.isString {
                if rowHasWord || writer.column > continuation { writer.newRow(indent: continuation) }
                writeWrapping(word, into: &writer, indent: continuation)
            } else {
                // A string too long for any row: it starts here when enough
                // of the row is left to be worth it, and continues below.
                if rowHasWord && writer.room - gap < min(10, writer.width / 3) {
                    writer.newRow(indent: continuation)
                } else {
                    writer.blanks(gap)
                }
                writeWrapping(word, into: &writer, indent: continuation)
            }
            rowHasWord = true
        }
    }

    private func writeWhole(_ word: Word, into writer: inout RowWriter) {
        for piece in word.pieces { writer.write(piece.text, columns: TextUnits.columns(piece.text), style: piece.style) }
    }

    /// A word that may not fit: cut between its units where rows end (a
    /// number wider than the whole row, the only other case, is cut too:
    /// there is no other way to show it).
    private func writeWrapping(_ word: Word, into writer: inout RowWriter, indent: Int) {
        for (k, piece) in word.pieces.enumerated() {
            // What follows the piece (a comma, a bracket) stays on its last row.
            let tail = word.pieces[(k + 1)...].reduce(0) { $0 + TextUnits.columns($1.text) }
            writer.writeWrapping(piece.text, style: piece.style, indent: indent, reserve: tail,
                                 isString: piece.style == .string)
        }
    }

    /// The pretty-printed lines, before they are cut into rows of `width`.
    private func lines(width: Int) -> [Line] {
        var lines: [Line] = []
        var line = Line(depth: 0)
        var depth = 0
        var i = 0
        func endLine() {
            if !line.words.isEmpty { lines.append(line) }
            line = Line(depth: depth)
        }
        func glue(_ text: [UInt8]) {
            if line.words.isEmpty { line.words.append(Word()) }
            line.words[line.words.count - 1].add(text, 1, .punctuation)
        }
        while i < tokens.count {
            let token = tokens[i]
            switch token.kind {
            case .open:
                if i + 1 < tokens.count && tokens[i + 1].kind == .close {
                    var word = Word()
                    word.add(token.text + tokens[i + 1].text, 2, .punctuation)
                    line.words.append(word)
                    i += 2
                    continue
                }
                if let inline = token.inline, fits(inline, after: line, width: width) {
                    line.words += inlineWords(from: i, to: inline.close)
                    i = inline.close + 1
                    continue
                }
                var word = Word()
                word.add(token.text, 1, .punctuation)
                line.words.append(word)
                depth += 1
                endLine()
            case .close:
                depth -= 1
                endLine()
                var word = Word()
                word.add(token.text, 1, .punctuation)
                line.words.append(word)
            case .colon:
                glue(token.text)
            case .comma:
                glue(token.text)
                endLine()
            case .string, .scalar:
                line.words.append(word(token))
            }
            i += 1
        }
        endLine()
        return lines
    }

    /// Whether `[a, b, c]` (and the comma that may follow it) fits on `line`.
    private func fits(_ inline: (close: Int, columns: Int), after line: Line, width: Int) -> Bool {
        let comma = inline.close + 1 < tokens.count && tokens[inline.close + 1].kind == .comma ? 1 : 0
        let gap = line.words.isEmpty ? 0 : 1
        return min(line.depth * Self.indent, width / 2) + line.textColumns + gap + inline.columns + comma <= width
    }

    /// The words of an inline array: "[" on the first element, "," after
    /// each but the last, "]" on the last.
    private func inlineWords(from open: Int, to close: Int) -> [Word] {
        var words: [Word] = []
        var pending = Word()
        pending.add(tokens[open].text, 1, .punctuation)
        for k in (open + 1)..<close {
            let token = tokens[k]
            if token.kind == .comma {
                pending.add(token.text, 1, .punctuation)
                words.append(pending)
                pending = Word()
            } else {
                pending.add(token.text, token.columns, style(of: token))
                pending.isString = token.kind == .string
            }
        }
        pending.add(tokens[close].text, 1, .punctuation)
        words.append(pending)
        return words
    }

    private func word(_ token: Token) -> Word {
        var word = Word()
        word.add(token.text, token.columns, style(of: token))
        word.isString = token.kind == .string && !token.isKey
        return word
    }

    private func style(of token: Token) -> RowWriter.Style {
        switch token.kind {
        case .open, .close, .colon, .comma: return .punctuation
        case .string: return token.isKey ? .key : .string
        case .scalar:
            let first = token.text.first ?? 0
            return first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "n") ? .literal : .plain
        }
    }

    // MARK: tokens

    private static func tokenize(_ json: UnsafeRawBufferPointer) -> [Token] {
        var tokens: [Token] = []
        /// Open containers: the index of the opening token and whether only
        /// scalars were seen in it so far (always false for an object).
        var open: [(index: Int, scalarsOnly: Bool, columns: Int, elements: Int)] = []
        var i = 0
        let n = json.count
        func punctuation(_ kind: Kind, _ byte: UInt8) {
            tokens.append(Token(kind: kind, text: [byte], columns: 1))
        }
        func scalarSeen(_ columns: Int) {
            guard let top = open.last else { return }
            open[open.count - 1].columns = top.columns + columns
            open[open.count - 1].elements = top.elements + 1
        }
        while i < n {
            let b = json[i]
            switch b {
            case 0x20, 0x0A, 0x0D, 0x09:
                i += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if !open.isEmpty { open[open.count - 1].scalarsOnly = false }
                open.append((tokens.count, b == UInt8(ascii: "["), 0, 0))
                punctuation(.open, b)
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if let container = open.popLast(), container.scalarsOnly, container.elements > 0 {
                    let columns = 2 + container.columns + 2 * (container.elements - 1)
                    tokens[container.index].inline = (tokens.count, columns)
                }
                punctuation(.close, b)
                i += 1
            case UInt8(ascii: ":"):
                tokens[tokens.count - 1].isKey = true   // only in objects, never inline
                punctuation(.colon, b)
                i += 1
            case UInt8(ascii: ","):
                punctuation(.comma, b)
                i += 1
            case 0x22:
                let end = stringEnd(json, from: i)
                let text = TerminalEscaping.escaped(Array(json[i..<end]), in: .json)
                let columns = TextUnits.columns(text)
                tokens.append(Token(kind: .string, text: text, columns: columns))
                scalarSeen(columns)
                i = end
            default:
                var end = i + 1
                while end < n, !isDelimiter(json[end]) { end += 1 }
                tokens.append(Token(kind: .scalar, text: Array(json[i..<end]), columns: end - i))
                scalarSeen(end - i)
                i = end
            }
        }
        return tokens
    }

    /// Index after the closing quote of the string opening at `start`.
    private static func stringEnd(_ json: UnsafeRawBufferPointer, from start: Int) -> Int {
        var i = start + 1
        while i < json.count {
            if json[i] == 0x5C { i += 2; continue }
            if json[i] == 0x22 { return i + 1 }
            i += 1
        }
        return json.count
    }

    private static func isDelimiter(_ b: UInt8) -> Bool {
        b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == UInt8(ascii: ":")
            || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }
}
