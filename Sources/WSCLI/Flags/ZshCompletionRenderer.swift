/// Renders `completions/_wspipe` from `flagTable`: one `_arguments` spec per
/// spelling of each flag, with its help as the description, `_files` after a
/// `.file` flag, the fixed list after a `.choices` flag, the config files'
/// sections after `--profile`, and only the value name as a message after a
/// free-text flag. A flag that is not repeatable is not offered again once
/// given, nor are the flags it conflicts with. After `wspipe curl`, curl's
/// options that it reads (`CurlOption`), and wspipe's again after `--`.
public enum ZshCompletionRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var lines = [
            "#compdef wspipe",
            "# zsh completion for wspipe",
            "# " + DocGenerator.notice("zsh"),
            "# Install: put this file, named _wspipe, in a directory of $fpath and run compinit.",
            "",
            "# The [NAME] sections of the default config file and of the -K files given.",
            "_wspipe_profiles() {",
            "  local -a files names",
            "  local word i",
            "  if (( ${+WSPIPE_CONFIG} )); then",
            "    [[ -n $WSPIPE_CONFIG ]] && files+=($WSPIPE_CONFIG)",
            "  else",
            "    files+=(${XDG_CONFIG_HOME:-$HOME/.config}/wspipe/config)",
            "  fi",
            "  for (( i = 2; i < CURRENT; i++ )); do",
            "    case $words[i] in",
            "      -K|--config) files+=(${~words[i+1]}) ;;",
            "      --config=*) files+=(${~words[i]#--config=}) ;;",
            "    esac",
            "  done",
            "  for word in $files; do",
            "    [[ -r $word ]] && names+=(${(f)\"$(sed -n " + quote(ConfigFile.sectionPattern) + " $word)\"})",
            "  done",
            "  compadd -a names",
            "}",
            "",
            "local -a args curl_args",
            "args=(",
        ]
        for flag in table {
            for spec in specs(flag, table) { lines.append("  " + quote(spec)) }
        }
        lines += [
            "  " + quote("::URL (ws\\:// or wss\\://), or curl:(curl)"),
            ")",
            "curl_args=(",
        ]
        for option in CurlOption.offered {
            for spec in curlSpecs(option) { lines.append("  " + quote(spec)) }
        }
        lines += [
            "  " + quote("--print[Print the wspipe command instead, secrets in a file of mode 0600]"),
            "  " + quote("*::curl argument (-- then wspipe's options):"),
            ")",
            "if [[ $words[2] == curl ]] && (( CURRENT > 2 )); then",
            "  local dashes=${words[(i)--]}",
            "  if (( dashes < CURRENT )); then",
            "    # wspipe's options after \"--\".",
            "    words=(wspipe ${words[dashes+1,-1]})",
            "    (( CURRENT -= dashes - 1 ))",
            "    _arguments -s -S : $args",
            "  else",
            "    words=(${words[2,-1]})",
            "    (( CURRENT-- ))",
            "    _arguments -s : $curl_args",
            "  fi",
            "  return",
            "fi",
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
        } else if let optional = flag.optionalValue {
            suffix += "::" + escapeMessage(optional.name) + ":" + action(.choices(optional.choices))
        }
        var forms: [String] = []
        if let short = flag.short { forms.append("-\(short)" + (flag.takesValue ? "+" : "")) }
        forms.append("--" + flag.long + (flag.takesValue ? "=" : ""))
        return forms.map { prefix + $0 + suffix }
    }

    /// The specs of one curl option: its value in the next word, as curl reads it.
    static func curlSpecs(_ option: CurlOption) -> [String] {
        var suffix = "[" + escapeDescription(option.summary) + "]"
        if option.takesValue {
            suffix += ":" + escapeMessage(option.long.uppercased()) + ":" + (CurlOption.namesFile(option) ? "_files" : " ")
        }
        let forms = (option.short.map { ["-\($0)" + (option.takesValue ? "+" : "")] } ?? []) + ["--" + option.long]
        return forms.map { "*" + $0 + suffix }
    }

    static func spellings(_ flag: Flag) -> [String] {
        (flag.short.map { ["-\($0)"] } ?? []) + ["--" + flag.long]
    }

    /// What completes the value: `_files`, a fixed list, the profiles, or
    /// (a single space) nothing but the message.
    static func action(_ completion: CompletionKind) -> String {
        switch completion {
        case .none: return " "
        case .file: return "_files"
        case .choices(let choices): return "(" + choices.map(escapeChoice).joined(separator: " ") + ")"
        case .profiles: return "_wspipe_profiles"
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
