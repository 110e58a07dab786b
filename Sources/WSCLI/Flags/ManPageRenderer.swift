/// Renders `man/wspipe.1` (roff, man macros). The OPTIONS section walks
/// `flagTable` with the same categories, order, help and defaults as
/// `--help`; the other sections are prose of the product contract, where every option
/// named is set in bold by `Roff.prose` (and a test checks it is a real flag).
public enum ManPageRenderer {
    public static func render(_ table: [Flag] = flagTable) -> String {
        var page = RoffPage()
        page.raw(".\\\" " + DocGenerator.notice("man"))
        page.request("TH", "WSPIPE", "1", "", "wspipe \(wspipeVersion)", "User Commands")

        page.request("SH", "NAME")
        page.raw("wspipe \\- bridge stdin/stdout and a WebSocket, for JSON protocols")

        page.request("SH", "SYNOPSIS")
        for (number, usage) in HelpRenderer.usageLines.enumerated() {
            if number > 0 { page.request("br") }
            page.synopsis(usage)
        }

        page.request("SH", "DESCRIPTION")
        page.paragraphs(description)

        page.request("SH", "LINES AND MESSAGES")
        linesAndMessages(&page)

        page.request("SH", "OPTIONS")
        page.paragraphs([optionsIntro])
        for category in FlagCategory.allCases {
            let flags = table.filter { $0.category == category }
            if flags.isEmpty { continue }
            page.request("SS", category.heading)
            for flag in flags { option(flag, &page) }
        }

        page.request("SH", "ROUTING")
        routing(&page)

        page.request("SH", "RECONNECT AND REPLAY")
        page.paragraphs(reconnect)

        page.request("SH", "EXIT STATUS")
        for (code, meaning) in HelpRenderer.exitStatuses {
            page.request("TP")
            page.raw("\\fB\(code)\\fR")
            page.text(meaning.prefix(1).uppercased() + String(meaning.dropFirst()) + ".")
        }

        page.request("SH", "ENVIRONMENT")
        page.item("NO_COLOR", "When set, wspipe never writes ANSI colour; without it, colour is only ever used when the stream is a terminal.")
        page.item("http_proxy, https_proxy, HTTPS_PROXY, all_proxy, ALL_PROXY",
                  "Without --proxy or --unix-socket, a ws:// connection goes through the proxy in http_proxy "
                      + "and a wss:// one through https_proxy, each falling back to all_proxy; the lower-case name "
                      + "wins, and HTTP_PROXY is ignored, as by curl. Values take the form of --proxy.")
        page.item("no_proxy, NO_PROXY",
                  "Hosts to reach without the proxy, as for --noproxy, which replaces them.")

        page.request("SH", "EXAMPLES")
        for example in examples {
            page.paragraphs([example.what])
            page.example(example.lines)
        }

        page.request("SH", "SEE ALSO")
        page.raw(".BR websocat (1),")
        page.raw(".BR jq (1),")
        page.raw(".BR curl (1)")
        return page.text
    }

    /// One `.TP` entry: bold names, italic value name, then the help with its
    /// default, and what the table says about combining the flag with others.
    static func option(_ flag: Flag, _ page: inout RoffPage) {
        var tag = ""
        if let short = flag.short { tag += Roff.bold("-\(short)") + ", " }
        tag += Roff.bold("--" + flag.long)
        if let valueName = flag.valueName { tag += " " + Roff.italic(valueName) }
        page.request("TP")
        page.raw(tag)
        page.text(flag.fullHelp)
        if !flag.requires.isEmpty {
            page.text("Needs " + flag.requires.map { "--" + $0 }.joined(separator: " and ") + ".")
        }
        if !flag.conflicts.isEmpty {
            page.text("Not with " + flag.conflicts.map { "--" + $0 }.joined(separator: " or ") + ".")
        }
        if flag.clientOnly {
            page.text("Client mode only: refused with --listen.")
        }
    }

