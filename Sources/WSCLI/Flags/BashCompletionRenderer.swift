/// Renders `completions/wspipe.bash` from `flagTable`: option names after a
/// dash, file names after a `.file` flag, the fixed list after a `.choices`
/// flag, the config files' sections after `--profile`, nothing after a
/// free-text value flag; `curl` as the first word, then curl's options that
/// `wspipe curl` reads (`CurlOption`), and wspipe's again after `--`. Plain
/// bash (4.0+), no dependency on the bash-completion package.
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
            "    if [[ ${COMP_WORDS[1]} == curl ]] && (( COMP_CWORD > 1 )); then",
            "        # wspipe curl: curl's options, then wspipe's after \"--\".",
            "        for (( i = 2; i < COMP_CWORD; i++ )); do",
            "            [[ ${COMP_WORDS[i]} == -- ]] && break",
            "        done",
            "        (( i == COMP_CWORD )) && { _wspipe_curl \"$cur\" \"$prev\"; return 0; }",
            "    else",
            "        # No options after \"--\".",
            "        for (( i = 1; i < COMP_CWORD; i++ )); do",
            "            [[ ${COMP_WORDS[i]} == -- ]] && return 0",
            "        done",
            "    fi",
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
        let profiles = valueFlags.filter { $0.completion == .profiles }
        if !profiles.isEmpty {
            lines.append("        " + patterns(profiles) + ")")
            lines.append("            mapfile -t COMPREPLY < <(compgen -W \"$(_wspipe_profiles)\" -- \"$cur\")")
            lines.append("            _wspipe_prefix \"$prefix\"")
            lines.append("            return 0 ;;")
        }
        for flag in table where !flag.optionalValues.isEmpty {
            // A switch's optional value: offered, but an option may follow instead.
            lines.append("        " + patterns([flag]) + ")")
            lines.append("            [[ $cur == -* ]] || { mapfile -t COMPREPLY < <(compgen -W "
                + quote(flag.optionalValues.joined(separator: " ")) + " -- \"$cur\"); return 0; } ;;")
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
            "    elif [[ -z $prefix ]] && (( COMP_CWORD == 1 )); then",
            "        mapfile -t COMPREPLY < <(compgen -W curl -- \"$cur\")",
            "    fi",
            "    return 0",
            "}",
            "",
        ]
        lines += curlFunction()
        lines += [
            "",
            "# The [NAME] sections of the default config file and of the -K files given.",
            "_wspipe_profiles() {",
            "    local files=() i word",
            "    if [[ -n ${WSPIPE_CONFIG+set} ]]; then",
            "        [[ -n $WSPIPE_CONFIG ]] && files+=(\"$WSPIPE_CONFIG\")",
            "    else",
            "        files+=(\"${XDG_CONFIG_HOME:-$HOME/.config}/wspipe/config\")",
            "    fi",
            "    for (( i = 1; i < COMP_CWORD; i++ )); do",
            "        word=${COMP_WORDS[i]}",
            "        case $word in",
            "            -K|--config) files+=(\"${COMP_WORDS[i+1]/#\\~/$HOME}\") ;;",
            "            --config=*) files+=(\"${word#--config=}\") ;;",
            "        esac",
            "    done",
            "    for word in \"${files[@]}\"; do",
            "        [[ -r $word ]] && sed -n " + quote(ConfigFile.sectionPattern) + " \"$word\"",
            "    done",
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

    /// `wspipe curl ...` before "--": curl's options (those it reads or
    /// drops), files after those that name one, and --print.
    static func curlFunction() -> [String] {
        let offered = CurlOption.offered
        var names = offered.flatMap { ($0.short.map { ["-\($0)"] } ?? []) + ["--" + $0.long] }
        names += ["--print", "--"]
        let fileOptions = offered.filter { CurlOption.namesFile($0) }
        let valueOptions = offered.filter { $0.takesValue && !CurlOption.namesFile($0) }
        return [
            "# wspipe curl, before \"--\": the curl options it reads.",
            "_wspipe_curl() {",
            "    case $2 in",
            "        " + curlPatterns(fileOptions) + ")",
            "            compopt -o filenames 2>/dev/null",
            "            mapfile -t COMPREPLY < <(compgen -f -- \"$1\")",
            "            return 0 ;;",
            "        " + curlPatterns(valueOptions) + ")",
            "            return 0 ;;",
            "    esac",
            "    [[ $1 == -* ]] && mapfile -t COMPREPLY < <(compgen -W " + quote(names.joined(separator: " ")) + " -- \"$1\")",
            "    return 0",
            "}",
        ]
    }

    static func curlPatterns(_ options: [CurlOption]) -> String {
        options.flatMap { ($0.short.map { ["-\($0)"] } ?? []) + ["--" + $0.long] }.joined(separator: "|")
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
