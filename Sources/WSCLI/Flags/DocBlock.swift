/// A block of a flag's long documentation: the man page prints the blocks
/// under the flag, after its one-line help (`--help` shows only the help).
///
/// Write the prose as the help: option names in it ("--route", "-t") are set
/// in bold, and a sentence ends with ". " followed by a capital letter or an
/// option name. A plain string literal is a paragraph.
public enum DocBlock: Equatable, Sendable, ExpressibleByStringLiteral {
    /// A paragraph. Line breaks in it are spaces, so a long one can be
    /// written as a multi-line literal.
    case paragraph(String)
    /// Terms, each with what it means: the values a flag takes.
    case list([DocItem])

    public init(stringLiteral text: String) { self = .paragraph(text) }
}

/// One term of a `DocBlock.list`, set in bold, and its meaning.
public struct DocItem: Equatable, Sendable {
    public let term: String
    public let text: String

    public init(_ term: String, _ text: String) {
        self.term = term
        self.text = text
    }
}
