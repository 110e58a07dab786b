import WSBridge
import WSConsole
/// The content of `man/wspipe.1`, written with `RoffPage`: the sections
/// from NAME to SEE ALSO. OPTIONS walks `flagTable` with the same categories,
/// order, help and defaults as `--help`, and adds each flag's rules and long
/// `doc`; the other sections are the overview that spans flags. Every option
/// named in prose is set in bold by `Roff.prose` (a test checks it is a real flag).
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

        page.request("SH", "ONE-SHOT EXCHANGES")
        page.paragraphs([oneShot])
        for (shape, needs) in oneShotShapes { page.item(shape, needs) }

        page.request("SH", "BINARY CODECS")
        binaryCodecs(&page)

        page.request("SH", "OPTIONS")
        page.paragraphs([optionsIntro])
        for category in FlagCategory.allCases {
            let flags = table.filter { $0.category == category }
            if flags.isEmpty { continue }
            page.request("SS", category.heading)
            for flag in flags { option(flag, &page) }
        }

        page.request("SH", "ROUTING")
        page.paragraphs(routing)

        page.request("SH", "RECONNECT AND REPLAY")
        page.paragraphs(reconnect)
        page.paragraphs(["What becomes of a message a connection took, when it ends:"])
        for (state, fate) in fates { page.item(state, fate) }
        page.paragraphs(reconnectRest)

        page.request("SH", "SCRIPTED PEER")
        page.paragraphs(scriptedPeer)

        page.request("SH", "TEMPLATES")
        page.paragraphs(templates)

        page.request("SH", "CHECKING A SERVER")
        checkingAServer(&page)
        page.request("SH", "SOCKET.IO")
        page.paragraphs(socketIO)

        page.request("SH", "INTERACTIVE MODE")
        interactiveMode(&page)

        page.request("SH", "FROM THE BROWSER")
        fromTheBrowser(&page)

        page.request("SH", "CONFIG FILES")
        configFiles(&page)

        page.request("SH", "EXIT STATUS")
        for (code, meaning) in HelpRenderer.exitStatuses {
            page.item(String(code), meaning.prefix(1).uppercased() + String(meaning.dropFirst()) + ".")
        }

        page.request("SH", "ENVIRONMENT")
        environment(&page)

        page.request("SH", "FILES")
        files(&page)

        page.request("SH", "EXAMPLES")
        for example in usageExamples {
            page.paragraphs([example.what])
            page.example(example.lines)
        }

        page.request("SH", "SEE ALSO")
        page.raw(".BR websocat (1),")
        page.raw(".BR jq (1),")
        page.raw(".BR curl (1)")
        return page.text
    }

    /// One `.TP` entry: bold names and italic value name; the help with its
    /// default and the flag's rules; then its long doc, paragraph by paragraph.
    static func option(_ flag: Flag, _ page: inout RoffPage) {
        var tag = ""
        if let short = flag.short { tag += Roff.bold("-\(short)") + ", " }
        tag += Roff.bold("--" + flag.long)
        if let valueName = flag.valueName { tag += " " + Roff.italic(valueName) }
        page.tagged(tag)
        page.text(flag.fullHelp)
        // (--check is the mode itself.)
        if let modes = sentence(flag.modes), flag.long != "check" { page.text(modes) }
        for rule in flag.rules { if let text = sentence(rule) { page.text(text) } }
        for block in flag.doc {
            switch block {
            case .paragraph(let prose): page.indentedParagraph(prose)
            case .list(let items): page.nestedItems(items.map { ($0.term, $0.text) })
            }
        }
    }

    /// What a rule means, for the reader of the man page (the modes say
    /// the rest: `sentence(_: FlagModes)`).
    static func sentence(_ rule: FlagRule) -> String? {
        switch rule {
        case .conflicts(let other): return "Not with --\(other)."
        case .requires(let other): return "Needs --\(other)."
        case .requiresInServerMode(let other): return "With --listen, needs --\(other)."
        case .clientOnly, .serverOnly: return nil
        }
    }

    /// Where a flag is refused, for the reader of the man page; nil when it
    /// works in every mode.
    static func sentence(_ modes: FlagModes) -> String? {
        if modes == .check { return "Needs --check." }
        let check = modes.contains(.check)
        let stdio = modes.subtracting(.check)
        if stdio == .all { return check ? nil : "Refused with --check, which would ignore it." }
        if stdio.isDisjoint(with: .servers) {
            if !stdio.contains(.client) { return "Interactive mode only: refused in a pipe, with --listen and with --check." }
            return check ? "Client mode and --check only: refused with --listen." : "Client mode only: refused with --listen and --check."
        }
        if stdio.isDisjoint(with: .clients) {
            return stdio.contains(.server) ? "Server mode only: needs --listen." : "Needs --listen."
        }
        var not: [String] = []
        if !stdio.contains(.interactive) { not.append("in interactive mode") }
        if !stdio.contains(.exec) { not.append("with --exec") }
        if !check { not.append("with --check") }
        let list = not.count > 2 ? not.dropLast().joined(separator: ", ") + " and " + not.last! : not.joined(separator: " and ")
        return "Refused " + list + ", which would ignore it."
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
            + "--events adds lifecycle events as JSON lines, and --stats a JSON summary at exit.",
        "In server mode (--listen), every message from any client is written to stdout as in client mode, "
            + "and each stdin line is sent to all connected clients. "
            + "With --relay the clients also hear each other, and with --exec each client talks to a program "
            + "of its own instead.",
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
        page.bullet("{\"$text\":\"...\"}, with only that key, sends the decoded string as a text message; "
            + "a string with a lone surrogate escape (\\ud800), which no UTF-8 text can hold, makes the line invalid.")
        page.bullet("Any other valid JSON is sent byte for byte as a text message.")
        page.bullet("A value spread over several lines (what jq . prints) is joined and sent compacted, up to "
            + "--max-message-size. When a line cannot continue the value pending before it but is a value on "
            + "its own, the first line of the pending value was a stray one: it alone is reported, and the "
            + "lines after it are read again on their own.")
        page.bullet("A line that is not valid JSON is not sent: \"wspipe: stdin:LINE:COL: reason\" is written on "
            + "stderr, the run goes on, and it ends with exit status 6. "
            + "--lenient sends such a line as raw text instead; --strict stops at the first one.")
        page.paragraphs([
            "So \"wspipe A | wspipe B\" relays losslessly, and \"wspipe URL <>fifo >fifo\" is an exact echo client "
                + "(<> because a FIFO opened only for reading waits for a writer: <fifo >fifo would never start).",
            "At stdin EOF, replies still owed get a chance before the Close: "
                + "\"echo REQUEST | wspipe URL\" prints the reply of a request/response server. "
                + "--linger says exactly what the default rule waits for and when it can still close early; "
                + "--reply KEYPATH waits for the reply of each request and exits 1 naming those that never came, "
                + "--until for the one message that ends the exchange, and -n with --idle-timeout for everything "
                + "until the server falls silent. "
                + "Once stdin is over and nothing is left to send, a server's Close ends the run without a reconnect: "
                + "exit status 0 for 1000 and 1001, 7 for any other code.",
            "Raw line mode (-t or -b) is for servers that do not speak JSON: lines and messages are passed "
                + "through as they are, see --text, --binary, --binary-output and --nul.",
            "At a terminal, in every mode, what a peer sends cannot drive the terminal: C0 controls, DEL, "
                + "C1 controls (U+0080 to U+009F), the bidirectional overrides and isolates (U+202A to U+202E, "
                + "U+2066 to U+2069) and marks (U+200E, U+200F, U+061C), the separators U+2028 and U+2029 "
                + "and U+FEFF are shown escaped: as JSON escapes (\\u009b, the same JSON value) in JSON "
                + "lines, as \\xHH (tabs and line feeds kept) in raw line mode, bytes that are not UTF-8 too. "
                + "Into a pipe or a file every byte is written exactly as it came. Text from a peer on stderr "
                + "(close reasons, status lines, headers, subprotocols) is always escaped.",
        ])
    }

    static let optionsIntro =
        "A value is given as in --origin URL, --origin=URL, -H VALUE or -HVALUE; switches can be bundled, "
        + "as in -nv. A flag that is not repeatable keeps the last value given, and -- ends the options."

    static let routing = [
        "Each incoming message is written to stdout, and each event (--events) to stderr, unless a --route "
            + "sends it elsewhere: a file, a file descriptor, a command, the other stream, or nowhere. "
            + "Routes tell JSON messages apart by the string at --type-key, and other messages by their kind.",
        "Each line still goes to exactly one place. A destination that fails (a full disk, a command that "
            + "exited) is reported on stderr, unless --route-errors ignore, and does not stop the other routes. "
            + "At the end wspipe says how many messages each failed destination dropped, and a file on a full "
            + "disk ends on a whole line: what was written of the line it failed on is cut off again.",
        "When stdout's reader goes away (wspipe URL | head -1), wspipe closes the connection and says on stderr "
            + "how many received messages it did not write (not with -q). The exit status stays 0: a pipeline "
            + "that stops reading is a normal way to end, and set -o pipefail scripts are not failed by it.",
    ]

    static let reconnect = [
        "Once a connection has succeeded, wspipe reconnects when it drops, when a ping gets no pong within "
            + "--ping-timeout, or when the server closes with a code other than 1000, waiting between attempts "
            + "as --backoff and --jitter say. "
            + "--max-retries gives up after that many failures in a row, and --no-reconnect exits instead. "
            + "The first connection fails fast with exit status 3 unless --wait retries it the same way. "
            + "A connection resets the backoff and the retry count only once it has stayed open 5 seconds, so a "
            + "server that accepts and then closes at once sees growing delays. Without --max-retries, a server that "
            + "closes three connections in a row within 5 seconds of accepting them, with a code other than 1000, "
            + "1001, 1012 (service restart) or 1013 (try again later), ends the run after the third; the exit status "
            + "is then 7, as when --max-retries gives up after such a Close. Each attempt is one line on stderr.",
        "A server's Close with a code other than 1000 and 1001 that ends the run (with --no-reconnect, with stdin "
            + "over and nothing left to send, or as the last of the attempts) makes the exit status 7; its code and "
            + "reason are on stderr and in the disconnected event. With stdin over and nothing left to send, no "
            + "reconnect is made only to say goodbye, whatever the code.",
        "While disconnected, stdin lines are queued in order, up to --queue-limit, and sent after the reconnect.",
        "Every connection starts with the --on-connect messages and those in --on-connect-file, or on "
            + "reconnections the --on-reconnect messages when there are any, with the values of --capture "
            + "filled in; then the messages still waiting for an --ack are sent again; then the queued lines.",
        "With --ack, delivery is to the server's application: a message counts as delivered when a reply "
            + "carries its key, and is sent again after every drop until then. Without --ack, delivery is to the "
            + "server's TCP: at a drop, wspipe asks the kernel (SIOCOUTQ on Linux) which of its bytes the server's "
            + "TCP never acknowledged and sends those messages again on the next connection, in order. That is at "
            + "least once: a message the server read but had not acknowledged yet arrives twice. A message its TCP "
            + "acknowledged is not sent again; if the server dies before its application reads it, it is lost. "
            + "Only --ack guarantees delivery to the application.",
        "So a message counts as confirmed only when the server showed it had read it. On Linux the kernel stamps "
            + "the moment the server's TCP acknowledged each write and the moment each of its segments arrived "
            + "(SO_TIMESTAMPING): a message from the server, a pong to no ping of wspipe's, its Close with 1000 "
            + "or 1001, or even bytes that break the protocol (its application wrote them), confirms exactly what "
            + "its TCP had acknowledged before that message arrived (or with the segment that brought it). What "
            + "its TCP acknowledged may still wait unread in its receive buffer: the window it advertises, "
            + "against the largest it advertised (TCP_INFO), bounds that, taken twice for safety, and those "
            + "messages are unread rather than confirmed: at most twice the server's window of lines (measured "
            + "with a 128 KiB receive buffer and 116-byte lines: 880-951 lines unread when a slow reader died "
            + "with its buffer full, 0 when a reader that kept up died). A message the server sent back "
            + "as it was (an echo, among the first 8 of a connection) is confirmed, and so is everything before "
            + "it. A pong to one of wspipe's pings (--ping-interval, /ping) confirms every message sent before "
            + "that ping: the server read them before it. A closing handshake the server answers confirms "
            + "everything.",
        "Where the kernel gives no stamps (macOS and other systems, a connection through a proxy, whose TCP "
            + "acknowledges for the server, WSPIPE_KERNEL_TIMESTAMPS=0, and the segments of a run's first "
            + "moments, before Linux has turned arrival stamps on), the moment a message was sent cannot be "
            + "asked, and wspipe uses a bound below it: what the kernel said was acknowledged (SIOCOUTQ) just "
            + "before wspipe last saw nothing left to read (nothing in the kernel, in TLS, or half a frame). "
            + "wspipe then looks whenever it stops writing and reading, after every 64 KiB written, and every "
            + "5 ms while bytes are in flight (up to 80 ms while the server's TCP acknowledges nothing new), so "
            + "a message confirms what was acknowledged a few milliseconds before it was sent; in a "
            + "request/response exchange a request is confirmed by its answer or, at the latest, by the next "
            + "one. The window's bound applies there too, where TCP_INFO exists (Linux).",
        "Limits no client can see past: a server whose receive buffer is still growing (its first hundred "
            + "kilobytes or so) may hold more than its window shows; through a proxy, its TCP acknowledges what "
            + "the server may never get; and a server that sends nothing confirms nothing (give it "
            + "--ping-interval).",
        "Everything else a connection took is unconfirmed (its TCP acknowledged it after the server last spoke, "
            + "or never) or unread, and reported when the connection ends: the count and the stdin lines in a "
            + "warning (1032 message(s) (stdin:15259-16290) unconfirmed: ..., 12 message(s) (stdin:15247-15258) "
            + "unread: ...), in the disconnected event (unconfirmed, unconfirmed_lines, and unread, unread_lines "
            + "when there are some) and in --stats (unconfirmed, unconfirmed_lines, unread, unread_lines). The "
            + "warning appears when the connection ended in a way that can lose them (a drop, a reset, a "
            + "timeout, an error Close); after a clean closing handshake they are said with -v only, and still "
            + "counted. Those the server's TCP acknowledged leave the exit status alone. When no connection "
            + "follows (the close timeout ran out, a signal, --no-reconnect, giving up), a message written and "
            + "never acknowledged by the server's TCP is unconfirmed too, always said, and makes the exit status "
            + "6: it may never have arrived. Not sent means never written to the socket: such lines are named "
            + "(N input line(s) (stdin:A-B) not sent), counted as not_sent in --stats, and make the exit status 6.",
        "Each ping from the server is answered with its own pong, at once; only while more than 256 KiB of "
            + "wspipe's output waits to be written (a peer that pings and does not read) is just the latest "
            + "one answered, once the output is written. wspipe's own ping goes ahead of the frames it has not "
            + "written yet, and --ping-timeout counts from the peer's last progress (bytes its TCP "
            + "acknowledged), as --close-timeout does: a slow server reading megabytes queued before the pong "
            + "it owes is not dropped.",
    ]

    /// The fates of RECONNECT AND REPLAY, row by row as `Redelivery` decides them.
    static let fates: [(String, String)] = [
        ("The server answered wspipe's Close", "Delivered: it read every message before it. Nothing is sent again."),
        ("Confirmed", "Delivered to the server's application, as far as it showed. Settled."),
        ("Unread", "Its TCP took it before the server last spoke; its application may not have read it. Reported, "
            + "not sent again."),
        ("Unconfirmed", "Its TCP acknowledged it after the server last spoke. Reported, not sent again."),
        ("Written, not acknowledged", "Sent again on the next connection (at least once); when none follows, "
            + "reported unconfirmed, exit status 6."),
        ("Never written", "Sent on the next connection; when none follows, reported not sent, exit status 6."),
        ("Refused (1009 or 1003)", "Reported with its line and the code, not sent again, exit status 6; the "
            + "messages after it, and those before it not confirmed, are sent again."),
        ("After a completed closing handshake", "What was written counts as acknowledged (everything written "
            + "reached the server's TCP ahead of the last Close): only messages never written make wspipe "
            + "connect again."),
        ("Held for --ack, or the connection's own (--on-connect, an answer, a heartbeat)", "Sent again when the "
            + "next connection opens (--on-connect, then what waits for its --ack), or not at all; never "
            + "counted here."),
    ]

    static let reconnectRest = [
        "A message the server refuses, closing with 1009 (too big) or 1003 (unsupported data) right after it, "
            + "is reported with its stdin line and the code, counted as not sent (exit status 6) and not sent "
            + "again; the lines after it still go out. When several were in flight, wspipe takes the largest "
            + "(1009) or the first binary one (1003) written since the server last sent anything; a refusal "
            + "on a connection that carried no message blames none.",
        "A server that closes first, with the closing handshake completed, had every message wspipe wrote "
            + "before its Close reach its TCP ahead of wspipe's answer. So with stdin over, only lines never "
            + "written make wspipe connect again, to send them; the written ones are confirmed, unread or "
            + "unconfirmed as above (when a connection follows anyway, those the server's TCP had not "
            + "acknowledged go again on it, as after a drop). A connection the server refuses (it closes within "
            + "5 seconds with a code that counts toward the three refusals) confirms nothing: every line written "
            + "to it is reported unconfirmed (N message(s) (stdin:A-B) unconfirmed: written to a connection the "
            + "server refused (CODE) ...), after the refusal's reason, even after a message from the server, "
            + "since a greeting is no receipt. So echo LINE | wspipe URL against a server that refuses at once "
            + "makes one attempt, reports the line unconfirmed and exits 7, every time.",
    ]

    static let oneShot = "At stdin EOF wspipe gives the replies still owed a chance before its Close (--linger, "
        + "at most 1s by default, counted from the moment everything is sent), so that echo REQUEST | wspipe URL "
        + "prints the reply of a request/response server. What the server's messages look like decides what "
        + "to give; four shapes:"

    static let oneShotShapes: [(String, String)] = [
        ("An echo", "Nothing: the Close goes out as soon as every message came back as it was."),
        ("A greeting, then the answer", "Nothing on Linux, where the kernel stamps arrivals: a message that "
            + "arrived before the server's TCP had the request cannot be its reply, so the greeting pays for "
            + "nothing and the answer is waited for, up to --linger. A greeting sent only after the server's TCP "
            + "took the request (a server slow to greet) looks like a reply to any client, as does every "
            + "greeting where there are no stamps: give --reply KEYPATH when requests carry a key, --until for "
            + "the one message that ends the exchange, or -n with --idle-timeout."),
        ("An ack, then the result", "Both carry the request's key: --reply id --reply-match type=result waits "
            + "for the result, and prints both."),
        ("No answer", "wspipe waits --linger, then closes with exit status 0 (-v says a reply was still owed); "
            + "with --reply a missing reply is exit status 1."),
    ]

    static func interactiveMode(_ page: inout RoffPage) {
        page.paragraphs(interactive)
        page.paragraphs(["Keys:"])
        for entry in InteractiveHelp.keys { page.item(entry.usage, entry.text) }
        page.paragraphs(["Commands (a line starting with / is a command, never a message):"])
        for entry in InteractiveHelp.commands { page.item(entry.usage, entry.text) }
        page.paragraphs(interactiveRest)
    }

    static let interactive = [
        "When stdin and stdout are both a terminal, or with --interactive, the client is a REPL for debugging "
            + "a server: a line editor at the bottom of the terminal and, above it, a transcript of every message "
            + "sent (>) or received (<) with its time (12:01:02.123), and of the connection's lifecycle (-): "
            + "connected, with the HTTP status and the subprotocol; disconnected, with the close code, the reason "
            + "and who closed; reconnecting in N s. A message arriving while a line is being typed is printed "
            + "above it, and the line is drawn again intact. In a pipe nothing changes.",
        "A message that fits in the terminal's width takes one row, compact and coloured, after the time. A "
            + "larger JSON message is pretty-printed, two blanks per level, with an array of numbers, strings or "
            + "literals kept on one line when it fits; a line wider than the terminal continues on the next rows, "
            + "indented further, and breaks between tokens, or inside a string too long for a row of its own. A "
            + "message longer than the screen is folded: its first rows, then \"... N more lines, /show K\". "
            + "/compact puts every message on one row, cut at the terminal's edge; /pretty goes back. On a "
            + "terminal narrower than 25 columns, a message goes on the rows under its mark and time (under 14, "
            + "without the time). Text that is "
            + "not JSON is shown as a quoted JSON string after text (the first time, a note suggests -t), and a "
            + "binary message as its size and its first bytes in hex. Whatever a peer sends, what would act on "
            + "the terminal is shown escaped. A message that is the reply to one sent (matched by --reply, or by the "
            + "one-shot rule's \"id\" or as an echo: see --linger) ends with the time it took, (reply in 12.3 ms).",
        "Each line typed is one message, as a stdin line would be: JSON by default, with the {\"$text\":...} "
            + "and {\"$binary\":...} envelopes; as it is with --text or --binary. "
            + "A line that is not valid JSON is not sent: the error shows under it, whole, naming the line and column, "
            + "the offending character is marked, and the cursor stays at the end (--lenient sends it as text "
            + "instead). A pasted value of several lines, such as the output of jq, is one message.",
        "The messages are numbered. The newest are kept in memory, up to --history-size bytes, for /find, "
            + "/show and /resend; /filter hides messages from the transcript without dropping them: they are "
            + "kept and counted, and they still go to stdout when it is redirected (-i), and to routes.",
        "Under the prompt, a status row shows the connection's state and URL, the messages received (in) and "
            + "sent (out), the last round trip of a ping, and the filter with how many messages it hid. It needs "
            + "a terminal of at least 8 rows; --no-status-line or WSPIPE_PLAIN=1 turn it off.",
    ]

    static let interactiveRest = [
        "Filters (/filter EXPR): terms separated by blanks. in and out match the direction; KEYPATH=VALUE the "
            + "value at a dotted key path of a JSON message (type= reads the --type-key path, as --route does), "
            + "VALUE a JSON string (user.name=\"ann smith\") or a word that matches a string of that text or a "
            + "number or literal written so (id=7, done=true); any other term is text the message contains, "
            + "whatever the ASCII case (in double quotes when it holds blanks or =), as written or as the "
            + "message's strings read once their escapes are decoded (\\u003c is <). A term after a minus sign "
            + "hides what it matches. A message is shown when no hiding term matches it, it has one of the "
            + "directions given, one of the values given for each key path, and every text given: /filter "
            + "type=chat type=join shows both types, and a minus sign before type=pong shows everything but pongs.",
        "Saved messages (/save, /send) are kept in $XDG_CONFIG_HOME/wspipe/messages.ndjson, one "
            + "{\"name\":NAME,\"message\":TEXT} a line, created with mode 0600; the file is read at every "
            + "use and may be edited by hand; /save replaces it whole, under a lock on it, so that sessions "
            + "saving at the same moment each keep their message (it waits at most 3 s for another "
            + "process's lock, then says the message was not saved). /save NAME keeps the last message sent; "
            + "/save NAME MESSAGE keeps "
            + "MESSAGE as typed, which may be a template (see TEMPLATES): ${NAME}, the latest value of "
            + "--capture NAME; ${.KEYPATH}, the value at KEYPATH of the last JSON message received (${.} all "
            + "of it); ${seq} and ${now_ms}. /save refuses a template that could not be JSON once filled in; "
            + "/send fills it in, each value as JSON (null while there is none), and sends the result as a "
            + "typed line. With --text or --binary, saved messages are sent as they are.",
        "Lines are added to the history as they are sent; the last 1000 are kept in "
            + "$XDG_STATE_HOME/wspipe/history (see ENVIRONMENT), which only its owner may read or write "
            + "(mode 0600, in a directory of mode 0700; wspipe puts these modes back if they were changed; it "
            + "writes no file through a symbolic link, and its rewrite goes through a new file of a random name). "
            + "A line typed with a leading space is sent but not kept, as with bash's ignorespace.",
        "Every other option applies: headers, --on-connect messages (shown as sent), reconnects (a line typed "
            + "while disconnected waits in the queue), --route (a message routed to a file or a command goes "
            + "there, not to the transcript), --events (shown in the transcript). With --interactive and stdout "
            + "redirected, the editor is drawn on stderr and stdout still gets the line of each message.",
        "The terminal is restored on every way out: Ctrl-D, /quit, /close, Ctrl-C, SIGINT, SIGTERM, SIGHUP "
            + "(exit status 129), an error, or a crash.",
    ]
}