    static let description = [
        HelpRenderer.summary,
        "wspipe connects to the WebSocket server at URL (ws:// or wss://) or, with --listen, "
            + "accepts any number of clients itself. It keeps the connection alive, reconnects with backoff, "
            + "never silently loses a line it was given, and lets a shell script drive a whole JSON protocol "
            + "(chat, realtime sessions) with nothing but pipes, jq and other Unix tools.",
        "Durations take units: 250ms, 2s, 1.5m, 1h; a bare number is seconds. "
            + "Sizes take K, M or G, binary multiples: 64M is 64 MiB.",
        "Errors are written on stderr as \"wspipe: message\", never on stdout; "
            + "-v adds lifecycle notices and -q leaves only fatal errors. "
            + "With --events, lifecycle events such as {\"$event\":\"connected\",\"url\":\"wss://...\",\"attempt\":1} "
            + "become JSON lines routed like messages (to stderr by default); "
            + "--stats writes a JSON summary on stderr at exit.",
        "In server mode (--listen), every message from any client is written to stdout as in client mode, "
            + "and each stdin line is sent to all connected clients. A slow client gets back-pressure: "
            + "wspipe stops reading stdin until it catches up, unless --send-timeout disconnects it. "
            + "With --tag, lines from client N carry \"$client\":N, and a stdin line carrying \"$client\":N "
            + "goes to client N only, without that member. --once serves one client and exits when it leaves.",
    ]

    static func linesAndMessages(_ page: inout RoffPage) {
        page.paragraphs(["In JSON mode, the default, stdout is NDJSON: exactly one line per incoming message, nothing else."])
        page.paragraphs(["Incoming messages (socket to stdout):"])
        page.bullet("A text message that is valid JSON (RFC 8259) is written byte for byte. "
            + "If it contains line breaks it is compacted first: whitespace outside strings is removed, "
            + "every token is unchanged.")
        page.bullet("A text message that is not JSON is written as {\"$text\":\"...\"}, the text as a JSON string.")
        page.bullet("A binary message is written as {\"$binary\":\"...\"} in standard base64.")
        page.paragraphs(["Outgoing messages (stdin to socket): each line, ended by LF or CRLF, is one message; "
            + "a last line without a newline counts, and an empty line is skipped."])
        page.bullet("{\"$binary\":\"...\"}, with only that key, is decoded and sent as a binary message.")
        page.bullet("{\"$text\":\"...\"}, with only that key, sends the decoded string as a text message.")
        page.bullet("Any other valid JSON is sent byte for byte as a text message.")
        page.bullet("A line that is not valid JSON is not sent: \"wspipe: stdin:LINE:COL: reason\" is written on "
            + "stderr, the run goes on, and it ends with exit status 6. "
            + "--lenient sends such a line as raw text instead; --strict stops at the first one.")
        page.paragraphs([
            "So \"wspipe A | wspipe B\" relays losslessly, and \"wspipe URL <fifo >fifo\" is an exact echo client.",
            "Raw line mode is for servers that do not speak JSON. With -t each line is sent as a text message as is, "
                + "and each message is written followed by a newline (line breaks inside it are kept). "
                + "-b sends the lines as binary messages. --binary-output chooses how incoming binary messages "
                + "are written, and -0 separates lines with NUL instead of newline.",
        ])
    }

    static let optionsIntro =
        "A value is given as in --origin URL, --origin=URL, -H VALUE or -HVALUE; switches can be bundled, "
        + "as in -nv. A flag that is not repeatable keeps the last value given, and -- ends the options."

    static func routing(_ page: inout RoffPage) {
        let typeKey = FlagTable.flag(long: "type-key")?.defaultValue ?? "type"
        page.paragraphs([
            "Each incoming message is written to stdout, and each event (--events) to stderr, unless a --route "
                + "VALUE=DEST sends it elsewhere. VALUE is compared with the string found at the --type-key "
                + "(default \(typeKey); a dotted path such as event.kind reaches into nested objects) "
                + "of incoming JSON messages; a message where it is missing or not a string is matched by *. "
                + "Some VALUEs are special:",
        ])
        page.item("$binary", "Binary messages.")
        page.item("$text", "Text messages that are not JSON.")
        page.item("$event", "Lifecycle events (--events); stderr unless routed.")
        page.item("*", "Whatever no other route matched; stdout unless routed.")
        page.paragraphs(["DEST is one of:"])
        page.item("stdout, stderr", "The standard streams.")
        page.item("drop", "Nowhere: the message is discarded.")
        page.item("fd:N", "File descriptor N, opened by the calling shell (3>file).")
        page.item("|COMMAND", "The stdin of COMMAND, started once with sh -c; wspipe waits for it at exit.")
        page.item("any other path", "A file, appended to, created if missing.")
        page.paragraphs([
            "Each line still goes to exactly one place. A destination that fails (a full disk, a command that "
                + "exited) is reported on stderr, unless --route-errors ignore, and does not stop the other routes.",
        ])
    }

