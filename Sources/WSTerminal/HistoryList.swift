/// The lines sent in this and earlier runs, oldest first, at most `limit`:
/// what Up/Down and Ctrl-R walk through. `HistoryFile` keeps it on disk.
public struct HistoryList: Equatable {
    public let limit: Int
    public private(set) var entries: [String] = []

    public init(limit: Int, entries: [String] = []) {
        self.limit = max(1, limit)
        self.entries = Array(entries.suffix(self.limit))
    }

    public var count: Int { entries.count }

    public subscript(index: Int) -> String { entries[index] }

    /// Records `entry` unless it is empty or repeats the newest entry (as
    /// bash's ignoredups: pressing Up twice should not show the same line twice).
    /// Returns whether it was recorded.
    @discardableResult
    public mutating func add(_ entry: String) -> Bool {
        guard !entry.isEmpty, entry != entries.last else { return false }
        entries.append(entry)
        if entries.count > limit { entries.removeFirst(entries.count - limit) }
        return true
    }
}
