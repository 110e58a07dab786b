/// The line editor as a pure state machine (linenoise's model, without the
/// terminal): `handle(key)` changes the text and the cursor and says what the
/// caller should do; `view` is what to draw. Nothing here reads or writes.
///
/// The text is an array of grapheme clusters (`Character`), so that cursor
/// motion and deletion never split a UTF-8 sequence, a combining accent from
/// its letter or an emoji from its modifier. Keys (emacs and readline
/// bindings): Left/Right, Ctrl-B/F, Home/End, Ctrl-A/E (of the current line
/// of a multi-line text), Alt-B/F and Ctrl-Left/Right by word, Backspace,
/// Delete, Ctrl-D, Ctrl-K/U/W kill, Ctrl-Y yank, Alt-D and Alt-Backspace kill a
/// word, Up/Down and Ctrl-P/N through the history (or between the lines of a
/// multi-line text), Ctrl-R search, Alt-Enter a line break, Ctrl-L clear screen,
/// Ctrl-C clear the line, Ctrl-Z suspend.
public struct LineEditor {
    /// What the caller does after a key.
    public enum Action: Equatable {
        case none
        /// Enter on a non-empty text: send it, then `accept()` or `reject(...)`.
        case submit(String)
        /// Ctrl-D on an empty line.
        case endOfInput
        /// Ctrl-C on an empty line.
        case interrupt
        /// Ctrl-L: clear the screen and redraw.
        case clearScreen
        /// Ctrl-Z: stop the process (the terminal restored first).
        case suspend
    }

    public var prompt: String
    public var history: HistoryList
    public private(set) var text: [Character] = []
    public private(set) var cursor = 0
    /// Shown under the edit area until the text changes.
    private(set) var status: String?
    /// The character a rejected line's error is about (see `reject`), until the text changes.
    private(set) var mark: Int?
    private(set) var search: HistorySearch?
    /// An incremental search (Ctrl-R) is on: keys go to it.
    public var isSearching: Bool { search != nil }
    /// Position in the history being shown; `history.count` is the new line.
    private var historyIndex: Int
    /// Unsent edits of recalled entries (and of the new line), by history index.
    private var drafts: [Int: [Character]] = [:]
    /// What the last Ctrl-K/U/W/Alt-D/Alt-Backspace removed, for Ctrl-Y.
    private var killed: [Character] = []
    private var lastQuery: [Character] = []

    public init(prompt: String = "> ", history: HistoryList) {
        self.prompt = prompt
        self.history = history
        self.historyIndex = history.count
    }

    public var view: EditorView {
        let indent = DisplayWidth.of(Array(prompt))
        guard let search else {
            return EditorView(prompt: prompt, isSearch: false, text: text, cursor: cursor, status: status, indent: indent,
                              mark: mark)
        }
        if let match = search.match {
            return EditorView(prompt: search.prompt, isSearch: true, text: Array(history[match]),
                              cursor: search.matchOffset, status: nil, indent: indent)
        }
        return EditorView(prompt: search.prompt, isSearch: true, text: search.savedText,
                          cursor: search.savedCursor, status: nil, indent: indent)
    }

    // MARK: after a submit

    /// The submitted text was sent: start a new, empty line.
    public mutating func accept() {
        text = []
        cursor = 0
        status = nil
        mark = nil
        drafts = [:]
        historyIndex = history.count
    }

    /// The submitted text was not sent: keep it, show why, and mark the
    /// offending byte (an offset in the text's UTF-8). The cursor stays at
    /// the end, where typing goes on and where Ctrl-U and Ctrl-W expect it
    /// (a cursor moved onto the error left Ctrl-U, pressed to start over,
    /// with nothing to cut).
    public mutating func reject(_ message: String, atUTF8Offset offset: Int) {
        cursor = text.count
        let index = Self.characterIndex(in: text, utf8Offset: offset)
        mark = index < text.count ? index : nil
        status = message
    }

