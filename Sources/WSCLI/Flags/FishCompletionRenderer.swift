/// Renders `completions/wspipe.fish` from `flagTable`: one `complete` line per
/// flag, with its help as the description; `-r -F` (files) after a `.file`
/// flag, `-r -f -a` with the fixed list after a `.choices` flag, the config
/// files' sections after `--profile`, `-r -f` (nothing to offer) after a
/// free-text flag. The URL is not completed. `curl` is offered as the first
/// word; after it come curl's options that `wspipe curl` reads
/// (`CurlOption`), and wspipe's again after `--`.
public enum FishCompletionRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var lines = [
            "# fish completion for wspipe",
            "# " + DocGenerator.notice("fish"),
            "# Install: copy to ~/.config/fish/completions/wspipe.fish.",
            "",
            "# wspipe curl, before \"--\": curl's options instead of wspipe's.",
            "function __wspipe_curl_words",
            "    set -l words (commandline -opc)",
            "    test \"$words[2]\" = curl; or return 1",
            "    contains -- -- $words; and return 1",
            "    return 0",
            "end",
            "",
            "# wspipe curl ... --: wspipe's options, which fish offers as words after \"--\".",
            "function __wspipe_curl_options",
            "    set -l words (commandline -opc)",
            "    test \"$words[2]\" = curl; and contains -- -- $words",
            "end",
            "",
            "# The [NAME] sections of the default config file and of the -K files given.",
            "function __wspipe_profiles",
            "    set -l files",
            "    if set -q WSPIPE_CONFIG",
            "        test -n \"$WSPIPE_CONFIG\"; and set files $WSPIPE_CONFIG",
            "    else if test -n \"$XDG_CONFIG_HOME\"",
            "        set files $XDG_CONFIG_HOME/wspipe/config",
            "    else",
            "        set files $HOME/.config/wspipe/config",
            "    end",
            "    set -l words (commandline -opc)",
            "    for i in (seq (count $words))",
            "        contains -- $words[$i] -K --config; and set -a files $words[(math $i + 1)]",
            "    end",
            "    for file in $files",
            "        test -r \"$file\"; and sed -n " + quote(ConfigFile.sectionPattern) + " \"$file\"",
            "    end",
            "end",
            "",
            "# The URL is not a file name.",
            "complete -c wspipe -f",
            "complete -c wspipe -n 'test (count (commandline -opc)) -eq 1' -a curl "
                + "-d 'Run a curl command copied from the browser'",
        ]
        for flag in table { lines.append(line(flag)) }
        for option in CurlOption.offered { lines.append(curlLine(option)) }
        let names = table.flatMap { flag in ["--" + flag.long] + (flag.short.map { ["-\($0)"] } ?? []) }
        lines.append("complete -c wspipe -n __wspipe_curl_options -a " + quote(names.joined(separator: " ")))
        lines.append("complete -c wspipe -n __wspipe_curl_words -l print -d "
                     + quote("Print the wspipe command instead, secrets in a file of mode 0600"))
        return lines.joined(separator: "\n") + "\n"
    }

    static func line(_ flag: Flag) -> String {
        var words = ["complete", "-c", "wspipe", "-n", quote("not __wspipe_curl_words")]
        if let short = flag.short { words += ["-s", quote(String(short))] }
        words += ["-l", flag.long]
        switch flag.completion {
        case .none: if flag.takesValue { words += ["-r", "-f"] }
        case .file: words += ["-r", "-F"]
        case .choices(let choices): words += ["-r", "-f", "-a", quote(choices.joined(separator: " "))]
        case .profiles: words += ["-r", "-f", "-a", quote("(__wspipe_profiles)")]
        }
        if let optional = flag.optionalValue { words += ["-f", "-a", quote(optional.choices.joined(separator: " "))] }
        var description = flag.help
        if description.hasSuffix(".") { description.removeLast() }
        words += ["-d", quote(description)]
        return words.joined(separator: " ")
    }

    static func curlLine(_ option: CurlOption) -> String {
        var words = ["complete", "-c", "wspipe", "-n", "__wspipe_curl_words"]
        if let short = option.short { words += ["-s", quote(String(short))] }
        words += ["-l", option.long]
        if option.takesValue { words += CurlOption.namesFile(option) ? ["-r", "-F"] : ["-r", "-f"] }
        words += ["-d", quote(option.summary)]
        return words.joined(separator: " ")
    }

    /// `text` in single quotes for fish: only '\\' and '\'' are escaped there.
    static func quote(_ text: String) -> String {
        let escaped = text.map { $0 == "\\" || $0 == "'" ? "\\" + String($0) : String($0) }.joined()
        return "'" + escaped + "'"
    }
}
