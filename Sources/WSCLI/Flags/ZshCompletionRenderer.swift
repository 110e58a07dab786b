/// Renders `completions/_wspipe` from `flagTable`: one `_arguments` spec per
/// spelling of each flag, with its help as the description, `_files` after a
/// `.file` flag, the fixed list after a `.choices` flag, and only the value
/// name as a message after a free-text flag. A flag that is not repeatable is
/// not offered again once given, nor are the flags it conflicts with.
public enum ZshCompletionRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var lines = [
            "#compdef wspipe",
            "# zsh completion for wspipe",
            "# " + DocGenerator.notice("zsh"),
            "# Install: put this file, named _wspipe, in a directory of $fpath and run compinit.",
            "",
            "local -a args",
            "args=(",
        ]
        for flag in table {
            for spec in specs(flag, table) { lines.append("  " + quote(spec)) }
        }
        lines += [
            "  " + quote("::URL (ws\\:// or wss\\://): "),
            ")",
            "_arguments -s -S : $args",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// The `_arguments` specs of one flag (one per spelling), unquoted.
    static func specs(_ flag: Flag, _ table: [Flag]) -> [String] {
        var excluded: [String] = flag.repeatable ? [] : spellings(flag)
        for other in flag.conflicts {
            if let conflicting = table.first(where: { $0.long == other }) { excluded += spellings(conflicting) }
        }
        var prefix = excluded.isEmpty ? "" : "(" + excluded.joined(separator: " ") + ")"
        if flag.repeatable { prefix += "*" }
        var description = flag.help
        if description.hasSuffix(".") { description.removeLast() }
        var suffix = "[" + escapeDescription(description) + "]"
        if let valueName = flag.valueName {
            suffix += ":" + escapeMessage(valueName) + ":" + action(flag.completion)
        }
        var forms: [String] = []
        if let short = flag.short { forms.append("-\(short)" + (flag.takesValue ? "+" : "")) }
        forms.append("--" + flag.long + (flag.takesValue ? "=" : ""))
        return forms.map { prefix + $0 + suffix }
    }

    static func spellings(_ flag: Flag) -> [String] {
        (flag.short.map { ["-\($0)"] } ?? []) + ["--" + flag.long]
    }

    /// What completes the value: `_files`, a fixed list, or (a single space)
    /// nothing but the message.
    static func action(_ completion: CompletionKind) -> String {
        switch completion {
        case .none: return " "
        case .file: return "_files"
        case .choices(let choices): return "(" + choices.map(escapeChoice).joined(separator: " ") + ")"
        }
    }

    /// Inside `[...]`: backslash and brackets are escaped.
    static func escapeDescription(_ text: String) -> String {
        text.map { "\\[]".contains($0) ? "\\" + String($0) : String($0) }.joined()
    }

    /// Between colons: backslash and colon are escaped.
    static func escapeMessage(_ text: String) -> String {
        text.map { "\\:".contains($0) ? "\\" + String($0) : String($0) }.joined()
    }

    /// A word of a `(a b c)` list: anything the list syntax or the shell would read.
    static func escapeChoice(_ text: String) -> String {
        text.map { "\\:()[] \"'$`*?".contains($0) ? "\\" + String($0) : String($0) }.joined()
    }

    /// `text` in single quotes for the shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
