import WSBridge

/// The man page's CHECKING A SERVER section: what --check makes of a
/// recording, the matchers and their regular expressions, HAR files, the
/// report, JUnit and the reply latencies.
extension ManPageRenderer {
    static func checkingAServer(_ page: inout RoffPage) {
        page.paragraphs(checkIntro)
        page.paragraphs(["A string value of an expected message that is exactly one of these is a matcher:"])
        for (term, text) in matchers { page.item(term, text) }
        page.paragraphs(checkValues)
        page.paragraphs(["The regular expressions of ${re:REGEX} take this syntax, a subset common to POSIX, "
                         + "PCRE and JavaScript:"])
        for (term, text) in regexSyntax { page.item(term, text) }
        page.paragraphs(checkReport)
        page.example([
            "wspipe --check 'tests/*.ndjson' --repeat 5 --max-reply-p99 250ms \\",
            "    --junit report.xml wss://staging.example.com/ws",
        ])
    }

    static let checkIntro = [
        "--check FILE plays a recording against the server and compares what comes back: a regression test "
            + "of a WebSocket API, recorded once with --record (or saved from a browser's DevTools as a HAR "
            + "file) and checked in CI. Each connection of the recording is played on a fresh connection of "
            + "its own, one after the other, to the URL given on the command line, or to the one the recording "
            + "holds when none is given.",
        "The play is paced by the replies, not by the recorded clock: a message the recording sent goes out as "
            + "soon as every message it received before it on that connection has come, each awaited at most "
            + "--check-timeout. Every message that comes is compared with the one the recording expects there. "
            + "After the last one, wspipe watches --check-settle more for messages the recording does not have, "
            + "then closes (with --close-code). A recorded connection the server ended with a Close (other "
            + "than 1001) expects that Close, with its code. The messages wspipe had made from flags (\"src\": "
            + "answers, heartbeats, on-connect messages) are sent again where they were, like the others. A "
            + "message of a type --allow-extra names is "
            + "skipped wherever it comes, and those of the recording are not awaited. With --check-order any, "
            + "the messages expected between two sent ones may come in any order.",
        "JSON messages are compared as values: the order of keys, the whitespace and the spelling of numbers "
            + "(1, 1.0 and 1e0 are one number) do not matter; a key the message lacks or adds is a difference. "
            + "Text that is not JSON, and binary messages, must be the same bytes. --ignore KEYPATH leaves a "
            + "value out of the comparison wherever it is (* stands for any key or index).",
    ]

    static let matchers: [(String, String)] = [
        ("\"${any}\"", "Any value."),
        ("\"${string}\", \"${number}\"", "Any string, any number."),
        ("\"${re:REGEX}\"", "A string that REGEX matches whole (below); the string is unescaped first."),
        ("\"${capture:NAME}\"", "Any value, kept as NAME for the rest of the recording, its later connections "
            + "included."),
        ("\"${NAME}\"", "In an expected message, the value captured as NAME. In a message to send, it is "
            + "replaced by that value, whatever its type: a session id the server hands out is sent back."),
        ("\"$${...}\"", "The string ${...} itself."),
    ]

    static let checkValues = [
        "NAME is letters, digits and _, not starting with a digit. A ${NAME} needs a ${capture:NAME} in a message "
            + "expected before it; a matcher in a message to send, or a ${...} that is none of these, is a usage "
            + "error naming the line. Edit the recording to put matchers where values change from run to run "
            + "(ids, times, tokens): {\"type\":\"welcome\",\"session\":\"${capture:sid}\",\"ts\":\"${number}\"}.",
    ]

    static let regexSyntax: [(String, String)] = [
        ("x", "A character stands for itself, except \\ . [ ] ( ) | * + ? { } ^ $, which \\ makes literal."),
        (".", "Any character but a line feed."),
        ("[abc] [a-z0-9] [^...]", "One of the characters, or none of them; ] first, and - first or last, are "
            + "literal."),
        ("\\d \\w \\s", "An ASCII digit, word character ([A-Za-z0-9_]) or blank; \\D, \\W and \\S the "
            + "others; also inside brackets."),
        ("\\t \\n \\r \\xHH \\uHHHH \\u{H...}", "A tab, a line feed, a carriage return, a character by its "
            + "code."),
        ("(...) (?:...) (?<name>...)", "A group (nothing is captured)."),
        ("a|b", "Either."),
        ("* + ? {n} {n,} {n,m}", "Repeats (n and m at most 1000); a lazy ? after one is accepted."),
        ("^ $ \\b \\B", "The start and the end of the string, a word boundary, elsewhere."),
        ("(?i)", "At the very start: letters match either case."),
    ]

    static let checkReport = [
        "The pattern is matched by simulating its automaton, in time proportional to the string's length "
            + "times the pattern's size, whatever both hold: there is no backtracking, so back-references and "
            + "look-arounds are refused, and no pattern can make a check hang.",
        "A difference fails the recording. Its report, on stderr, names the recording's file and line, where "
            + "the first difference is in KEYPATH notation (room.topic, items.2.ts), the expected and the actual "
            + "value there, and then both messages, - expected and + actual, escaped as all text from the "
            + "server is. A message that is one the recording expects later is given the rest of "
            + "--check-timeout: the one awaited may come after it (out of order) or not at all (missing). A "
            + "passing recording is one PASS line (not with -q). The run ends with the line N passed, N failed, "
            + "and --junit writes the same as JUnit XML.",
        "The exit status is 0 when every recording passed, 8 when one failed its check, and 3, 4, 5 or 7 when "
            + "the connection itself failed (could not connect, was refused, broke the protocol, or was closed "
            + "with an error code the recording does not have), as in client mode: CI tells a wrong answer from "
            + "a server that is down.",
        "A HAR file's WebSocket entries (the _webSocketMessages of Chrome's and Firefox's Save all as HAR) "
            + "are read as connections: sent frames to send, received ones to expect (binary ones from their "
            + "base64). Each connection takes its request's URL, subprotocols, Origin and headers, unless the "
            + "command line gives them; credentials only with --har-credentials. --replay plays a HAR file too.",
        "Each message the recording expects after one it sent is a reply: its time since that message went "
            + "out is its latency. --stats adds reply_ms (count, p50, p90, p99 and max, in milliseconds, kept "
            + "in a histogram of fixed size to within 1%), -w has time_reply_p50, time_reply_p90, time_reply_p99 "
            + "and time_reply_max, and --events a reply event for each, with its ms, file and line. The same is "
            + "measured in client mode for every reply --reply matches, or the one-shot rule (--linger) by its "
            + "\"id\" or as an echo of the message sent, and the interactive mode shows it beside the reply. --repeat N checks everything N times and reports the "
            + "percentiles of all runs before the summary; --max-reply-p99 fails the run (exit 8) when the 99th "
            + "percentile is above it. For example:",
    ]
}