    static var reconnect: [String] {
        let backoff = FlagTable.flag(long: "backoff")?.defaultValue ?? ""
        return [
            "Once a connection has succeeded, wspipe reconnects when it drops, when a ping gets no pong within "
                + "--ping-timeout, or when the server closes with a code other than 1000. "
                + "The delay is set by --backoff MIN:MAX:FACTOR (default \(backoff)): it starts at MIN and is "
                + "multiplied by FACTOR after each failure, up to MAX, and varies at random by --jitter; "
                + "a successful connection resets it. "
                + "--max-retries gives up after that many failures in a row, and --no-reconnect exits instead. "
                + "The first connection fails fast with exit status 3 unless --wait retries it the same way.",
            "While disconnected, stdin lines are queued in order and sent after the reconnect. "
                + "--queue-limit bounds the queue: when it is full, wspipe stops reading stdin and drops nothing.",
            "The --on-connect messages and those in --on-connect-file are sent first on every connection; "
                + "on reconnections, the --on-reconnect messages are sent instead when there are any. "
                + "--capture NAME=KEYPATH remembers the latest value seen at KEYPATH in incoming JSON, and "
                + "${NAME} in on-connect and on-reconnect messages is replaced by it, as JSON.",
            "With --ack KEYPATH, every sent message that has a value at KEYPATH is held until an incoming "
                + "message carries the same value there. On reconnect, the held messages are sent again in their "
                + "original order, after the on-connect or on-reconnect messages. At stdin EOF wspipe waits up to "
                + "--ack-timeout for the rest; messages still unacknowledged are reported and the exit status is 6.",
        ]
    }

    static let examples: [(what: String, lines: [String])] = [
        ("Chat: each line typed is sent, each message received is printed.", [
            "$ wspipe wss://chat.example.com/ws",
            "{\"type\":\"say\",\"room\":\"general\",\"text\":\"hello\"}",
        ]),
        ("Follow a stream and keep only the trades, with jq:", [
            "wspipe -U wss://stream.example.com/feed |",
            "    jq -c 'select(.type == \"trade\") | {price, size}'",
        ]),
        ("The same with a route: trades go to a jq process, the rest is dropped.", [
            "wspipe -U --route 'trade=|jq -c .price >>prices.log' \\",
            "    --route '*=drop' wss://stream.example.com/feed",
        ]),
        ("Connect over TLS with a bearer token kept out of ps(1) in a header file:", [
            "printf 'Authorization: Bearer %s\\n' \"$TOKEN\" >~/.feed.headers",
            "wspipe --header-file ~/.feed.headers -H 'X-Client: scripts' \\",
            "    wss://api.example.com/v1/stream",
        ]),
        ("A realtime session that survives reconnects: resume it with the captured session id and the "
            + "last sequence seen, and send again whatever the server did not acknowledge.", [
            "wspipe --wait --ping-interval 20s \\",
            "    --on-connect '{\"type\":\"session.start\"}' \\",
            "    --capture SID=session.id --capture SEQ=sequence \\",
            "    --on-reconnect \\",
            "      '{\"type\":\"session.resume\",\"id\":${SID},\"after\":${SEQ}}' \\",
            "    --ack sequence --ack-timeout 30s \\",
            "    wss://rt.example.com/v1 <requests.ndjson >responses.ndjson",
        ]),
        ("Mock a server for a client under test: answer every message with an ack.", [
            "mkfifo replies",
            "wspipe --listen 127.0.0.1:8080/ws --once <replies |",
            "    jq -c --unbuffered '{type: \"ack\", id: .id}' >replies",
        ]),
        ("Serve several clients and tell them apart; a stdin line with \"$client\":N answers client N only.", [
            "wspipe --listen 9000 --tag --events",
        ]),
    ]
}

/// A man page being written: requests and text lines.
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
    mutating func text(_ prose: String) {
        for sentence in Roff.sentences(prose) { lines.append(Roff.line(Roff.prose(sentence))) }
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
        request("TP")
        raw(Roff.line(Roff.bold(tag)))
        text(prose)
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
    /// bold with `\-` dashes. With `italicCapitals`, runs of capital letters
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
