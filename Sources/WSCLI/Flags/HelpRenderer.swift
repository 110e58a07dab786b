/// Renders `--help` from `flagTable`, so the help can never list a flag the
/// parser does not know or miss one it does.
public enum HelpRenderer {
    /// The invocation forms (wspipe(1): SYNOPSIS), without the "Usage: " prefix.
    public static let usageLines = [
        "wspipe [OPTIONS] URL",
        "wspipe [OPTIONS] --listen [HOST:]PORT[/PATH]",
        "wspipe [OPTIONS] --check FILE... [URL]",
        "wspipe curl [--print] CURL_ARGUMENTS... [-- OPTIONS]",
    ]

    /// What `--help` takes: a category's name, or all.
    public static let topics = FlagCategory.allCases.map(\.name) + ["all"]

    /// The options of the short `--help`, each with a few words (the man page
    /// and `--help CATEGORY` give the whole sentence): what a newcomer needs,
    /// as curl's `--help` shows only its important options.
    static let essentials: [(long: String, brief: String)] = [
        ("header", "Send this handshake header; repeat."),
        ("header-file", "Read headers from FILE, out of ps's sight."),
        ("protocol", "Offer this subprotocol; repeat."),
        ("cookie", "Send cookies (curl's -b)."),
        ("location", "Follow redirects."),
        ("insecure", "Skip TLS certificate verification."),
        ("cacert", "Trust the CA certificates in FILE."),
        ("text", "Raw text lines instead of JSON."),
        ("binary", "Raw lines sent as binary messages."),
        ("route", "Write type VALUE messages to DEST; repeat."),
        ("no-close", "Keep receiving after stdin ends."),
        ("unidirectional-reverse", "Only write what arrives; do not read stdin."),
        ("one-message", "Exit after one incoming message."),
        ("until", "Exit 0 once this message came (CI check)."),
        ("idle-timeout", "Exit after this long without a message."),
        ("reply", "Wait for the reply to each request."),
        ("ping-interval", "Keep the connection alive with pings."),
        ("answer", "Answer type TYPE messages; repeat."),
        ("listen", "Be the server (bare PORT: 127.0.0.1 only)."),
        ("exec", "Give each client a program of its own."),
        ("events", "Lifecycle events as JSON on stderr."),
        ("verbose", "Say what happens; repeat for more."),
        ("config", "Read options from FILE (curl's syntax)."),
        ("profile", "Apply the config files' [NAME] section."),
        ("help", "The options of CATEGORY, or all."),
    ]

    /// One sentence on what the program does.
    public static let summary =
        "Bridge stdin/stdout and a WebSocket: each line in becomes a message out, "
        + "each message in becomes a line out (NDJSON by default)."

    /// Exit statuses (wspipe(1): EXIT STATUS), for `--help` and the man page.
    public static let exitStatuses: [(code: Int32, meaning: String)] = [
        (0, "success"),
        (1, "runtime error, or a reply or message awaited that never came"),
        (2, "usage error, or a flag the mode would ignore"),
        (3, "could not connect, or gave up reconnecting"),
        (4, "handshake rejected (HTTP status), also as the last failure"),
        (5, "protocol violation by the peer"),
        (6, "input lines rejected, not sent, refused or never acknowledged"),
        (7, "closed by the server with an error code (any but 1000 and 1001)"),
        (8, "a check failed: an answer other than the one recorded, or too slow"),
        (130, "interrupted (SIGINT), after a clean close"),
        (143, "terminated (SIGTERM), after a clean close"),
    ]

    /// Column where flag help text starts.
    static let helpIndent = 10

    /// The `--help` text, ending with a newline: the short help (`topic`
    /// nil), one category's options (its `name`), or everything ("all"). No
    /// line is longer than `width` (for any width of 20 or more; narrower is
    /// treated as 20).
    public static func render(width: Int = 80, topic: String? = nil) -> String {
        let width = max(width, 20)
        var lines = heading(width: width)
        guard let topic else { return (lines + short(width: width)).joined(separator: "\n") + "\n" }
        let categories = FlagCategory.allCases.filter { topic == "all" || $0.name == topic }
        for category in categories {
            lines.append("")
            lines += options(category, width: width)
        }
        if topic != "all" {
            lines.append("")
            lines += wrap("Every option: wspipe --help all. Every detail: man wspipe.", width: width, first: "", rest: "")
            return lines.joined(separator: "\n") + "\n"
        }
        lines.append("")
        lines.append("Exit status:")
        for (code, meaning) in exitStatuses {
            let label = "  " + String(code)
            let padded = label + String(repeating: " ", count: max(1, 7 - label.count))
            lines += wrap(meaning, width: width, first: padded, rest: String(repeating: " ", count: padded.count))
        }
        lines.append("")
        lines += examples(width: width)
        return lines.joined(separator: "\n") + "\n"
    }

