/// Ctrl-R incremental reverse search over a `HistoryList` (readline's
/// reverse-i-search): typing narrows, Ctrl-R steps to the next older match,
/// Ctrl-S to the next newer one. A query nothing matches keeps the last match
/// shown and marks the search failed, as readline does.
struct HistorySearch: Equatable {
    private(set) var query: [Character] = []
    /// Index in the history of the entry shown, nil before anything matched.
    private(set) var match: Int?
    /// Character offset of the query in that entry: where the cursor goes.
    private(set) var matchOffset = 0
    private(set) var failed = false
    /// The line being edited when the search started, for Ctrl-G.
    let savedText: [Character]
    let savedCursor: Int

    init(savedText: [Character], savedCursor: Int) {
        self.savedText = savedText
        self.savedCursor = savedCursor
    }

    /// The prompt readline shows, with the query.
    var prompt: String {
        (failed ? "(failed reverse-i-search)`" : "(reverse-i-search)`") + String(query) + "': "
    }

    /// Appends to the query; the current match stays if it still matches.
    mutating func extend(with text: String, in history: HistoryList) {
        query.append(contentsOf: text)
        find(in: history, from: match ?? history.count - 1, step: -1, skipping: nil)
    }

    /// Removes the query's last character and searches again from the newest entry.
    mutating func shorten(in history: HistoryList) {
        guard !query.isEmpty else { return }
        query.removeLast()
        failed = false
        if query.isEmpty { match = nil; matchOffset = 0; return }
        find(in: history, from: history.count - 1, step: -1, skipping: nil)
    }

    /// Ctrl-R (step -1) or Ctrl-S (step +1): the next match in that direction
    /// whose text differs from the one shown. An empty query takes `previous`,
    /// the query of the last search, as readline does.
    mutating func next(in history: HistoryList, step: Int, previous: [Character]) {
        if query.isEmpty {
            guard !previous.isEmpty else { return }
            query = previous
            find(in: history, from: history.count - 1, step: -1, skipping: nil)
            return
        }
        let shown = match.map { history[$0] }
        let start = (match ?? (step < 0 ? history.count : -1)) + step
        find(in: history, from: start, step: step, skipping: shown)
    }

    private mutating func find(in history: HistoryList, from start: Int, step: Int, skipping shown: String?) {
        var i = start
        while i >= 0 && i < history.count {
            if history[i] != shown, let offset = Self.offset(of: query, in: Array(history[i])) {
                match = i
                matchOffset = offset
                failed = false
                return
            }
            i += step
        }
        failed = true
    }

    /// Character offset of the first occurrence of `needle` in `haystack`.
    static func offset(of needle: [Character], in haystack: [Character]) -> Int? {
        guard !needle.isEmpty else { return 0 }
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
