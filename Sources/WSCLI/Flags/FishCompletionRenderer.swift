/// Renders `completions/wspipe.fish` from `flagTable`: one `complete` line per
/// flag, with its help as the description; `-r -F` (files) after a `.file`
/// flag, `-r -f -a` with the fixed list after a `.choices` flag, `-r -f`
/// (nothing to offer) after a free-text flag. The URL is not completed.
public enum FishCompletionRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var lines = [
            "# fish completion for wspipe",
            "# " + DocGenerator.notice("fish"),
            "# Install: copy to ~/.config/fish/completions/wspipe.fish.",
            "",
            "# The URL is not a file name.",
            "complete -c wspipe -f",
        ]
        for flag in table { lines.append(line(flag)) }
        return lines.joined(separator: "\n") + "\n"
    }

    static func line(_ flag: Flag) -> String {
        var words = ["complete", "-c", "wspipe"]
        if let short = flag.short { words += ["-s", quote(String(short))] }
        words += ["-l", flag.long]
        switch flag.completion {
        case .none: if flag.takesValue { words += ["-r", "-f"] }
        case .file: words += ["-r", "-F"]
        case .choices(let choices): words += ["-r", "-f", "-a", quote(choices.joined(separator: " "))]
        }
        var description = flag.help
        if description.hasSuffix(".") { description.removeLast() }
        words += ["-d", quote(description)]
        return words.joined(separator: " ")
    }

    /// `text` in single quotes for fish: only '\\' and '\'' are escaped there.
    static func quote(_ text: String) -> String {
        let escaped = text.map { $0 == "\\" || $0 == "'" ? "\\" + String($0) : String($0) }.joined()
        return "'" + escaped + "'"
    }
}
