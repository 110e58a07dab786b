/// Escaping for roff text. Specials: '\' is the escape character, a '.' or
/// '\'' at the start of a line makes a request, '-' in an option name must be
/// `\-` (a minus, so it can be copied), and ASCII quotes, '`', '^' and '~'
/// are typeset as other glyphs unless named.
enum Roff {
    /// One character as roff text. `literalDash`: '-' as `\-`.
    static func escape(_ character: Character, literalDash: Bool) -> String {
        switch character {
        case "\\": return "\\e"
        case "'": return "\\(aq"
        case "`": return "\\(ga"
        case "^": return "\\(ha"
        case "~": return "\\(ti"
        case "-": return literalDash ? "\\-" : "-"
        default: return String(character)
        }
    }

    /// Literal text, as in an example: every character escaped, dashes as `\-`.
    static func literal(_ text: String) -> String {
        text.map { escape($0, literalDash: true) }.joined()
    }

    static func bold(_ text: String) -> String { "\\fB" + literal(text) + "\\fR" }
    static func italic(_ text: String) -> String { "\\fI" + literal(text) + "\\fR" }

    /// A text line made safe at its start: a leading '.' or '\'' would make it
    /// a request, a leading space would break the line.
    static func line(_ escaped: String) -> String {
        if escaped.hasPrefix(".") || escaped.hasPrefix("'") || escaped.hasPrefix(" ") { return "\\&" + escaped }
        return escaped
    }

    /// A request argument: quoted when empty or containing a space, with '"'
    /// as `\(dq`.
    static func argument(_ text: String) -> String {
        let escaped = text.map { $0 == "\"" ? "\\(dq" : escape($0, literalDash: true) }.joined()
        return text.isEmpty || text.contains(" ") ? "\"" + escaped + "\"" : escaped
    }

    /// `text` cut after each ". " that is followed by a capital letter or an
    /// option name (the spaces are dropped).
    static func sentences(_ text: String) -> [String] {
        var result: [String] = []
        var current = ""
        var characters = text[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            current.append(character)
            if character == ".", characters.first == " ",
               let next = characters.dropFirst().first, next == "-" || isCapital(next) {
                result.append(current)
                current = ""
                characters = characters.dropFirst()
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// Characters after which an option name may start ("-v", "(--events)", "-1/--one-message").
    private static let optionBoundaries: Set<Character> = [" ", "(", "/", "\"", "[", ","]

    /// Prose: escaped, with every option name in it ("-v", "--route") set in
    /// bold with `\-` dashes, and JSON objects ("{...") never hyphenated. With `italicCapitals`, runs of capital letters
    /// (placeholders such as URL) are set in italics.
    static func prose(_ text: String, italicCapitals: Bool = false) -> String {
        let characters = Array(text)
        var out = ""
        var index = 0
        while index < characters.count {
            let character = characters[index]
            let atBoundary = index == 0 || optionBoundaries.contains(characters[index - 1])
            if character == "-", atBoundary, let end = optionEnd(characters, from: index) {
                out += bold(String(characters[index..<end]))
                index = end
            } else if character == "{", index == 0 || characters[index - 1] == " " {
                // A JSON object in prose is one long word: `\%` keeps groff from hyphenating it.
                out += "\\%{"
                index += 1
            } else if italicCapitals, isCapital(character) {
                var end = index
                while end < characters.count, isCapital(characters[end]) { end += 1 }
                out += italic(String(characters[index..<end]))
                index = end
            } else {
                out += escape(character, literalDash: false)
                index += 1
            }
        }
        return out
    }

    /// The end of an option name starting at `start` ("-" or "--", then a
    /// letter or digit, then letters, digits and single dashes), or nil.
    private static func optionEnd(_ characters: [Character], from start: Int) -> Int? {
        var index = start + 1
        if index < characters.count, characters[index] == "-" { index += 1 }
        guard index < characters.count, isNameCharacter(characters[index]) else {
            // "--" alone (the end of the options) is an option name too.
            let alone = index == start + 2 && (index == characters.count || characters[index] == " ")
            return alone ? index : nil
        }
        while index < characters.count {
            if isNameCharacter(characters[index]) {
                index += 1
            } else if characters[index] == "-", index + 1 < characters.count, isNameCharacter(characters[index + 1]) {
                index += 1
            } else {
                break
            }
        }
        return index
    }

    private static func isNameCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLowercase || character.isNumber || character.isUppercase)
    }

    private static func isCapital(_ character: Character) -> Bool {
        character.isASCII && character.isUppercase
    }
}
