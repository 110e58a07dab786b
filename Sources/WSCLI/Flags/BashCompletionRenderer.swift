/// Renders `completions/wspipe.bash` from `flagTable`: option names after a
/// dash, file names after a `.file` flag, the fixed list after a `.choices`
/// flag, nothing after a free-text value flag. Plain bash (4.0+), no
/// dependency on the bash-completion package.
public enum BashCompletionRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var names: [String] = []
        for flag in table {
            names.append("--" + flag.long)
            if let short = flag.short { names.append("-\(short)") }
        }
        var lines = [
            "# bash completion for wspipe                               -*- shell-script -*-",
            "# " + DocGenerator.notice("bash"),
            "# Install: copy to /usr/share/bash-completion/completions/wspipe,",
            "# or source it from ~/.bashrc.",
            "",
            "_wspipe() {",
            "    local cur=${COMP_WORDS[COMP_CWORD]} prev= prefix= i",
            "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}",
            "    # No options after \"--\".",
            "    for (( i = 1; i < COMP_CWORD; i++ )); do",
            "        [[ ${COMP_WORDS[i]} == -- ]] && return 0",
            "    done",
            "    # --flag=value: bash splits the word at '=' when COMP_WORDBREAKS has it.",
            "    if [[ $cur == = ]]; then",
            "        cur=",
            "    elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then",
            "        prev=${COMP_WORDS[COMP_CWORD-2]}",
            "    elif [[ $cur == --*=* ]]; then",
            "        prev=${cur%%=*}",
            "        prefix=$prev=",
            "        cur=${cur#*=}",
            "    fi",
            "    case $prev in",
        ]
        let valueFlags = table.filter(\.takesValue)
        let files = valueFlags.filter { $0.completion == .file }
        if !files.isEmpty {
            lines.append("        " + patterns(files) + ")")
            lines.append("            compopt -o filenames 2>/dev/null")
            lines.append("            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\")")
            lines.append("            _wspipe_prefix \"$prefix\"")
            lines.append("            return 0 ;;")
        }
        for flag in valueFlags {
            guard case .choices(let choices) = flag.completion else { continue }
            lines.append("        " + patterns([flag]) + ")")
            lines.append("            mapfile -t COMPREPLY < <(compgen -W " + quote(choices.joined(separator: " "))
                + " -- \"$cur\")")
            lines.append("            _wspipe_prefix \"$prefix\"")
            lines.append("            return 0 ;;")
        }
        let freeText = valueFlags.filter { $0.completion == .none }
        if !freeText.isEmpty {
            lines.append("        " + patterns(freeText) + ")")
            lines.append("            # A value only the user knows.")
            lines.append("            return 0 ;;")
        }
        lines += [
            "    esac",
            "    if [[ -z $prefix && $cur == -* ]]; then",
            "        mapfile -t COMPREPLY < <(compgen -W " + quote(names.joined(separator: " ")) + " -- \"$cur\")",
            "    fi",
            "    return 0",
            "}",
            "",
            "# Completing --flag=value in one word: the replies need the \"--flag=\" too.",
            "_wspipe_prefix() {",
            "    [[ -n $1 ]] && COMPREPLY=(\"${COMPREPLY[@]/#/$1}\")",
            "    return 0",
            "}",
            "",
            "complete -F _wspipe wspipe",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// A `case` pattern matching each flag's spellings: "-H|--header".
    static func patterns(_ flags: [Flag]) -> String {
        flags.flatMap { flag -> [String] in
            (flag.short.map { ["-\($0)"] } ?? []) + ["--" + flag.long]
        }.joined(separator: "|")
    }

    /// `text` in single quotes for the shell.
    static func quote(_ text: String) -> String {
        "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