    /// Tab: the text before the cursor becomes `completed` (what was typed,
    /// completed); the rest of the line stays.
    public mutating func complete(_ completed: String) {
        replace(0..<cursor, with: completed)
    }

    // MARK: keys

    public mutating func handle(_ key: Key) -> Action {
        if search != nil { return handleSearch(key) }
        switch key {
        case .text(let s), .paste(let s): insert(s)
        case .altEnter: insert("\n")
        case .enter: return text.isEmpty ? .none : .submit(String(text))
        case .backspace: if cursor > 0 { replace((cursor - 1)..<cursor, with: "") }
        case .delete: deleteForward()
        case .left, .ctrl("b"): cursor = max(0, cursor - 1)
        case .right, .ctrl("f"): cursor = min(text.count, cursor + 1)
        case .home, .ctrl("a"): cursor = lineStart(cursor)
        case .end, .ctrl("e"): cursor = lineEnd(cursor)
        case .wordLeft, .alt("b"): cursor = wordStart(before: cursor)
        case .wordRight, .alt("f"): cursor = wordEnd(after: cursor)
        case .up, .ctrl("p"): moveUp()
        case .down, .ctrl("n"): moveDown()
        case .ctrl("k"): killToLineEnd()
        case .ctrl("u"): killToLineStart()
        case .ctrl("w"): kill(spaceDelimitedWordStart(before: cursor)..<cursor)
        case .altBackspace: kill(wordStart(before: cursor)..<cursor)
        case .alt("d"): kill(cursor..<wordEnd(after: cursor))
        case .ctrl("y"): insert(String(killed))
        case .ctrl("r"): startSearch()
        case .ctrl("d"):
            if text.isEmpty { return .endOfInput }
            deleteForward()
        case .ctrl("c"):
            if text.isEmpty { status = nil; return .interrupt }
            clearLine()
        case .ctrl("l"): return .clearScreen
        case .ctrl("z"): return .suspend
        default: break   // Tab, Esc, Ctrl-G and the rest: nothing to do
        }
        return .none
    }

    // MARK: search

    private mutating func startSearch() {
        search = HistorySearch(savedText: text, savedCursor: cursor)
    }

    private mutating func handleSearch(_ key: Key) -> Action {
        guard var search else { return .none }
        switch key {
        case .text(let s), .paste(let s): search.extend(with: s, in: history)
        case .backspace: search.shorten(in: history)
        case .ctrl("r"): search.next(in: history, step: -1, previous: lastQuery)
        case .ctrl("s"): search.next(in: history, step: 1, previous: lastQuery)
        case .ctrl("g"), .ctrl("c"), .escape:
            self.search = nil
            if !search.query.isEmpty { lastQuery = search.query }
            return .none
        default:
            // Any other key takes the match into the line, then does its usual job
            // (readline): Enter sends it, Left starts editing it.
            finishSearch(search)
            return handle(key)
        }
        self.search = search
        return .none
    }

    private mutating func finishSearch(_ search: HistorySearch) {
        self.search = nil
        if !search.query.isEmpty { lastQuery = search.query }
        guard let match = search.match else { return }
        drafts[historyIndex] = search.savedText
        historyIndex = match
        text = drafts[match] ?? Array(history[match])
        cursor = min(search.matchOffset, text.count)
        status = nil
        mark = nil
    }

    // MARK: editing

    private mutating func insert(_ s: String) {
        replace(cursor..<cursor, with: s)
    }

    private mutating func deleteForward() {
        if cursor < text.count { replace(cursor..<(cursor + 1), with: "") }
    }

    private mutating func kill(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        killed = Array(text[range])
        replace(range, with: "")
    }

    /// Ctrl-K: to the end of the line; at the end of a line, the line break.
    private mutating func killToLineEnd() {
        let end = lineEnd(cursor)
        kill(cursor..<(end == cursor ? min(cursor + 1, text.count) : end))
    }

