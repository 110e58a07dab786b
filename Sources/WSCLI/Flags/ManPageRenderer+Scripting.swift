/// The man page's SCRIPTED PEER and TEMPLATES sections: what --answer,
/// --heartbeat, --wrap, --record and --replay make of wspipe, and the one
/// template language of their messages and of --on-connect.
extension ManPageRenderer {
    static let scriptedPeer = [
        "A few flags make wspipe the other side of a protocol without a script: --answer replies to messages "
            + "by their type (the application-level pings of exchange and chat APIs), --heartbeat sends a keepalive "
            + "message every --heartbeat-interval and --heartbeat-timeout drops a connection that has gone silent, "
            + "--wrap turns each stdin line of plain text into a message, and in server mode --on-connect greets "
            + "each client and --replay plays a recorded session to it: a mock server for the app under development.",
        "--record appends every message both ways, and every lifecycle event, to a file as JSON lines with their "
            + "time and connection; --replay plays such a file back, as the client (its out messages, with their "
            + "spacing) or as the server (its in messages, to each client). Record a session against the real "
            + "server once, then serve it to the app: wspipe --record app.ndjson URL, then "
            + "wspipe --listen 8080 --replay app.ndjson.",
        "Answers and heartbeats belong to their connection: they go out ahead of the stdin lines still queued, "
            + "are counted in --stats like any message sent, and one not yet written when its connection drops is "
            + "not sent again on the next. Event lines and the --stats line carry a time member, the wall-clock "
            + "time in UTC (RFC 3339 with milliseconds, 2025-03-01T09:30:05.123Z).",
    ]

    static let templates = [
        "The messages of --on-connect, --on-connect-file, --on-reconnect, --answer, --heartbeat and --wrap are "
            + "templates: JSON with variables, each written ${...} where a JSON value may stand.",
        "${NAME} is the latest value of --capture NAME (client mode; null before one arrived). "
            + "${.KEYPATH} is the value at KEYPATH of the message being answered (--answer only; null where it has "
            + "none), and ${.} the whole message. ${line} is the stdin line as a JSON string (--wrap only). "
            + "${seq} counts 1, 2, 3... for each connection, each time a template that holds it is filled in: a "
            + "server counts for each client; a client starts again from 1 on every connection (its --on-connect "
            + "or --on-reconnect, heartbeats, answers, and the --wrap lines read from the moment the previous one "
            + "ended). A --wrap message keeps the number it was given: one sent again on the next connection (not "
            + "written before the drop, or held for its --ack) carries its old number, which a new message there "
            + "may also get. ${now_ms} is the wall clock in milliseconds since 1970. ${env:NAME} is environment "
            + "variable NAME as a JSON string, read when wspipe starts (an unset one is a usage error): "
            + "--on-connect '{\"type\":\"auth\",\"token\":${env:TOKEN}}' instead of splicing '\"$TOKEN\"' into JSON, "
            + "which breaks on a quote or a backslash in the value.",
        "Every value is put in as JSON (a string with its quotes and escapes, a captured or answered value as it "
            + "came), so a template that is valid JSON stays valid whatever the values hold: "
            + "--wrap '{\"text\":${line}}' sends a line holding quotes, backslashes or tabs as the same text. "
            + "So a variable that may hold a string stands for a whole value, never inside a string's quotes; "
            + "${seq} and ${now_ms}, digits only, may (\"req-${seq}\"). "
            + "Each template is checked when wspipe starts; one that would not be JSON with its values in place, "
            + "or names a variable it cannot have, is a usage error (exit 2) giving its column. ${ always starts a "
            + "variable: write \\u0024 for a literal $ in a JSON string.",
        "A template is sent like a stdin line: {\"$text\":...} and {\"$binary\":...} stand for a text or binary "
            + "message, so --wrap '{\"$text\":${line}}' sends each line as it is.",
    ]
}
