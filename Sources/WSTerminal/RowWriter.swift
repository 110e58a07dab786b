/// Styled text cut into terminal rows of at most `width` columns, each row
/// ending in its own line break (never the terminal's wrap), so that whoever
/// draws them knows how many rows they take.
///
/// Text goes in as pieces with a style; the writer opens a style only where
/// it changes and closes it at the end of every row, so a row can be printed
/// on its own and a colour never runs into the margin of the next.
public struct RowWriter {
    /// What a piece of text is, for its colour: JSON's tokens as jq colours
    /// them (JSONColorizer uses the same), and a dim for our own labels.
    public enum Style: Equatable, Sendable {
        case plain, key, string, literal, punctuation, dim
        /// Any other SGR sequence (the colours of notes).
        case sgr([UInt8])

        public var sgr: [UInt8] {
            switch self {
            case .plain: return []
            case .key: return Self.keySGR
            case .string: return Self.stringSGR
            case .literal: return Self.literalSGR
            case .punctuation: return Self.punctuationSGR
            case .dim: return RowWriter.dimStyle
            case .sgr(let sequence): return sequence
            }
        }

        private static let keySGR = Array("\u{1B}[34;1m".utf8)         // bold blue, as jq
        private static let stringSGR = Array("\u{1B}[32m".utf8)        // green
        private static let literalSGR = Array("\u{1B}[90m".utf8)       // grey: true false null
        private static let punctuationSGR = Array("\u{1B}[1m".utf8)    // bold: { } [ ] : ,
    }

    public static let dimStyle = Array("\u{1B}[2m".utf8)
    public static let reset = Array("\u{1B}[0m".utf8)
    public static let ellipsis = Array("…".utf8)

    public let width: Int
    public let colors: Bool
    private(set) var rows: [[UInt8]] = [[]]
    private(set) var widths: [Int] = [0]
    private var style = Style.plain

    public init(width: Int, colors: Bool) {
        self.width = max(width, 1)
        self.colors = colors
    }

    /// Columns used in the current row.
    public var column: Int { widths[widths.count - 1] }
    public var room: Int { width - column }

    /// Appends `bytes` (display width `columns`) to the current row, whether
    /// or not it fits: the caller decides where rows break.
    public mutating func write(_ bytes: some Sequence<UInt8>, columns: Int, style: Style = .plain) {
        setStyle(style)
        rows[rows.count - 1].append(contentsOf: bytes)
        widths[widths.count - 1] += columns
    }

    public mutating func blanks(_ count: Int, style: Style = .plain) {
        guard count > 0 else { return }
        write(repeatElement(0x20, count: count), columns: count, style: style)
    }

    /// Ends the current row and starts the next with `indent` blanks.
    public mutating func newRow(indent: Int = 0) {
        setStyle(.plain)
        rows.append([])
        widths.append(0)
        blanks(indent)
    }

    /// Writes `text`, continuing on new rows (after `indent` blanks) where
    /// the current one is full: cut only between `TextUnits`, so a
    /// character, a wide character or a JSON escape is never split. With
    /// `isString` (a JSON string), a row ends after a blank when one is near
    /// its end (a long string reads better cut between its words), and
    /// never next to a quote. `reserve` columns
    /// are kept free after the last unit, for what must follow on its row
    /// (a comma).
    public mutating func writeWrapping(_ text: [UInt8], style: Style, indent: Int, reserve: Int = 0, isString: Bool = false) {
        let units = TextUnits.of(text)
        var start = 0
        var used = 0
        var afterBlank: Int?
        var k = 0
        while k < units.count {
            let need = units[k].columns + (k == units.count - 1 ? reserve : 0)
            if used + need > room && (used > 0 || column > indent) {
                var cut = k
                if isString, let blank = afterBlank, blank > start, k - blank < Self.blankLookBack { cut = blank }
                // A string's quotes stay with a character of it: no row ends
                // with the opening quote alone or starts with the closing one.
                if isString && cut == units.count - 1 && cut - 1 > start { cut -= 1 }
                if isString && start == 0 && cut == 1 && column > indent { cut = 0 }
                let part = units[start..<cut]
                if let first = part.first, let last = part.last {
                    write(text[first.bytes.lowerBound..<last.bytes.upperBound],
                          columns: part.reduce(0) { $0 + $1.columns }, style: style)
                }
                newRow(indent: indent)
                start = cut
                used = units[cut..<k].reduce(0) { $0 + $1.columns }
                afterBlank = nil
                continue
            }
            used += units[k].columns
            if text[units[k].bytes.lowerBound] == 0x20 { afterBlank = k + 1 }
            k += 1
        }
        let rest = units[start...]
        if let first = rest.first, let last = rest.last {
            write(text[first.bytes.lowerBound..<last.bytes.upperBound], columns: used, style: style)
        }
    }

