import WSTransport

/// What Tab does (wspipe(1): INTERACTIVE MODE): completes the command being
/// typed, a saved message's name after `/send` or `/save`, a file's path
/// after `/binary`. One candidate: it is completed; several: as far as they
/// agree, and when that adds nothing, they are listed. Pure: the names in a
/// directory come from `list`.
struct TabCompletion {
    /// Saved messages' names.
    var savedNames: () -> [String] = { [] }
    /// The names in a directory (nil when it cannot be read).
    var list: (String) -> [FileSystem.DirectoryEntry]? = { _ in nil }
    /// For "~/".
    var home: String?

    enum Outcome: Equatable {
        /// Nothing to complete.
        case none
        /// The text before the cursor becomes this.
        case complete(String)
        /// Several candidates, none longer than what is typed: list them.
        case list([String])
    }

    /// At most this many candidates are listed.
    static let maxListed = 60

    func complete(_ beforeCursor: String) -> Outcome {
        guard beforeCursor.hasPrefix("/"), !beforeCursor.hasPrefix("//"), !beforeCursor.contains("\n") else {
            return .none
        }
        guard let blank = beforeCursor.firstIndex(of: " ") else {
            let typed = String(beforeCursor.dropFirst())
            let candidates = SlashCommand.names.filter { $0.hasPrefix(typed) }.sorted()
            return outcome(typed: typed, candidates: candidates, prefix: "/") {
                SlashCommand.takesNoArgument.contains($0) ? "" : " "
            }
        }
        let command = beforeCursor[beforeCursor.index(after: beforeCursor.startIndex)..<blank]
        let argument = String(beforeCursor[beforeCursor.index(after: blank)...])
        switch command {
        case "send", "save":
            guard !argument.contains(" ") else { return .none }
            let candidates = savedNames().filter { $0.hasPrefix(argument) }.sorted()
            return outcome(typed: argument, candidates: candidates, prefix: "/\(command) ") { _ in command == "save" ? " " : "" }
        case "binary":
            return completePath(argument, prefix: "/binary ")
        default:
            return .none
        }
    }

    /// A path: the names in its directory that start with its last component.
    private func completePath(_ argument: String, prefix: String) -> Outcome {
        let leading = String(argument.prefix { $0 == " " })
        let path = String(argument.dropFirst(leading.count))
        let slash = path.lastIndex(of: "/")
        let directoryPart = slash.map { String(path[...$0]) } ?? ""
        let typed = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var directory = directoryPart.isEmpty ? "." : directoryPart
        if directory.hasPrefix("~/"), let home, !home.isEmpty { directory = home + directory.dropFirst() }
        guard let entries = list(directory) else { return .none }
        let matching = entries.filter { $0.name.hasPrefix(typed) && (typed.hasPrefix(".") || !$0.name.hasPrefix(".")) }
            .sorted { $0.name < $1.name }
        let isDirectory = Dictionary(matching.map { ($0.name, $0.isDirectory) }, uniquingKeysWith: { a, _ in a })
        let outcome = outcome(typed: typed, candidates: matching.map(\.name), prefix: prefix + leading + directoryPart) {
            isDirectory[$0] == true ? "/" : ""
        }
        if case .list(let names) = outcome {
            return .list(names.map { isDirectory[$0] == true ? $0 + "/" : $0 })
        }
        return outcome
    }

    private func outcome(typed: String, candidates: [String], prefix: String,
                         suffix: (String) -> String) -> Outcome {
        guard let first = candidates.first else { return .none }
        if candidates.count == 1 { return .complete(prefix + first + suffix(first)) }
        let common = candidates.dropFirst().reduce(first) { Self.commonPrefix($0, $1) }
        if common.count > typed.count { return .complete(prefix + common) }
        var listed = Array(candidates.prefix(Self.maxListed))
        if candidates.count > Self.maxListed { listed.append("(\(candidates.count - Self.maxListed) more)") }
        return .list(listed)
    }

    private static func commonPrefix(_ a: String, _ b: String) -> String {
        String(zip(a, b).prefix { $0 == $1 }.map(\.0))
    }
}
