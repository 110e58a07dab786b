/// A man page being written with the man macros: requests and text lines,
/// every text escaped (see `Roff`). Knows roff, not wspipe: the content is
/// `ManPageRenderer`'s.
struct RoffPage {
    private(set) var lines: [String] = []

    var text: String { lines.joined(separator: "\n") + "\n" }

    /// A line written as is (already roff).
    mutating func raw(_ line: String) { lines.append(line) }

    /// `.NAME "arg" ...`: arguments quoted when they need it.
    mutating func request(_ name: String, _ arguments: String...) {
        lines.append(([".\(name)"] + arguments.map(Roff.argument)).joined(separator: " "))
    }

    /// Prose as text lines (see `Roff.prose`), one sentence a line: roff
    /// only knows a sentence has ended (and spaces it so) at the end of a line.
    /// Line breaks in `prose` are spaces.
    mutating func text(_ prose: String) {
        let flat = String(prose.map { $0 == "\n" ? " " : $0 })
        for sentence in Roff.sentences(flat) { lines.append(Roff.line(Roff.prose(sentence))) }
    }

    mutating func paragraphs(_ texts: [String]) {
        for text in texts {
            request("PP")
            self.text(text)
        }
    }

    mutating func bullet(_ prose: String) {
        raw(".IP \\(bu 2")
        text(prose)
    }

    /// A tagged paragraph with a bold, literal tag.
    mutating func item(_ tag: String, _ prose: String) {
        tagged(Roff.bold(tag))
        text(prose)
    }

    /// `.TP` with a tag already written in roff; the body follows.
    mutating func tagged(_ roffTag: String) {
        request("TP")
        raw(Roff.line(roffTag))
    }

    /// One more paragraph of the current tagged item, at its indent.
    mutating func indentedParagraph(_ prose: String) {
        request("IP")
        text(prose)
    }

    /// Tagged paragraphs (bold terms) nested inside the current item.
    mutating func nestedItems(_ items: [(term: String, text: String)]) {
        request("RS")
        for (term, prose) in items { item(term, prose) }
        request("RE")
    }

    /// Literal lines, indented, in a constant-width block.
    mutating func example(_ literal: [String]) {
        request("RS", "4")
        request("EX")
        for line in literal { raw(Roff.line(Roff.literal(line))) }
        request("EE")
        request("RE")
    }

    /// "wspipe [OPTIONS] URL": the program name in bold, placeholders
    /// (capital words) in italics, options in bold.
    mutating func synopsis(_ usage: String) {
        let words = usage.split(separator: " ", maxSplits: 1)
        request("B", String(words[0]))
        if words.count > 1 { raw(Roff.line(Roff.prose(String(words[1]), italicCapitals: true))) }
    }
}