    /// How far back from a row's end `writeWrapping(isString: true)` looks for a blank.
    public static let blankLookBack = 16

    /// Writes prose: rows break at blanks (the blank dropped), and a word
    /// longer than a whole row is cut as `writeWrapping` cuts.
    public mutating func writeProse(_ text: [UInt8], style: Style, indent: Int) {
        for (k, word) in text.split(separator: 0x20, omittingEmptySubsequences: false).enumerated() {
            let word = Array(word)
            let columns = TextUnits.columns(word)
            let gap = k > 0 ? 1 : 0
            if gap + columns <= room {
                blanks(gap, style: style)
                write(word, columns: columns, style: style)
            } else if columns <= width - indent {
                newRow(indent: indent)
                write(word, columns: columns, style: style)
            } else {
                if gap + 1 <= room { blanks(gap, style: style) } else { newRow(indent: indent) }
                writeWrapping(word, style: style, indent: indent)
            }
        }
    }

    /// Writes as much of `text` as fits in what is left of the row minus one
    /// column; false when it did not all fit (the caller then ends with "…").
    public mutating func writeCut(_ text: [UInt8], columns: Int, style: Style) -> Bool {
        if columns <= room - 1 {
            write(text, columns: columns, style: style)
            return true
        }
        var end = 0
        var used = 0
        for unit in TextUnits.of(text) {
            if used + unit.columns > room - 1 { break }
            used += unit.columns
            end = unit.bytes.upperBound
        }
        write(text[..<end], columns: used, style: style)
        return false
    }

    /// The row cut short: "…" in the last column.
    public mutating func writeEllipsis() {
        write(Self.ellipsis, columns: 1, style: .dim)
    }

    /// The rows, every style closed.
    public mutating func finish() -> (rows: [[UInt8]], widths: [Int]) {
        setStyle(.plain)
        return (rows, widths)
    }

    private mutating func setStyle(_ new: Style) {
        guard colors, new != style else { return }
        if style != .plain { rows[rows.count - 1].append(contentsOf: Self.reset) }
        if new != .plain { rows[rows.count - 1].append(contentsOf: new.sgr) }
        style = new
    }
}

/// Where text shown at a terminal may be cut: between grapheme clusters,
/// with a JSON escape (`\n`, `\u00e9`) kept whole, each with the columns it
/// takes. The text is valid UTF-8 with nothing a terminal acts on
/// (TerminalEscaping has been through it).
public enum TextUnits {
    public struct Unit: Sendable {
        public var bytes: Range<Int>
        public var columns: Int
    }

    public static func of(_ text: [UInt8]) -> [Unit] {
        var units: [Unit] = []
        units.reserveCapacity(text.count)
        if !text.contains(where: { $0 >= 0x80 }) {
            var i = 0
            while i < text.count {
                let length = text[i] == 0x5C ? escapeLength(text, at: i) : 1
                units.append(Unit(bytes: i..<min(i + length, text.count), columns: min(length, text.count - i)))
                i += length
            }
            return units
        }
        var offset = 0
        var glue = 0
        for c in String(decoding: text, as: UTF8.self) {
            let length = c.utf8.count
            let columns = c.isASCII ? 1 : DisplayWidth.of(c)
            if glue > 0, !units.isEmpty {
                units[units.count - 1].bytes = units[units.count - 1].bytes.lowerBound..<(offset + length)
                units[units.count - 1].columns += columns
                let afterBackslash = units[units.count - 1].bytes.count == 2
                glue = afterBackslash && c == "u" ? 4 : afterBackslash && c == "x" ? 2 : glue - 1
            } else {
                units.append(Unit(bytes: offset..<(offset + length), columns: columns))
                if c == "\\" { glue = 1 }
            }
            offset += length
        }
        return units
    }

    /// Columns `text` takes.
    public static func columns(_ text: [UInt8]) -> Int {
        if !text.contains(where: { $0 >= 0x80 }) { return text.count }
        return String(decoding: text, as: UTF8.self).reduce(0) { $0 + ($1.isASCII ? 1 : DisplayWidth.of($1)) }
    }

    /// Bytes of the escape at `i` (a backslash): 6 for \uXXXX, 4 for
    /// TerminalEscaping's \xHH, else 2.
    private static func escapeLength(_ text: [UInt8], at i: Int) -> Int {
        guard i + 1 < text.count else { return 1 }
        switch text[i + 1] {
        case UInt8(ascii: "u"): return 6
        case UInt8(ascii: "x"): return 4
        default: return 2
        }
    }
}
