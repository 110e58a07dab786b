/// The edit area cut into terminal rows: the prompt, then the text, wrapped
/// at `columns` (a character that does not fit in what is left of a row
/// starts the next one, so a wide character is never split), with each line
/// of a multi-line text starting on a new row after `view.indent` blanks.
///
/// Rows are written with explicit CR LF between them, never by letting the
/// terminal wrap, so the renderer always knows where every row starts.
struct EditorLayout: Equatable {
    /// The bytes of each row (no line end), colours included.
    private(set) var rows: [[UInt8]] = [[]]
    /// Columns each row takes.
    private(set) var widths: [Int] = [0]
    private(set) var cursorRow = 0
    private(set) var cursorColumn = 0
    private let columns: Int
    /// The SGR sequence in force, reopened at the start of every row.
    private var style: [UInt8]?

    static let reset = Array("\u{1B}[0m".utf8)
    private static let promptStyle = Array("\u{1B}[1m".utf8)          // bold
    private static let searchStyle = Array("\u{1B}[33m".utf8)         // yellow
    private static let statusStyle = Array("\u{1B}[31m".utf8)         // red
    private static let markStyle = Array("\u{1B}[4;31m".utf8)         // red, underlined
    static let footerStyle = Array("\u{1B}[7m".utf8)                  // reverse video

    init(view: EditorView, columns: Int, colors: Bool) {
        self.columns = max(columns, 2)
        if colors { setStyle(view.isSearch ? Self.searchStyle : Self.promptStyle) }
        for c in view.prompt { place(c) }
        if colors { setStyle(nil) }
        for (i, c) in view.text.enumerated() {
            if i == view.cursor { markCursor(before: c == "\n" ? 0 : Self.cell(c).1) }
            if i == view.mark && colors && c != "\n" {
                // The character a rejected line's error is about.
                setStyle(Self.markStyle)
                place(c)
                setStyle(nil)
                continue
            }
            if c == "\n" {
                breakRow()
                if view.indent < self.columns { place(Array(repeating: 0x20, count: view.indent), width: view.indent) }
            } else {
                place(c)
            }
        }
        if view.cursor >= view.text.count { markCursor(before: 1) }
    }

    /// A message under the edit area (why a line was not sent): wrapped at
    /// blanks onto rows one column short of the edge, a word longer than a
    /// row cut where the row ends. Whole, so that the reason and the hint
    /// after it are both read; only past `maxRows` (a screen too short for
    /// it and the line) is it cut, its last row ending in "…".
    static func statusRows(_ message: String, columns: Int, colors: Bool,
                           maxRows: Int) -> [(bytes: [UInt8], width: Int)] {
        let room = max(columns - 1, 1)
        var rows: [[([UInt8], Int)]] = [[]]
        var widths = [0]
        func newRow() {
            rows.append([])
            widths.append(0)
        }
        func add(_ cell: ([UInt8], Int)) {
            if widths[widths.count - 1] + cell.1 > room && widths[widths.count - 1] > 0 { newRow() }
            rows[rows.count - 1].append(cell)
            widths[widths.count - 1] += cell.1
        }
        for (k, word) in message.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            let cells = word.map(cell)
            let width = cells.reduce(0) { $0 + $1.1 }
            let used = widths[widths.count - 1]
            if k > 0 && used > 0 {
                // The blank between words, unless the word then starts a row:
                // it fits on one, or the blank would end this one.
                if used + 1 + width <= room || (width > room && used + 1 < room) { add(([0x20], 1)) } else { newRow() }
            }
            for c in cells { add(c) }
        }
        if rows.count > max(maxRows, 1) {
            rows.removeLast(rows.count - max(maxRows, 1))
            var last = rows[rows.count - 1]
            var width = last.reduce(0) { $0 + $1.1 }
            while let end = last.last, width + 1 > room { last.removeLast(); width -= end.1 }
            last.append((Array("…".utf8), 1))
            rows[rows.count - 1] = last
        }
        return rows.map { row in
            var bytes = colors ? statusStyle : []
            for (cellBytes, _) in row { bytes += cellBytes }
            if colors { bytes += reset }
            return (bytes, row.reduce(0) { $0 + $1.1 })
        }
    }

    /// The status line (`EditorView.footer`): one row, cut with "…" when
    /// wider than the terminal.
    static func statusRow(_ message: String, columns: Int, colors: Bool,
                          style: [UInt8]? = nil) -> (bytes: [UInt8], width: Int) {
        var bytes = colors ? style ?? statusStyle : []
        var width = 0
        let cells = message.map(cell)
        let room = max(columns - 1, 1)
        let fits = cells.reduce(0) { $0 + $1.1 } <= room
        for (cellBytes, w) in cells {
            if !fits && width + w > room - 1 {
                bytes.append(contentsOf: Array("…".utf8))
                width += 1
                break
            }
            bytes.append(contentsOf: cellBytes)
            width += w
        }
        if colors { bytes.append(contentsOf: reset) }
        return (bytes, width)
    }

    /// How a character is drawn: as itself, except the ones that would act
    /// on the terminal: C0 controls and DEL in caret notation, tab as two
    /// blanks (a pasted tab-indented value should look indented), C1 as U+FFFD.
    static func cell(_ c: Character) -> ([UInt8], Int) {
        let first = c.unicodeScalars.first!
        if DisplayWidth.isControl(first) {
            if first == "\t" { return ([0x20, 0x20], 2) }
            if first.value < 0x80 { return ([UInt8(ascii: "^"), UInt8(first.value ^ 0x40)], 2) }
            return (Array("\u{FFFD}".utf8), 1)
        }
        return (Array(String(c).utf8), DisplayWidth.of(c))
    }

    private mutating func place(_ c: Character) {
        let (bytes, width) = Self.cell(c)
        place(bytes, width: width)
    }

    private mutating func place(_ bytes: [UInt8], width: Int) {
        if widths[widths.count - 1] + width > columns && widths[widths.count - 1] > 0 { breakRow() }
        rows[rows.count - 1].append(contentsOf: bytes)
        widths[widths.count - 1] += width
    }

    /// The cursor goes on the next character, `width` columns wide (1 at the
    /// end of the text): when that does not fit on this row, it starts the next.
    private mutating func markCursor(before width: Int) {
        let used = widths[widths.count - 1]
        if used >= columns || (used > 0 && used + width > columns) { breakRow() }
        cursorRow = rows.count - 1
        cursorColumn = widths[widths.count - 1]
    }

    private mutating func breakRow() {
        if style != nil { rows[rows.count - 1].append(contentsOf: Self.reset) }
        rows.append(style ?? [])
        widths.append(0)
    }

    private mutating func setStyle(_ newStyle: [UInt8]?) {
        if let newStyle { rows[rows.count - 1].append(contentsOf: newStyle) }
        else if style != nil { rows[rows.count - 1].append(contentsOf: Self.reset) }
        style = newStyle
    }
}
