/// One example of the man page's EXAMPLES: what it does, then the command
/// lines as typed. Those with a `use` also end `--help`, one per use.
public struct UsageExample: Sendable {
    /// The five ways wspipe is used, each with one example in `--help`.
    public enum Use: CaseIterable, Sendable {
        case oneShot, streamIntoJq, interactive, mockServer, ciCheck
    }

    public let what: String
    public let lines: [String]
    public let use: Use?

    init(_ what: String, _ lines: [String], use: Use? = nil) {
        self.what = what
        self.lines = lines
        self.use = use
    }

    /// The examples `--help` ends with, in the order of `Use`.
    public static var forHelp: [UsageExample] {
        Use.allCases.compactMap { use in usageExamples.first { $0.use == use } }
    }
}

/// The examples, as the man page lists them (wspipe(1): EXAMPLES); the
/// source of `--help`'s too, like the flag table for the options.
public let usageExamples: [UsageExample] = [
    UsageExample("One request, its reply on stdout:", [
        "echo '{\"type\":\"ping\",\"id\":1}' | wspipe wss://api.example.com/ws",
    ], use: .oneShot),
    UsageExample("A stream into jq, only the trades:", [
        "wspipe -U wss://stream.example.com/feed | jq -c 'select(.type == \"trade\")'",
    ], use: .streamIntoJq),
    UsageExample("The same with a route: trades go to a jq process, the rest is dropped.", [
        "wspipe -U --route 'trade=|jq -c .price >>prices.log' \\",
        "    --route '*=drop' wss://stream.example.com/feed",
    ]),
    UsageExample("Interactive, at a terminal: type a message, see the replies.", [
        "wspipe wss://chat.example.com/ws",
    ], use: .interactive),
    UsageExample("A mock server answering each client's messages with a program of its own:", [
        "wspipe --listen 8080 --exec 'jq -c --unbuffered \"{type: \\\"ack\\\", id}\"'",
    ], use: .mockServer),
    UsageExample("A test in CI: record once, then check the server (exit 8 on a difference).", [
        "wspipe --record tests/login.ndjson wss://staging.example.com/ws <login.txt",
        "wspipe --check 'tests/*.ndjson' --junit report.xml",
    ], use: .ciCheck),
    UsageExample("A quick check: exit 0 once the pong is written, 1 if none came in 5 s.", [
        "echo '{\"type\":\"ping\"}' |",
        "    wspipe --until type=pong --idle-timeout 5s wss://staging.example.com/ws",
    ]),
    UsageExample("Connect over TLS with a bearer token kept out of ps(1) in a header file:", [
        "printf 'Authorization: Bearer %s\\n' \"$TOKEN\" >~/.feed.headers",
        "wspipe --header-file ~/.feed.headers -H 'X-Client: scripts' \\",
        "    wss://api.example.com/v1/stream",
    ]),
    UsageExample("Log in with a session cookie and keep the ones the server sets, following a redirect "
        + "to the real endpoint; each reconnect sends the cookies the last 101 set.", [
        "wspipe -L --cookie session.txt -c session.txt wss://app.example.com/live",
    ]),
    UsageExample("Basic authorization without the password in ps(1), and how long the connection took:", [
        "printf '%s:%s\\n' ann \"$PASSWORD\" >~/.creds",
        "wspipe --user-file ~/.creds -w '%{time_connect} %{time_upgrade}\\n' \\",
        "    -U -1 wss://api.example.com/ws",
    ]),
    UsageExample("A realtime session that survives reconnects: resume it with the captured session id and the "
        + "last sequence seen, and send again whatever the server did not acknowledge.", [
        "wspipe --wait --ping-interval 20s \\",
        "    --on-connect '{\"type\":\"session.start\"}' \\",
        "    --capture SID=session.id --capture SEQ=sequence \\",
        "    --on-reconnect \\",
        "      '{\"type\":\"session.resume\",\"id\":${SID},\"after\":${SEQ}}' \\",
        "    --ack sequence --ack-timeout 30s \\",
        "    wss://rt.example.com/v1 <requests.ndjson >responses.ndjson",
    ]),
    UsageExample("Mock a server for a client under test: answer every message with an ack.", [
        "mkfifo replies",
        "wspipe --listen 127.0.0.1:8080/ws --once <replies |",
        "    jq -c --unbuffered '{type: \"ack\", id: .id}' >replies",
    ]),
    UsageExample("Serve several clients and tell them apart; a stdin line with \"$client\":N answers client N only.", [
        "wspipe --listen 9000 --tag --events",
    ]),
    UsageExample("Give each client a program of its own, like websocketd: its messages are the program's stdin "
        + "lines, the program's stdout lines go back to it.", [
        "wspipe --listen 0.0.0.0:9000 --max-clients 100 --exec ./session.sh",
    ]),
    UsageExample("A chat room: every client's message goes to every other client.", [
        "wspipe --listen 9000 --relay -U",
    ]),
]
