/// A config file's text read as curl reads `-K` files (curl(1): -K, --config),
/// with wspipe's `[NAME]` sections (wspipe(1): CONFIG FILES):
///
/// - one option a line, its long name with or without the leading `--`
///   (or a short one with its dash); without dashes, `=` or `:` may stand
///   between the name and the value;
/// - a value with a space, or starting with `=` or `:`, is quoted: `"..."`
///   with the escapes `\\`, `\"`, `\t`, `\n`, `\r` and `\v` (a backslash
///   before any other character is dropped);
/// - a line whose first non-blank character is `#` is a comment, and so is
///   what follows an unquoted value after a space;
/// - `[NAME]` starts a section (a profile), which ends at the next one;
///   `url = PREFIX` in a section says which URLs select it.
///
/// Pure: the text in, the lines out, or an error naming the file and line.
/// `Invocation` reads the files and decides which lines apply.
struct ConfigFile {
    /// One option line: its flag, value ("" for a switch) and line number.
    struct Line {
        var flag: Flag
        var value: String
        var number: Int
    }

    /// A `[NAME]` section: its `url` prefixes and its option lines.
    struct Section {
        var name: String
        var urls: [String] = []
        var lines: [Line] = []
        /// The line of `[NAME]`.
        var number: Int
    }

    var path: String
    /// The lines before the first section: they apply to every run that reads the file.
    var topLevel: [Line] = []
    var sections: [Section] = []

    /// A sed(1) script printing the section names of a file, for the shell
    /// completions of --profile (the names `sectionName` accepts).
    static let sectionPattern = "s/^[[:space:]]*\\[\\([A-Za-z0-9._-]*\\)\\][[:space:]]*$/\\1/p"

    /// Flags a config file cannot hold: those that choose the files themselves,
    /// and those that print instead of running.
    static let refused: Set<String> = ["config", "no-config", "profile", "help", "version", "generate"]

    /// Lines that make a file secret: a header, a password, a cookie.
    func secretLines() -> [Line] {
        (topLevel + sections.flatMap(\.lines)).filter { line in
            switch line.flag.long {
            case "header", "user", "proxy-user": return true
            case "cookie": return line.value.contains("=")
            case "proxy": return line.value.contains("@")
            default: return false
            }
        }
    }

    init(path: String, text: String) throws(UsageError) {
        self.path = path
        var number = 0
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.isEmpty || line.first == "#" { continue }
            if line.first == "[" {
                sections.append(Section(name: try sectionName(line, number), number: number))
                continue
            }
            let (name, rest) = try option(line, number)
            // The name first: an unknown one is the mistake, whatever follows it.
            let flag = name == "url" ? nil : try lookUp(name, number)
            let value = try self.value(rest, number, name)
            guard let flag else {
                guard !sections.isEmpty else {
                    throw error(number, "url belongs in a [NAME] section: it says which URLs select the section")
                }
                sections[sections.count - 1].urls.append(try checkPrefix(value, number))
                continue
            }
            if flag.takesValue && value == nil { throw error(number, "missing value for --\(flag.long)") }
            if !flag.takesValue && value != nil { throw error(number, "--\(flag.long) does not take a value") }
            let parsed = Line(flag: flag, value: value ?? "", number: number)
            if sections.isEmpty { topLevel.append(parsed) } else { sections[sections.count - 1].lines.append(parsed) }
        }
    }

    private func error(_ number: Int, _ message: String) -> UsageError {
        UsageError("\(path):\(number): \(message)")
    }

    /// `[NAME]`: letters, digits, '.', '_' and '-'.
    private func sectionName(_ line: Substring, _ number: Int) throws(UsageError) -> String {
        let trimmed = line.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        let name = String(trimmed.dropFirst().dropLast())
        guard trimmed.last == "]", !name.isEmpty,
              name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) }) else {
            throw error(number, "expected [NAME] (letters, digits, '.', '_' and '-')")
        }
        return name
    }

    /// The flag a line names, its value checked against the flag's kind.
    private func lookUp(_ name: String, _ number: Int) throws(UsageError) -> Flag {
        let found = name.hasPrefix("-") && !name.hasPrefix("--") && name.count == 2
            ? FlagTable.flag(short: name.last!) : FlagTable.flag(long: name.hasPrefix("--") ? String(name.dropFirst(2)) : name)
        guard let flag = found else {
            let bare = name.drop { $0 == "-" }
            let suggestion = Suggestion.closest(to: String(bare), among: flagTable.map(\.long))
            throw error(number, "unknown option '\(name)'" + (suggestion.map { " (did you mean '\($0)'?)" } ?? ""))
        }
        if Self.refused.contains(flag.long) {
            throw error(number, "--\(flag.long) cannot be given in a config file")
        }
        return flag
    }

    /// A ws:// or wss:// URL prefix (compared case-insensitively up to its path).
    private func checkPrefix(_ value: String?, _ number: Int) throws(UsageError) -> String {
        guard let value else { throw error(number, "missing value for url") }
        let lower = value.lowercased()
        guard (lower.hasPrefix("ws://") || lower.hasPrefix("wss://")), !lower.hasSuffix("://") else {
            throw error(number, "url: expected a ws:// or wss:// URL prefix, got '\(value)'")
        }
        return value
    }

    /// The name of an option line and the text of its value.
    private func option(_ line: Substring, _ number: Int) throws(UsageError) -> (String, Substring) {
        let dashed = line.first == "-"
        // The name ends at a blank; without dashes, at '=' or ':' too (curl's rule).
        let end = line.firstIndex { $0 == " " || $0 == "\t" || (!dashed && ($0 == "=" || $0 == ":")) } ?? line.endIndex
        var name = String(line[..<end])
        var rest = line[end...]
        if dashed, let equals = name.firstIndex(of: "="), name.hasPrefix("--") {
            // --name=value, as on the command line.
            rest = name[name.index(after: equals)...] + rest
            name = String(name[..<equals])
            return (name, rest.isEmpty ? "\"\"" : rest)
        }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        if !dashed, let first = rest.first, first == "=" || first == ":" {
            rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" }
        }
        return (name, rest)
    }

    /// The value at the start of `text`: quoted, or up to a blank; nil when
    /// there is none. Only blanks and a comment may follow it.
    private func value(_ text: Substring, _ number: Int, _ name: String) throws(UsageError) -> String? {
        if text.isEmpty || text.first == "#" { return nil }
        var value = ""
        var rest: Substring
        if text.first == "\"" {
            var characters = text.dropFirst()
            var closed = false
            while let character = characters.first {
                characters = characters.dropFirst()
                if character == "\"" { closed = true; break }
                guard character == "\\", let escaped = characters.first else { value.append(character); continue }
                characters = characters.dropFirst()
                switch escaped {
                case "t": value.append("\t")
                case "n": value.append("\n")
                case "r": value.append("\r")
                case "v": value.append("\u{0B}")
                default: value.append(escaped)
                }
            }
            guard closed else { throw error(number, "the quoted value of \(name) has no closing quote") }
            rest = characters
        } else {
            let end = text.firstIndex { $0 == " " || $0 == "\t" } ?? text.endIndex
            value = String(text[..<end])
            rest = text[end...]
        }
        rest = rest.drop { $0 == " " || $0 == "\t" }
        if let first = rest.first, first != "#" {
            throw error(number, "text after the value of \(name): quote a value that has spaces "
                        + "(\(name.hasPrefix("-") ? name + " " : name + " = ")\"...\")")
        }
        return value
    }
}
