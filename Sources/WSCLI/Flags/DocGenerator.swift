/// `wspipe --generate KIND`: the man page and the shell completion scripts.
/// Every one of them is rendered by walking `flagTable`, so none can list a
/// flag the parser does not know or miss one it does (README, Install).
public enum DocGenerator {
    /// The kinds `--generate` accepts, in the order its help lists them.
    public static let kinds = ["man", "bash", "zsh", "fish"]

    /// Where each kind is committed, relative to the package root.
    public static let committedFiles: [(kind: String, path: String)] = [
        ("man", "man/wspipe.1"),
        ("bash", "completions/wspipe.bash"),
        ("zsh", "completions/_wspipe"),
        ("fish", "completions/wspipe.fish"),
    ]

    /// The whole text for `kind` ("man", "bash", "zsh" or "fish"), ending
    /// with a newline; nil for any other kind.
    public static func render(_ kind: String) -> String? {
        switch kind {
        case "man": return ManPageRenderer.render()
        case "bash": return BashCompletionRenderer.render()
        case "zsh": return ZshCompletionRenderer.render()
        case "fish": return FishCompletionRenderer.render()
        default: return nil
        }
    }

    /// The comment saying where a generated file comes from.
    static func notice(_ kind: String) -> String {
        "Generated from the flag table by `wspipe --generate \(kind)`; do not edit."
    }
}