    /// Ctrl-U: to the start of the line; at the start of a line, the line break.
    private mutating func killToLineStart() {
        let start = lineStart(cursor)
        kill((start == cursor ? max(cursor - 1, 0) : start)..<cursor)
    }

    private mutating func clearLine() {
        text = []
        cursor = 0
        status = nil
        mark = nil
        drafts = [:]
        historyIndex = history.count
    }

    /// Every change to the text goes through here: the text is rebuilt as a
    /// string so that grapheme clusters form again across the edit (a
    /// combining mark typed after its letter joins it), and the cursor lands
    /// after the inserted text.
    private mutating func replace(_ range: Range<Int>, with s: String) {
        let before = String(text[..<range.lowerBound]) + s
        let joined = before + String(text[range.upperBound...])
        text = Array(joined)
        cursor = Self.characterIndex(in: text, utf8Offset: before.utf8.count)
        status = nil
        mark = nil
    }

    /// Index of the first character starting at or after `offset` UTF-8 bytes.
    static func characterIndex(in text: [Character], utf8Offset: Int) -> Int {
        var offset = 0
        for (i, c) in text.enumerated() {
            if offset >= utf8Offset { return i }
            offset += c.utf8.count
        }
        return text.count
    }

    // MARK: history and lines

    private mutating func moveUp() {
        let start = lineStart(cursor)
        if start > 0 { return moveToLine(startingAt: lineStart(start - 1)) }
        guard historyIndex > 0 else { return }
        recall(historyIndex - 1)
    }

    private mutating func moveDown() {
        let end = lineEnd(cursor)
        if end < text.count { return moveToLine(startingAt: end + 1) }
        guard historyIndex < history.count else { return }
        recall(historyIndex + 1)
    }

    private mutating func recall(_ index: Int) {
        drafts[historyIndex] = text
        historyIndex = index
        text = drafts[index] ?? (index < history.count ? Array(history[index]) : [])
        cursor = text.count
        status = nil
        mark = nil
    }

    /// Moves to the line starting at `start`, in the column the cursor is in now.
    private mutating func moveToLine(startingAt start: Int) {
        let column = DisplayWidth.of(text[lineStart(cursor)..<cursor])
        let end = lineEnd(start)
        var i = start
        var width = 0
        while i < end {
            let w = DisplayWidth.of(text[i])
            if width + w > column { break }
            width += w
            i += 1
        }
        cursor = i
    }

    private func lineStart(_ i: Int) -> Int {
        var j = i
        while j > 0 && text[j - 1] != "\n" { j -= 1 }
        return j
    }

    private func lineEnd(_ i: Int) -> Int {
        var j = i
        while j < text.count && text[j] != "\n" { j += 1 }
        return j
    }

    // MARK: words

    private static func isWordCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_"
    }

    /// Alt-B: back over non-word characters, then over a word (emacs backward-word).
    private func wordStart(before i: Int) -> Int {
        var j = i
        while j > 0 && !Self.isWordCharacter(text[j - 1]) { j -= 1 }
        while j > 0 && Self.isWordCharacter(text[j - 1]) { j -= 1 }
        return j
    }

    /// Alt-F: over non-word characters, then over a word (emacs forward-word).
    private func wordEnd(after i: Int) -> Int {
        var j = i
        while j < text.count && !Self.isWordCharacter(text[j]) { j += 1 }
        while j < text.count && Self.isWordCharacter(text[j]) { j += 1 }
        return j
    }

    /// Ctrl-W: back over blanks, then over non-blanks (readline unix-word-rubout).
    private func spaceDelimitedWordStart(before i: Int) -> Int {
        var j = i
        while j > 0 && text[j - 1].isWhitespace { j -= 1 }
        while j > 0 && !text[j - 1].isWhitespace { j -= 1 }
        return j
    }
}
