/// Draws the edit area on a VT100 terminal (the handful of sequences
/// linenoise uses: CR, CUU, CUF, ED) and remembers where it left it, so that
/// it can be erased and drawn again: after every key, and around every
/// message printed above it.
///
/// Lines longer than the terminal wrap onto more rows rather than scroll
/// sideways: a JSON value is read whole, and a pasted multi-line value needs
/// rows anyway. An area taller than the screen shows the rows around the
/// cursor (the cursor cannot move above the top of the screen, so the
/// renderer never draws what it could not erase).
public struct EditorRenderer {
    private(set) var columns: Int
    /// Screen height; 0 when unknown (then the area is never cut).
    public private(set) var screenRows: Int
    let colors: Bool
    /// Rows the area takes on screen now (empty: nothing drawn), with their widths.
    private(set) var drawnWidths: [Int] = []
    /// Row of the terminal cursor within the drawn area, and its column.
    private(set) var cursorRow = 0
    private var cursorColumn = 0
    /// First layout row shown when the area is cut to the screen.
    private var top = 0

    public init(columns: Int, screenRows: Int, colors: Bool) {
        self.columns = max(columns, 2)
        self.screenRows = max(screenRows, 0)
        self.colors = colors
    }

    /// Erases what was drawn and draws `view`.
    public mutating func draw(_ view: EditorView, into out: inout [UInt8]) {
        erase(into: &out)
        paint(view, into: &out)
    }

    /// Removes the area: the cursor goes to where its first row was, column
    /// 0, and everything from there down is cleared. Output written next
    /// appears where the prompt was (`printAbove`).
    public mutating func erase(into out: inout [UInt8]) {
        guard !drawnWidths.isEmpty else { return }
        Self.cursorUp(cursorRow, into: &out)
        out.append(contentsOf: Self.clearFromRowStart)
        drawnWidths = []
        cursorRow = 0
        cursorColumn = 0
    }

    /// Writes `bytes` (whole lines, each ending in CR LF) where the area was,
    /// then draws the area again below them: an incoming message never
    /// breaks the line being typed.
    public mutating func printAbove(_ bytes: [UInt8], view: EditorView, into out: inout [UInt8]) {
        erase(into: &out)
        out.append(contentsOf: bytes)
        paint(view, into: &out)
    }

    /// Ctrl-L: clears the screen and draws the area at the top.
    public mutating func clearScreen(_ view: EditorView, into out: inout [UInt8]) {
        out.append(contentsOf: Array("\u{1B}[H\u{1B}[2J".utf8))
        drawnWidths = []
        cursorRow = 0
        paint(view, into: &out)
    }

    /// The terminal changed size. Rows drawn earlier may have been re-wrapped
    /// by the terminal (most do so on a narrower window; each row ends in a
    /// hard line break, so rows never join on a wider one): the cursor's row
    /// is recomputed as such a terminal would have moved it, so that the
    /// next `erase` starts from the area's first row. Redraw afterwards.
    public mutating func resize(columns newColumns: Int, screenRows newRows: Int) {
        let newColumns = max(newColumns, 2)
        if newColumns < columns && !drawnWidths.isEmpty {
            var above = 0
            for width in drawnWidths.prefix(cursorRow) { above += max(1, (width + newColumns - 1) / newColumns) }
            cursorRow = above + cursorColumn / newColumns
        }
        columns = newColumns
        screenRows = max(newRows, 0)
    }

    // MARK: drawing

    private mutating func paint(_ view: EditorView, into out: inout [UInt8]) {
        let layout = EditorLayout(view: view, columns: columns, colors: colors)
        let footer = view.footer.map {
            EditorLayout.statusRow($0, columns: columns, colors: colors, style: EditorLayout.footerStyle)
        }
        // A long message takes the rows it needs, up to half the screen (the
        // line it is about keeps the rest).
        let statusLimit = screenRows > 0 ? max(1, (screenRows - (footer == nil ? 0 : 1)) / 2) : Int.max
        let status = view.status.map {
            EditorLayout.statusRows($0, columns: columns, colors: colors, maxRows: statusLimit)
        } ?? []
        let visible = visibleRows(layout, reserving: status.count + (footer == nil ? 0 : 1))
        var widths: [Int] = []
        for (k, row) in visible.enumerated() {
            if k > 0 { out.append(contentsOf: [0x0D, 0x0A]) }
            out.append(contentsOf: layout.rows[row])
            widths.append(layout.widths[row])
        }
        for row in status + [footer].compactMap({ $0 }) {
            out.append(contentsOf: [0x0D, 0x0A])
            out.append(contentsOf: row.bytes)
            widths.append(row.width)
        }
        // From the end of the last row to the cursor.
        let cursorRow = layout.cursorRow - visible.lowerBound
        Self.cursorUp(widths.count - 1 - cursorRow, into: &out)
        out.append(0x0D)
        Self.cursorForward(layout.cursorColumn, into: &out)
        drawnWidths = widths
        self.cursorRow = cursorRow
        cursorColumn = layout.cursorColumn
    }

    /// The layout rows that fit on the screen, keeping the cursor's row in
    /// view and the window where it was when possible (no jumping while
    /// moving inside it).
    private mutating func visibleRows(_ layout: EditorLayout, reserving reserved: Int) -> Range<Int> {
        let count = layout.rows.count
        let room = screenRows > 0 ? max(1, screenRows - reserved) : count
        guard count > room else { top = 0; return 0..<count }
        if layout.cursorRow < top { top = layout.cursorRow }
        if layout.cursorRow >= top + room { top = layout.cursorRow - room + 1 }
        top = min(top, count - room)
        return top..<(top + room)
    }

    /// From the start of the cursor's row to the end of the screen: the row
    /// (EL), then the rest from its second column (ED), then back to the
    /// row's start. Not one ED from column 0: on the screen's first row that
    /// is a clear of the whole screen, which tmux (scroll-on-clear, on by
    /// default) first copies into the scrollback, so that each redraw of an
    /// area at the top (after Ctrl-L, at start, after a narrower window
    /// pushed its first rows off the screen) left a copy of the line there.
    static let clearFromRowStart = Array("\r\u{1B}[K\u{1B}[C\u{1B}[J\r".utf8)

    private static func cursorUp(_ n: Int, into out: inout [UInt8]) {
        guard n > 0 else { return }
        out.append(contentsOf: Array("\u{1B}[\(n)A".utf8))
    }

    private static func cursorForward(_ n: Int, into out: inout [UInt8]) {
        guard n > 0 else { return }
        out.append(contentsOf: Array("\u{1B}[\(n)C".utf8))
    }
}