    /// The usage lines and the summary.
    static func heading(width: Int) -> [String] {
        var lines: [String] = []
        for (number, usage) in usageLines.enumerated() {
            let prefix = number == 0 ? "Usage: " : "       "
            lines += wrap(usage, width: width, first: prefix, rest: "           ")
        }
        lines.append("")
        lines += wrap(summary, width: width, first: "", rest: "")
        return lines
    }

    /// A category's heading and options, each with its whole help.
    static func options(_ category: FlagCategory, width: Int) -> [String] {
        // Headings wrap too: "Keepalive, reconnect and replay:" is 32 columns.
        var lines = wrap(category.heading + ":", width: width, first: "", rest: "")
        for flag in flagTable where flag.category == category {
            // Flags without a short name line up with the long names of the others.
            let lead = flag.short == nil ? "      " : "  "
            lines += wrap(flag.synopsis, width: width, first: lead, rest: "      ")
            let indent = String(repeating: " ", count: helpIndent)
            lines += wrap(flag.fullHelp, width: width, first: indent, rest: indent)
        }
        return lines
    }

    /// The short help after the heading: the essential options, one line
    /// each where the width allows, the categories, and the examples.
    static func short(width: Int) -> [String] {
        var lines = [""] + wrap("Options most runs need:", width: width, first: "", rest: "")
        let column = 37
        for (long, brief) in essentials {
            guard let flag = FlagTable.flag(long: long) else { continue }
            let lead = flag.short == nil ? "      " : "  "
            let name = lead + flag.synopsis
            if name.count + 1 < column, column + brief.count <= width {
                lines.append(name + String(repeating: " ", count: column - name.count) + brief)
            } else {
                lines += wrap(flag.synopsis, width: width, first: lead, rest: "      ")
                let indent = String(repeating: " ", count: helpIndent)
                lines += wrap(brief, width: width, first: indent, rest: indent)
            }
        }
        lines.append("")
        let names = FlagCategory.allCases.map(\.name).joined(separator: ", ")
        lines += wrap("More: wspipe --help CATEGORY (\(names)) or all; man wspipe.",
                      width: width, first: "", rest: "")
        lines.append("")
        lines += examples(width: width)
        return lines
    }

    /// One example per use (`UsageExample.forHelp`): what it does, then its
    /// lines indented as typed (wrapped only on a screen too narrow for them).
    static func examples(width: Int) -> [String] {
        var lines = ["Examples:"]
        for example in UsageExample.forHelp {
            lines += wrap(example.what, width: width, first: "  ", rest: "  ")
            for line in example.lines {
                let indent = String(repeating: " ", count: 4 + line.prefix { $0 == " " }.count)
                lines += wrap(String(line.drop { $0 == " " }), width: width, first: indent, rest: indent + "  ")
            }
        }
        return lines
    }

    /// Word-wraps `text` into lines of at most `width` characters, the first
    /// starting with `first`, the others with `rest`. A word longer than a
    /// whole line is cut.
    static func wrap(_ text: String, width: Int, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var line = first
        var lineHasWord = false
        for word in text.split(separator: " ") {
            let separator = lineHasWord ? " " : ""
            if line.count + separator.count + word.count <= width {
                line += separator + word
                lineHasWord = true
                continue
            }
            if lineHasWord {
                lines.append(line)
                line = rest
                lineHasWord = false
            }
            var remaining = Substring(word)
            while line.count + remaining.count > width {
                let room = max(1, width - line.count)
                lines.append(line + remaining.prefix(room))
                remaining = remaining.dropFirst(room)
                line = rest
            }
            line += remaining
            lineHasWord = !remaining.isEmpty
        }
        if lineHasWord || lines.isEmpty { lines.append(line) }
        return lines
    }
}
