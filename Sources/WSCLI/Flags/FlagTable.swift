import WSBridge
import WSCodecs
import WSTransport
import WSMessages
import WSConnect

/// Every flag wspipe accepts, in the order `--help` lists them within each
/// category. This list is the single source of the parser, `--help`, the man
/// page and the shell completions: adding a flag is adding an entry here,
/// with a one-sentence `help`, its `defaultValue` (the parser applies it:
/// `Options` holds no defaults), its `rules` with other flags, the `modes`
/// it works in (client and interactive unless it says; see `FlagModes`), a `doc` for
/// the man page when one sentence is not enough, and an `apply` that only
/// validates and stores into an `Options` field (which `Plan` then hands to
/// the session). Then regenerate man/ and completions/ with
/// `wspipe --generate KIND` (DocGeneratorTests fails until they match).
public let flagTable: [Flag] = [
    // MARK: Connection (wspipe(1): OPTIONS, Connection)
    Flag(long: "header", short: "H", valueName: "NAME: VALUE",
         help: "Send this header with the handshake request; repeat for more headers.",
         category: .connection, repeatable: true, modes: [.all, .check],
         doc: [
             """
             With --listen, the headers go into every 101 response instead; those the handshake \
             writes itself (Upgrade, Connection, Sec-WebSocket-Accept, Sec-WebSocket-Protocol, \
             Sec-WebSocket-Extensions) and Content-Length or Transfer-Encoding are refused.
             """,
         ],
         example: "X-A: 1",
         apply: { o, v throws(UsageError) in o.headers.append(try FlagValue.header("header", v)) }),
    Flag(long: "header-file", valueName: "FILE",
         help: "Read handshake headers from FILE, one 'Name: value' a line (keeps secrets out of ps).",
         category: .connection, completion: .file, modes: [.all, .check],
         doc: [
             """
             Blank lines and lines starting with # are skipped. The file is read once, when wspipe \
             starts, and its headers are sent after those of -H (with --listen, in every 101 response).
             """,
             """
             For -H, --header-file and --header-command alike: a Host, Origin or User-Agent header \
             replaces wspipe's own, as with curl (the last one given wins), and the headers the \
             handshake owns (Sec-WebSocket-Key, Sec-WebSocket-Version, Sec-WebSocket-Accept, \
             Sec-WebSocket-Extensions, Upgrade, Connection, Content-Length, Transfer-Encoding) are \
             refused: a usage error, or for --header-command a failed attempt naming the header.
             """,
         ],
         apply: { o, v throws(UsageError) in o.headerFile = try FlagValue.nonEmpty("header-file", v) }),
    Flag(long: "header-command", valueName: "COMMAND",
         help: "Run sh -c COMMAND before every connection attempt and send the 'Name: value' lines it prints as headers.",
         category: .connection, modes: [.clients, .check],
         doc: [
             """
             So a reconnect carries a fresh token: for example \
             --header-command 'printf "Authorization: Bearer %s\\n" "$(get-token)"'. The lines \
             follow the rules of --header-file and are sent after its headers and those of -H. \
             The command runs within --connect-timeout without holding up anything else; its \
             stdin is /dev/null and its stderr is wspipe's. A command that fails (a non-zero \
             status, a line that is not a header) fails that attempt, which is reported and \
             retried like any other (the first one only with --wait). Its output ends when it exits: \
             a process it leaves running (holding its stdout) is ended, not waited for. Header \
             values are never written to the log.
             """,
         ],
         example: "echo X-T: 1",
         apply: { o, v throws(UsageError) in o.headerCommand = try FlagValue.nonEmpty("header-command", v) }),
    Flag(long: "origin", valueName: "URL",
         help: "Send this Origin header.",
         category: .connection, modes: [.clients, .check],
         example: "http://o.example",
         apply: { o, v throws(UsageError) in o.origin = try FlagValue.nonEmpty("origin", v) }),
    Flag(long: "user-agent", valueName: "STRING",
         help: "Send this User-Agent header.",
         category: .connection, defaultValue: "wspipe/" + wspipeVersion, modes: [.clients, .check],
         example: "ua/2",
         apply: { o, v in o.userAgent = v }),
    Flag(long: "protocol", valueName: "NAME",
         help: "Offer this subprotocol (Sec-WebSocket-Protocol); repeat to offer several.",
         category: .connection, repeatable: true, modes: [.all, .check],
         example: "chat",
         apply: { o, v throws(UsageError) in
             guard FlagValue.isToken(v) else {
                 throw UsageError("--protocol: invalid subprotocol name '\(v)'")
             }
             o.protocols.append(v)
         }),
    Flag(long: "connect-timeout", valueName: "DURATION",
         help: "Give up connecting (name lookup, TCP, TLS and handshake) after this long.",
         category: .connection, defaultValue: "10s", modes: [.clients, .check],
         example: "3s",
         apply: { o, v throws(UsageError) in o.connectTimeoutNanos = try FlagValue.duration("connect-timeout", v) }),
    Flag(long: "proxy", valueName: "URL",
         help: "Connect through this proxy: http://[USER:PASSWORD@]HOST[:PORT] (CONNECT), socks5:// "
             + "or socks5h:// (the proxy resolves the name), '' for none; without it the http_proxy, "
             + "https_proxy and all_proxy variables are read, as curl does.",
         category: .connection, modes: [.clients, .check],
         example: "socks5h://127.0.0.1:1080",
         apply: { o, v throws(UsageError) in
             if !v.isEmpty {
                 do { _ = try ProxyURL(parsing: v) } catch { throw UsageError("--proxy: \(error)") }
             }
             o.proxy = v
         }),
    Flag(long: "proxy-user", valueName: "USER:PASSWORD",
         help: "Authenticate to the proxy as USER with PASSWORD (split at the first colon), in place of any in its URL.",
         category: .connection, rules: [.conflicts("proxy-user-file")], modes: [.clients, .check], secret: true,
         doc: [
             """
             Like curl -U. wspipe blanks the value in its argument list once it has read it, as \
             curl does, but until then other users can see it in ps(1), and it stays in the \
             shell's history: --proxy-user-file is the safe form, or the password in the proxy \
             variable (http_proxy=http://USER:PASSWORD@HOST), which only the user and root can \
             read. Sent as Basic Proxy-Authorization to an \
             HTTP proxy, as RFC 1929 user and password to a SOCKS5 one. A usage error when no \
             proxy is given or set.
             """,
         ],
         apply: { o, v throws(UsageError) in o.proxyUser = try FlagValue.proxyUser("proxy-user", v) }),
    Flag(long: "proxy-user-file", valueName: "FILE",
         help: "Read the proxy's USER:PASSWORD from the first line of FILE (keeps the password out of ps).",
         category: .connection, completion: .file, rules: [.conflicts("proxy-user")], modes: [.clients, .check],
         apply: { o, v throws(UsageError) in o.proxyUserFile = try FlagValue.nonEmpty("proxy-user-file", v) }),
    Flag(long: "noproxy", valueName: "LIST",
         help: "Connect directly to these comma-separated hosts and domains (with their subdomains), "
             + "'*' for all; replaces no_proxy.",
         category: .connection, modes: [.clients, .check],
         apply: { o, v in o.noProxy = v }),
    Flag(long: "unix-socket", valueName: "PATH",
         help: "Connect through this Unix-domain socket instead of TCP and any proxy; "
             + "the URL still gives the Host header, path and scheme.",
         category: .connection, completion: .file, modes: [.clients, .check],
         example: "/run/app.sock",
         apply: { o, v throws(UsageError) in o.unixSocket = try FlagValue.nonEmpty("unix-socket", v) }),
    Flag(long: "max-message-size", valueName: "SIZE",
         help: "Close the connection with 1009 when an incoming message is larger than this.",
         category: .connection, defaultValue: "64M", modes: [.all, .check],
         doc: [
             """
             It also bounds the frames one message may arrive in: one per 64 bytes of SIZE, and \
             at least 65536 (1048576 at the default 64M). A message in more frames closes the \
             connection with 1009 too, so a peer cannot keep a message open for ever with empty \
             fragments.
             """,
         ],
         example: "1K",
         apply: { o, v throws(UsageError) in o.maxMessageSize = try FlagValue.size("max-message-size", v) }),
    .toggle("compress", nil, .connection,
            help: "Negotiate permessage-deflate compression (RFC 7692), with --listen too; "
                + "--max-message-size counts the decompressed size.", modes: [.all, .check],
            apply: { $0.compress = true }),
    .toggle("location", "L", .connection,
            help: "Follow redirects (301, 302, 303, 307, 308), as curl -L does.",
            modes: [.clients, .check],
            doc: [
                """
                The upgrade request goes again to the URL in the Location header, over a new \
                connection: http:// is read as ws:// and https:// as wss://, and a relative \
                location is resolved against the URL that answered. The whole chain counts as \
                one connection attempt, within --connect-timeout, and every attempt (each \
                reconnect included) starts again from the URL given.
                """,
                """
                Headers given with -H, --header-file and --header-command go to every URL of the \
                chain, except when it leads to another scheme, host or port than the URL given: \
                then their Authorization, Cookie and Host headers are dropped, and so are --user \
                and --cookie DATA (curl's rule). Cookies of the cookie engine go wherever their \
                domain and path match. A redirect from wss:// to ws:// is refused unless \
                --location-downgrade. Without -L, a redirect is reported with its status (exit \
                status 4) and a hint.
                """,
            ],
            apply: { $0.location = true }),
    Flag(long: "max-redirs", valueName: "N",
         help: "Follow at most N redirects in one connection attempt.",
         category: .connection, defaultValue: "10", rules: [.requires("location")], modes: [.clients, .check],
         doc: [
             """
             The name is curl's. One more is reported as the failure of the attempt (exit status \
             4), as is a redirect without a Location. -1 sets no limit, as in curl, but a redirect \
             back to a request the chain already made (the same URL with the same cookies) is a loop \
             and fails the attempt too; the chain also ends at --connect-timeout. A Location's \
             spaces and bytes past ASCII are percent-encoded in the next request, as curl does.
             """,
         ],
         example: "3",
         apply: { o, v throws(UsageError) in
             o.maxRedirects = v == "-1" ? Int.max : try FlagValue.nonNegativeInteger("max-redirs", v)
         }),
    .toggle("location-downgrade", nil, .connection,
            help: "With -L, follow a redirect from wss:// to ws:// too, which leaves TLS.",
            rules: [.requires("location")], modes: [.clients, .check],
            doc: [
                """
                Without it such a redirect ends the attempt (exit status 4): what follows would \
                travel in clear text, headers and cookies included.
                """,
            ],
            apply: { $0.locationDowngrade = true }),
    Flag(long: "cookie", valueName: "DATA|FILE",
         help: "Send cookies: DATA as 'name=value; name2=value2', or those of a Netscape/curl cookie FILE "
             + "(curl's -b; here -b is --binary).",
         category: .connection, completion: .file, modes: [.clients, .check],
         doc: [
             """
             An argument with a '=' is DATA, sent in a Cookie header as it is; anything else is a \
             FILE, read once at the start, which turns the cookie engine on: the cookies every \
             handshake response sets (Set-Cookie) are kept for the run, and each request gets \
             those whose domain, path and secure flag match it, so a reconnect sends what the \
             last 101 set. A FILE that does not exist yet is an empty one, so -b and -c can name \
             the same file; it may also hold 'Set-Cookie:' header lines. --cookie '' turns the \
             engine on without a file.
             """,
             """
             The short -b stays websocat's --binary, which wspipe's scripts already use; write \
             --cookie in full.
             """,
         ],
         example: "sid=1",
         apply: { o, v throws(UsageError) in
             guard !v.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else {
                 throw UsageError("--cookie: contains a line break")
             }
             o.cookie = v
         }),
    Flag(long: "cookie-jar", short: "c", valueName: "FILE",
         help: "Write the cookies the servers set to FILE, in the Netscape/curl format, and send them on each connection.",
         category: .connection, completion: .file, modes: [.clients, .check],
         doc: [
             """
             It turns the cookie engine on (see --cookie). FILE is rewritten whenever a handshake \
             response changed the cookies, and at the end when --cookie read others, so a run that \
             is killed still leaves what it was given. Cookies are credentials: the new content \
             goes to a file of a random name in FILE's folder, created with mode 0600 and never \
             through a link, which is then renamed over FILE, so a jar in a shared folder such as \
             /tmp stays the user's; a symbolic link to a file is refused, and /dev/null (curl's \
             -c /dev/null) is written into. A cookie whose Domain is a public suffix (co.uk, \
             github.io: the Public Suffix List, from Debian's publicsuffix package) is refused, as \
             curl with libpsl does: it would go to every site under it.
             """,
         ],
         apply: { o, v throws(UsageError) in o.cookieJar = try FlagValue.nonEmpty("cookie-jar", v) }),
    Flag(long: "user", valueName: "USER:PASSWORD",
         help: "Send HTTP Basic authorization with this user name and password (curl's -u; here -u is --unidirectional).",
         category: .connection, rules: [.conflicts("user-file")], modes: [.clients, .check], secret: true,
         doc: [
             """
             It is sent to the URL given (and the redirects that stay on its scheme, host and \
             port), unless a header given with -H, --header-file or --header-command authorizes \
             already; it replaces a user:password in the URL. wspipe blanks the value in its \
             argument list once it has read it, as curl does, but until then any process can \
             read it in ps(1), and it stays in the shell's history: --user-file is the safe form.
             """,
             """
             The short -u stays websocat's --unidirectional, which wspipe's scripts already use; \
             write --user in full.
             """,
         ],
         example: "ann:pw",
         apply: { o, v throws(UsageError) in o.user = try FlagValue.credentials("user", v) }),
    Flag(long: "user-file", valueName: "FILE",
         help: "Read USER:PASSWORD for --user from the first line of FILE (keeps it out of ps).",
         category: .connection, completion: .file, rules: [.conflicts("user")], modes: [.clients, .check],
         doc: [
             "The file is read once, when wspipe starts; a line end after the password is not part of it.",
         ],
         apply: { o, v throws(UsageError) in o.userFile = try FlagValue.nonEmpty("user-file", v) }),
    .toggle("ipv4", "4", .connection,
            help: "Connect over IPv4 only (the server's name and the proxy's).",
            rules: [.conflicts("ipv6")], modes: [.clients, .check],
            doc: [
                """
                Without -4 or -6, the addresses of a name are tried as RFC 8305 (Happy Eyeballs) \
                says: alternating families, the first as the resolver sorts them (IPv6 when the \
                host has a route for it), each new attempt 250 ms after the previous one started \
                or at once when it failed, the first to connect winning. An unreachable IPv6 \
                route costs 250 ms, not --connect-timeout.
                """,
            ],
            apply: { $0.family = .ipv4 }),
    .toggle("ipv6", "6", .connection,
            help: "Connect over IPv6 only (the server's name and the proxy's).",
            rules: [.conflicts("ipv4")], modes: [.clients, .check],
            apply: { $0.family = .ipv6 }),

    // MARK: TLS (wspipe(1): OPTIONS, Connection)
    .toggle("insecure", "k", .tls,
            help: "Skip TLS certificate and hostname verification.", modes: [.clients, .check],
            apply: { $0.insecure = true }),
    Flag(long: "cacert", valueName: "FILE",
         help: "Trust the CA certificates in FILE (PEM) instead of the system store.",
         category: .tls, completion: .file, rules: [.requiresInServerMode("cert")], modes: [.all, .check],
         doc: [
             """
             With --listen, it turns on mutual TLS: every client must present a certificate issued \
             by a CA in FILE, or its TLS handshake fails (reported as a client_refused event with \
             --events, and with -v).
             """,
         ],
         apply: { o, v throws(UsageError) in o.cacert = try FlagValue.nonEmpty("cacert", v) }),
    Flag(long: "cert", valueName: "FILE",
         help: "Certificate (PEM) to present: the client's, or the server's with --listen.",
         category: .tls, completion: .file, rules: [.requiresInServerMode("key")], modes: [.all, .check],
         doc: [
             "A client may keep its private key in the same file and leave out --key.",
         ],
         apply: { o, v throws(UsageError) in o.cert = try FlagValue.nonEmpty("cert", v) }),
    Flag(long: "key", valueName: "FILE",
         help: "Private key (PEM) for --cert.",
         category: .tls, completion: .file, rules: [.requires("cert")], modes: [.all, .check],
         apply: { o, v throws(UsageError) in o.key = try FlagValue.nonEmpty("key", v) }),
    Flag(long: "keylog", valueName: "FILE",
         help: "Append the TLS secrets of every connection to FILE in the NSS key log format, "
             + "which Wireshark reads to decrypt them (as SSLKEYLOGFILE does).",
         category: .tls, completion: .file, modes: [.all, .check],
         doc: [
             """
             Without it, the file named by the SSLKEYLOGFILE variable is used, as curl, Firefox and \
             Python do. Client and server connections alike; the file is created with mode 0600 and \
             appended to, one line per secret, as OpenSSL hands them out. Anyone who can read it can \
             decrypt the connections it covers, so wspipe says on stderr that it is writing one \
             (unless -q), whenever the run may use TLS: give wireshark or tshark the file with \
             -o tls.keylog_file:FILE.
             """,
         ],
         example: "keys.log",
         apply: { o, v throws(UsageError) in o.keylog = try FlagValue.nonEmpty("keylog", v) }),

    // MARK: Lines and messages (wspipe(1): LINES AND MESSAGES)
    .toggle("text", "t", .dataMode,
            help: "Raw line mode: each line is a text message and each message a line, no JSON.",
            rules: [.conflicts("binary"), .conflicts("tag"), .conflicts("socketio"), .conflicts("codec")], modes: .all,
            doc: [
                """
                Each stdin line is sent as a text message as is, and each incoming message is written \
                followed by a newline; line breaks inside it are kept. Into a pipe or a file the bytes \
                are exact; at a terminal, control characters are escaped (see LINES AND MESSAGES), \
                as they are with --binary-output raw.
                """,
            ],
            apply: { $0.lineFormat = .text }),
    .toggle("binary", "b", .dataMode,
            help: "Raw line mode sending each line as a binary message.",
            rules: [.conflicts("text"), .conflicts("tag"), .conflicts("socketio"), .conflicts("codec")], modes: .all,
            doc: [
                "Incoming messages are written as with --text.",
            ],
            apply: { $0.lineFormat = .binary }),
    .toggle("nul", "0", .dataMode,
            help: "Separate lines with NUL instead of newline in raw line mode.",
            rules: [.conflicts("no-line")], modes: .all,
            doc: [
                """
                Stdin lines end at a NUL byte, and each incoming message is written followed by one, \
                so messages may contain newlines.
                """,
            ],
            apply: { $0.nulSeparator = true }),
    .toggle("no-line", nil, .dataMode,
            help: "Raw mode without lines: all of stdin is one message, and messages are written with no separator.",
            rules: [.conflicts("nul"), .conflicts("socketio"), .conflicts("codec")], modes: [.client, .server, .exec],
            doc: [
                """
                Selects raw mode (text messages, or binary ones with --binary) and turns line splitting \
                off: stdin up to EOF is sent as one message (at most --max-message-size), and each \
                incoming message is written exactly as it arrived, with nothing after it. \
                wspipe -b --no-line URL <file sends a file as one binary message, and \
                wspipe --no-line -U -1 URL >file saves one message byte for byte.
                """,
            ],
            apply: { $0.noLine = true }),
    Flag(long: "binary-output", valueName: "raw|base64|drop",
         help: "How raw line mode writes incoming binary messages.",
         category: .dataMode, completion: .choices(BinaryOutputMode.allCases.map { $0.rawValue }),
         defaultValue: "raw", modes: .all,
         doc: [
             .list([
                 DocItem("raw", "The bytes as they came, followed by the separator."),
                 DocItem("base64", "Standard base64, followed by the separator."),
                 DocItem("drop", "Nothing: binary messages are discarded."),
             ]),
             "In JSON mode a binary message is always written as {\"$binary\":\"...\"}.",
         ],
         example: "base64",
         apply: { o, v throws(UsageError) in
             guard let mode = BinaryOutputMode(rawValue: v) else {
                 throw .invalidChoice("binary-output", v, choices: BinaryOutputMode.allCases.map { $0.rawValue })
             }
             o.binaryOutput = mode
         }),
    Flag(long: "codec", valueName: "msgpack|cbor",
         help: "Read binary messages as MessagePack or CBOR and write them as JSON lines; send JSON lines as binary messages in it.",
         category: .dataMode, completion: .choices(BinaryFormat.allCases.map(\.rawValue)),
         rules: [.conflicts("text"), .conflicts("binary"), .conflicts("no-line")], modes: [.all, .check],
         doc: [
             """
             Each binary message that arrives is written as the JSON line of its value, and each \
             JSON line is sent as a binary message holding its value; routes, --type-key, --until, \
             --answer, --capture and --ack read the JSON. Text messages are written as they are, and \
             {"$text":...} and {"$binary":...} lines still send a text message or raw bytes. See \
             BINARY CODECS for the envelopes that keep what JSON lacks (byte strings, extension \
             types, tags, maps with other keys than strings, NaN, big integers).
             """,
             """
             --record then writes the JSON of each binary message (and a text message in a \
             {"$text":...} envelope), so that --replay and --check with the same --codec send the \
             lines encoded again, and --check compares what the server sends as values.
             """,
         ],
         example: "msgpack",
         apply: { o, v throws(UsageError) in
             guard let format = BinaryFormat(rawValue: v) else {
                 throw .invalidChoice("codec", v, choices: BinaryFormat.allCases.map(\.rawValue))
             }
             o.codec = format
         }),
    .toggle("lenient", nil, .dataMode,
            help: "Send lines that are not valid JSON as raw text instead of rejecting them.",
            rules: [.conflicts("strict"), .conflicts("socketio")], modes: .all,
            doc: [
                "Such a line is then not counted as rejected: it does not make the exit status 6.",
            ],
            apply: { $0.lenient = true }),
    .toggle("strict", nil, .dataMode,
            help: "Stop at the first line that is not valid JSON.",
            rules: [.conflicts("lenient")], modes: [.client, .server],
            apply: { $0.strict = true }),
    .toggle("interactive", "i", .dataMode,
            help: "Run the interactive line editor even when stdout is not a terminal "
                + "(the default when stdin and stdout both are).",
            rules: [.conflicts("unidirectional-reverse")], modes: .interactive,
            doc: [
                """
                Needs a terminal on stdin. The edit area is drawn on stdout, or on stderr when stdout \
                is redirected: stdout then still gets the line of every message, and the transcript \
                shows it too. See INTERACTIVE MODE.
                """,
            ],
            apply: { $0.interactive = true }),
    Flag(long: "history-size", valueName: "SIZE",
         help: "Keep the newest messages of the interactive transcript up to this many bytes, "
             + "for /find, /show and /resend.",
         category: .dataMode, defaultValue: "4M", modes: .interactive,
         doc: [
             """
             Messages hidden by /filter are kept too; each counts its size and 160 bytes of bookkeeping, \
             and a message larger than SIZE is shown but not kept. This is memory, not a file: the \
             transcript ends with the run. See INTERACTIVE MODE.
             """,
         ],
         example: "1M",
         apply: { o, v throws(UsageError) in o.historySize = try FlagValue.size("history-size", v) }),
    .toggle("no-status-line", nil, .dataMode,
            help: "Draw no status row under the interactive prompt (WSPIPE_PLAIN=1 does the same).",
            modes: .interactive,
            apply: { $0.noStatusLine = true }),
    .toggle("socketio", nil, .dataMode,
            help: "Speak Socket.IO (Engine.IO v4 over WebSocket): events and acks are the JSON lines.",
            rules: [.conflicts("text"), .conflicts("binary"), .conflicts("no-line"), .conflicts("lenient")],
            modes: [.client, .interactive, .server, .check],
            doc: [
                """
                The URL gets the path /socket.io/ when its path is empty or /, and the query \
                EIO=4&transport=websocket (another path is kept). Engine.IO's open packet and pings \
                are handled by wspipe (a ping is answered, and its timings decide when a silent server \
                is dropped); the namespaces of --namespace are connected on every connection, before \
                anything is sent. An incoming 42/chat,["message",{"text":"hi"}] is the line \
                {"event":"message","data":{"text":"hi"},"ns":"/chat"}, and such a line is sent as that \
                packet. See SOCKET.IO for acks, binary events, the type --route reads and the server mode.
                """,
                """
                --record writes the lines, so --check with --socketio (and the --namespace and \
                --sio-auth of the recording run) plays a recorded Socket.IO session against a server: \
                the handshake on each connection, then the lines, compared as JSON. A HAR file of a \
                Socket.IO page holds Engine.IO packets, not lines: it is refused with --socketio.
                """,
            ],
            apply: { $0.socketIO = true }),
    Flag(long: "namespace", valueName: "NS",
         help: "Connect the Socket.IO namespace NS (the client; / unless given) or serve only it (--listen); repeat for more.",
         category: .dataMode, repeatable: true, rules: [.requires("socketio")],
         modes: [.client, .interactive, .server, .check],
         doc: [
             """
             A client connects each namespace on every connection, in order, each with the --sio-auth \
             object, and sends nothing before all of them are connected; a server without it accepts \
             any namespace a client names, and with it answers the others with a connect_error.
             """,
         ],
         example: "/chat",
         apply: { o, v throws(UsageError) in
             guard v.hasPrefix("/"), !v.contains(","), !v.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                 throw UsageError("--namespace: '\(v)' must start with / and hold no comma")
             }
             if !o.namespaces.contains(v) { o.namespaces.append(v) }
         }),
    Flag(long: "sio-auth", valueName: "JSON",
         help: "Send this object as the auth of every namespace's connect, rendered afresh for each connection.",
         category: .dataMode, rules: [.requires("socketio")], modes: [.client, .interactive, .check],
         doc: [
             """
             JSON is a template (see TEMPLATES): ${NAME} is the latest value of a --capture, so a token \
             the server hands out is used on the next connection, and ${seq} is the connection \
             attempt's number. A server that refuses it answers with a connect_error, which ends the \
             run with its message and exit status 4.
             """,
         ],
         example: #"{"token":"t"}"#,
         apply: { o, v throws(UsageError) in o.sioAuth = try FlagValue.nonEmpty("sio-auth", v) }),

    // MARK: Routing (wspipe(1): ROUTING)
    Flag(long: "type-key", valueName: "KEYPATH",
         help: "Read the type that --route matches at this dotted key path of incoming JSON messages.",
         category: .routing, defaultValue: "type", modes: [.client, .interactive, .server, .check],
         doc: [
             """
             A dotted path such as event.kind reaches into nested objects. A message where the key \
             is missing, or holds something other than a string, is matched by the route for *. \
             With --socketio the type is read at event (the event's name) unless another path is given.
             """,
         ],
         example: "kind",
         apply: { o, v throws(UsageError) in o.typeKey = try FlagValue.keyPath("type-key", v) }),
    Flag(long: "route", valueName: "VALUE=DEST",
         help: "Write messages of type VALUE ($binary, $text, $event, * for the rest) to DEST: "
             + "stdout, stderr, drop, fd:N, a file, or |COMMAND; repeat for more routes.",
         category: .routing, repeatable: true, modes: .all,
         doc: [
             "VALUE is a type read at --type-key, or one of:",
             .list([
                 DocItem("$binary", "Binary messages."),
                 DocItem("$text", "Text messages that are not JSON."),
                 DocItem("$event", "Lifecycle events (--events); stderr unless routed."),
                 DocItem("*", "Whatever no other route matched; stdout unless routed."),
             ]),
             "DEST is one of:",
             .list([
                 DocItem("stdout, stderr", "The standard streams."),
                 DocItem("drop", "Nowhere: the message is discarded."),
                 DocItem("fd:N", "File descriptor N, opened by the calling shell (3>file)."),
                 DocItem("|COMMAND", "The stdin of COMMAND, started once with sh -c; wspipe waits for it at exit (at most --close-timeout)."),
                 DocItem("any other path", "A file, appended to, created if missing."),
             ]),
         ],
         example: "$event=stdout",
         apply: { o, v throws(UsageError) in
             let route = try FlagValue.route("route", v)
             guard !o.routes.contains(where: { $0.value == route.value }) else {
                 throw UsageError("--route: VALUE '\(route.value)' given twice")
             }
             o.routes.append(route)
         }),
    Flag(long: "route-errors", valueName: Flag.alternatives(RouteErrors.allCases.map { $0.rawValue }),
         help: "Whether a failing route destination (full disk, exited command) is reported on stderr.",
         category: .routing, completion: .choices(RouteErrors.allCases.map { $0.rawValue }),
         defaultValue: "report", modes: .all,
         doc: [
             """
             With ignore, a destination that fails is not reported and does not change the exit \
             status. Either way the other routes go on.
             """,
         ],
         example: "ignore",
         apply: { o, v throws(UsageError) in
             guard let mode = RouteErrors(rawValue: v) else {
                 throw .invalidChoice("route-errors", v, choices: RouteErrors.allCases.map { $0.rawValue })
             }
             o.routeErrorsIgnored = mode == .ignore
         }),

    // MARK: Ending (wspipe(1): OPTIONS, Ending)
    .toggle("no-close", "n", .ending,
            help: "At stdin EOF keep receiving until the server closes.", modes: [.client, .interactive, .server],
            apply: { $0.noClose = true }),
    .toggle("one-message", "1", .ending,
            help: "Exit after one incoming message (same as --max-messages 1).", modes: .all,
            apply: { $0.maxMessages = 1 }),
    Flag(long: "max-messages", valueName: "N",
         help: "Exit after N incoming messages.",
         category: .ending, modes: .all,
         example: "3",
         apply: { o, v throws(UsageError) in o.maxMessages = try FlagValue.positiveInteger("max-messages", v) }),
    .toggle("unidirectional", "u", .ending,
            help: "Only send stdin to the socket; ignore incoming messages.",
            rules: [.conflicts("unidirectional-reverse"), .conflicts("exec")], modes: [.client, .interactive, .server],
            apply: { $0.unidirectional = true }),
    .toggle("unidirectional-reverse", "U", .ending,
            help: "Only write incoming messages to stdout; do not read stdin.",
            rules: [.conflicts("unidirectional"), .conflicts("interactive"), .conflicts("exec")], modes: [.client, .server],
            apply: { $0.reverseUnidirectional = true }),
    Flag(long: "close-timeout", valueName: "DURATION",
         help: "At the end, wait this long for the peer's Close.",
         category: .ending, defaultValue: "2s", modes: [.all, .check],
         doc: [
             """
             It counts from the last progress: a peer whose TCP still acknowledges what wspipe \
             sent, or that still sends, is waited for, so a slow reader draining a large backlog is \
             never cut off; a connection ended by it without the peer's Close is not clean.
             """,
             """
             It bounds the rest of the ending too. What the messages left for stdout and the \
             routes is written out while signals still work; output that no reader takes for this \
             long is dropped and reported (exit 1). A |COMMAND still running this long after its \
             input ended gets SIGTERM, with every process it started (exit 1). A second SIGINT or \
             SIGTERM ends the run at once.
             """,
         ],
         example: "5s",
         apply: { o, v throws(UsageError) in o.closeTimeoutNanos = try FlagValue.duration("close-timeout", v) }),
    Flag(long: "linger", valueName: "DURATION",
         help: "At stdin EOF, wait up to this long for replies still owed before closing.",
         category: .ending, defaultValue: "1s", rules: [.clientOnly],
         doc: [
             """
             A request/response server stops answering once it has a Close, so at stdin EOF wspipe \
             gives the replies a chance first, counted from the moment everything is sent. Without \
             --reply, the rule for each connection is: a sent JSON object with a top-level "id" is \
             owed an incoming message with the same "id", so that a greeting or a push does not pay \
             for it (the first 64 ids sent are followed); any other sent message is owed one \
             incoming message that came after the first send and matched no id, and where the kernel \
             stamps arrivals (Linux) after the server's TCP had that message: a greeting that \
             arrived before the request did pays for nothing (ONE-SHOT EXCHANGES); a server that \
             sent back a message as it was (an echo server; of the first 8 text messages sent, each \
             up to 4 KiB) owes the others the same way. Once nothing is owed, the Close goes out at \
             once if the server sent back every message as it was, the last one last, and \
             otherwise wspipe still waits until nothing has arrived for the larger of 15 ms and four \
             handshake round trips, so that a second message right behind the first (an ack, then \
             the result; a greeting, then the answer) is not cut off. Then it sends its Close. \
             echo REQUEST | wspipe URL therefore prints the reply, and costs at most that quiet \
             time more than closing at once (nothing with an echo server).
             """,
             """
             It can still close early: when a message the script needs comes more than that quiet \
             time after the message before it, and it answers no "id" (its request had none, the \
             server does not echo it, or the server sent 1024 messages without echoing one), or \
             when it comes after an exact echo of the last message sent. It \
             does not wait for a server that had answered none of at least 8 messages although the \
             first went out more than ten handshake round trips (at least 10 ms) before everything \
             was sent, such as a server that only collects an upload. When the script knows what it waits \
             for, say so: --reply KEYPATH for the reply to each request, --until for the one \
             message that ends the exchange, -n with --idle-timeout to keep everything until the \
             server falls silent. A request with an "id" that the server answers without it is \
             waited for the whole linger (nothing is lost, it is only slower). With 0 the Close goes \
             out as soon as everything is sent. -v says which of these ended the wait.
             """,
         ],
         example: "3s",
         apply: { o, v throws(UsageError) in o.lingerNanos = try FlagValue.duration("linger", v) }),
    Flag(long: "reply", valueName: "KEYPATH",
         help: "Owe each sent message with a value at KEYPATH the incoming message with the same value there: "
             + "at stdin EOF close as soon as all have come, and exit 1 naming those that did not.",
         category: .ending,
         doc: [
             """
             Values compare as the raw JSON text, as with --ack: "id":7 is answered by the first \
             message with 7 at KEYPATH. Sent messages without a value at KEYPATH are owed nothing, \
             and messages that answer none are written as usual. At stdin EOF the Close goes out as \
             soon as no reply is owed, at most --linger after everything was sent (and at \
             --idle-timeout when given). The values still owed then, or when the run ends another \
             way, are named on stderr and in an unreplied event, and the exit status is 1. A reply \
             owed when the connection drops stays owed on the next one. A server that acknowledges \
             before it answers (an ack, then the result, both with the key) needs --reply-match, \
             or the ack is the reply.
             """,
         ],
         example: "id",
         apply: { o, v throws(UsageError) in o.replyPath = try FlagValue.keyPath("reply", v) }),
    Flag(long: "reply-match", valueName: "KEYPATH=VALUE",
         help: "With --reply, only an incoming message with VALUE at KEYPATH (and the same --reply value) is the reply.",
         category: .ending, rules: [.requires("reply")],
         doc: [
             """
             For a server that acknowledges a request before it answers it, both with the request's \
             key: --reply id --reply-match type=result waits for {"id":7,"type":"result"} and not \
             for {"id":7,"type":"ack"}, which is written as any other message. VALUE is compared as \
             with --until.
             """,
         ],
         example: "type=result",
         apply: { o, v throws(UsageError) in o.replyMatch = try FlagValue.until("reply-match", v) }),
    Flag(long: "until", valueName: "KEYPATH=VALUE",
         help: "Exit 0 once an incoming message with VALUE at KEYPATH has been written: a check for scripts and CI.",
         category: .ending, rules: [.clientOnly],
         doc: [
             """
             VALUE is compared as JSON: when it is valid JSON (200, true, "done", {"a":1}) the value \
             at KEYPATH must be the same once surrounding whitespace is trimmed; any other VALUE, \
             such as done, stands for that string. The matching message is written like any other, \
             later ones are not, and the Close carries --close-code.
             """,
             """
             At stdin EOF wspipe keeps receiving, as with -n, so the requests can be piped in. A run \
             that ends without the message (the server closes, --idle-timeout, --max-messages) says \
             so on stderr and exits 1, unless it failed otherwise (3, 4, 5...): give --idle-timeout \
             as the check's deadline.
             """,
         ],
         example: "type=done",
         apply: { o, v throws(UsageError) in o.until = try FlagValue.until("until", v) }),
    Flag(long: "idle-timeout", valueName: "DURATION",
         help: "Exit 0 after this long without an incoming message, counted from each connection and each message.",
         category: .ending, defaultValue: "off", rules: [.clientOnly],
         doc: [
             """
             The Close carries --close-code. With --until, the run still exits 1: the message it \
             waited for did not come.
             """,
         ],
         example: "5s",
         apply: { o, v throws(UsageError) in o.idleTimeoutNanos = try FlagValue.positiveDurationOrOff("idle-timeout", v) }),
    Flag(long: "rate", valueName: "N/s|N/m",
         help: "Send stdin messages at most N a second (N/s) or a minute (N/m), evenly spaced.",
         category: .ending, defaultValue: "off", modes: [.client, .server],
         doc: [
             """
             For replaying a recorded session at its pace. N may be a decimal (0.5/s is one message \
             every 2 seconds); a bare N is per second. Messages are due on a fixed grid, so the \
             pace does not drift over a long replay, and a pause (slow stdin, back-pressure, a \
             reconnect) is not made up for with a burst. Lines wait in wspipe's read buffer, and \
             stdin is not read meanwhile.
             """,
         ],
         example: "10/s",
         apply: { o, v throws(UsageError) in o.rateIntervalNanos = try FlagValue.rateOrOff("rate", v) }),
    Flag(long: "close-code", valueName: "CODE[:REASON]",
         help: "The Close wspipe sends when it ends on its own: stdin EOF, --until, --idle-timeout, --max-messages.",
         category: .ending, defaultValue: "1000", modes: [.all, .check],
         doc: [
             """
             CODE is 1000-1003, 1007-1014 or 3000-4999 (RFC 6455 §7.4; the others may not be sent); \
             REASON at most 123 bytes of UTF-8. An interrupted run (SIGINT) closes with 1000, and a \
             server whose stdout is gone or that is interrupted with 1001. With --listen it is the \
             Close every client gets when the server ends on its own.
             """,
         ],
         example: "4000:bye",
         apply: { o, v throws(UsageError) in
             let close = try FlagValue.closeCode("close-code", v)
             o.closeCode = Int(close.code)
             o.closeReason = close.reason
         }),

    // MARK: Keepalive, reconnect and replay (wspipe(1): RECONNECT AND REPLAY)
    Flag(long: "ping-interval", valueName: "DURATION",
         help: "Send a ping this often, 10ms or more, to keep the connection alive.",
         category: .reconnect, defaultValue: "off", modes: .all,
         doc: [
             """
             Pings from the peer are always answered, with or without this flag. With --listen, \
             every client is pinged, and one whose pong does not come within --ping-timeout is \
             dropped at once (a Close 1001 it may never read; a client_disconnected event with \
             reason "ping timeout"); the others go on.
             """,
         ],
         example: "5s",
         apply: { o, v throws(UsageError) in o.pingIntervalNanos = try FlagValue.intervalOrOff("ping-interval", v) }),
    Flag(long: "ping-timeout", valueName: "DURATION",
         help: "Drop the connection as dead when no pong to our ping comes back within this time.",
         category: .reconnect, defaultNote: "the ping interval", rules: [.requires("ping-interval")], modes: .all,
         doc: [
             """
             Counted from the peer's last progress, as --close-timeout is: while its TCP acknowledges \
             what came before the ping (a slow reader working through megabytes), it has as long \
             again. The ping itself goes ahead of the frames wspipe has not written yet.
             """,
         ],
         example: "2s",
         apply: { o, v throws(UsageError) in o.pingTimeoutNanos = try FlagValue.positiveDuration("ping-timeout", v) }),
    Flag(long: "backoff", valueName: "MIN[:MAX[:FACTOR]]",
         help: "Wait MIN before reconnecting, then FACTOR times longer after each failure, up to MAX.",
         category: .reconnect, defaultValue: "1s:30s:2", modes: [.clients, .check],
         doc: [
             """
             A successful connection resets the delay to MIN. Omitted parts keep their defaults: \
             --backoff 500ms is 500ms:30s:2. MIN must be greater than 0, MAX at least MIN and \
             FACTOR at least 1.
             """,
         ],
         example: "2s:1m:3",
         apply: { o, v throws(UsageError) in
             let backoff = try BackoffValue.parse("backoff", v)
             o.backoffMinNanos = backoff.minNanos
             o.backoffMaxNanos = backoff.maxNanos
             o.backoffFactor = backoff.factor
         }),
    Flag(long: "jitter", valueName: "FRACTION",
         help: "Vary each reconnect delay at random by up to this fraction either way.",
         category: .reconnect, defaultValue: "0.2", modes: [.clients, .check],
         doc: [
             """
             With 0.2, a delay of 10s becomes anything from 8s to 12s, so that many clients dropped \
             at once do not all come back at the same instant. A jitter of 0 turns it off.
             """,
         ],
         example: "0.5",
         apply: { o, v throws(UsageError) in o.jitter = try FlagValue.fraction("jitter", v) }),
    Flag(long: "max-retries", valueName: "N",
         help: "Give up with exit status 3 after N failed connection attempts in a row.",
         category: .reconnect, defaultValue: "unlimited", modes: [.clients, .check],
         doc: [
             "A connection that succeeds starts the count again.",
         ],
         example: "4",
         apply: { o, v throws(UsageError) in o.maxRetries = try FlagValue.nonNegativeIntegerOrUnlimited("max-retries", v) }),
    .toggle("no-reconnect", nil, .reconnect,
            help: "Exit when the connection ends instead of reconnecting.",
            rules: [.clientOnly],
            apply: { $0.noReconnect = true }),
    .toggle("wait", nil, .reconnect,
            help: "Retry the first connection too, with the same backoff, instead of exiting with status 3.",
            modes: [.clients, .check],
            apply: { $0.wait = true }),
    Flag(long: "queue-limit", valueName: "SIZE",
         help: "Hold at most this much of stdin while disconnected, then stop reading it.",
         category: .reconnect, defaultValue: "16M",
         doc: [
             """
             Stdin lines read while disconnected are queued in order and sent after the reconnect. \
             When the queue is full, nothing is dropped: reading stdin waits until it drains. \
             Messages held for their --ack count too: stdin is not read until acks free room, and \
             after a reconnect the held messages go out again as the socket takes them. With \
             --compress, so do the messages sent but not yet acknowledged by the server's TCP (kept \
             to be compressed and sent again after a drop).
             """,
         ],
         example: "1K",
         apply: { o, v throws(UsageError) in o.queueLimit = try FlagValue.size("queue-limit", v) }),
    Flag(long: "on-connect", valueName: "MSG",
         help: "Send MSG first on each connection, ${NAME} replaced by its --capture; repeat for more.",
         category: .reconnect, repeatable: true, modes: [.clients, .server],
         doc: [
             """
             On reconnections the --on-reconnect messages are sent instead, when there are any. \
             With --listen each client is greeted with them as it connects, before anything else \
             (${seq} counts for that client). MSG is a template: see TEMPLATES.
             """,
         ],
         example: "{\"a\":1}",
         apply: { o, v throws(UsageError) in o.onConnect.append(try FlagValue.nonEmpty("on-connect", v)) }),
    Flag(long: "on-connect-file", valueName: "FILE",
         help: "Send the messages in FILE, one a line, first on each connection.",
         category: .reconnect, completion: .file, modes: [.clients, .server],
         doc: [
             """
             Blank lines are skipped. The file is read once, when wspipe starts, and its messages are \
             sent after those of --on-connect.
             """,
         ],
         apply: { o, v throws(UsageError) in o.onConnectFile = try FlagValue.nonEmpty("on-connect-file", v) }),
    Flag(long: "on-reconnect", valueName: "MSG",
         help: "Send MSG instead of the on-connect messages when reconnecting; repeat for more.",
         category: .reconnect, repeatable: true, rules: [.clientOnly],
         example: "{\"b\":2}",
         apply: { o, v throws(UsageError) in o.onReconnect.append(try FlagValue.nonEmpty("on-reconnect", v)) }),
    Flag(long: "capture", valueName: "NAME=KEYPATH",
         help: "Keep the latest value at KEYPATH in incoming JSON as ${NAME}; repeat for more names.",
         category: .reconnect, repeatable: true, rules: [.clientOnly],
         doc: [
             """
             ${NAME} in --on-connect and --on-reconnect messages is replaced by that value, as JSON, \
             so a reconnect can resume where the last connection stopped.
             """,
         ],
         example: "SID=session.id",
         apply: { o, v throws(UsageError) in
             let capture = try FlagValue.capture("capture", v)
             guard !o.captures.contains(where: { $0.name == capture.name }) else {
                 throw .duplicateCapture("capture", capture.name)
             }
             o.captures.append(capture)
         }),
    Flag(long: "ack", valueName: "KEYPATH",
         help: "Hold each sent message with a value at KEYPATH until a reply has the same value there; resend held ones on reconnect.",
         category: .reconnect, rules: [.clientOnly],
         doc: [
             """
             A reply is any incoming message; a sent message without a value at KEYPATH is not held. \
             On reconnect, the held messages are sent again in their original order, after the \
             on-connect or on-reconnect messages and before the queued lines.
             """,
         ],
         example: "seq",
         apply: { o, v throws(UsageError) in o.ackPath = try FlagValue.keyPath("ack", v) }),
    Flag(long: "ack-timeout", valueName: "DURATION",
         help: "At stdin EOF, wait this long for the outstanding acks.",
         category: .reconnect, defaultValue: "10s", rules: [.requires("ack")],
         doc: [
             """
             Messages still unacknowledged then are reported on stderr, and the exit status is 6. \
             With 0, they are reported at once.
             """,
         ],
         example: "1s",
         apply: { o, v throws(UsageError) in o.ackTimeoutNanos = try FlagValue.duration("ack-timeout", v) }),

    // MARK: Scripted peer (wspipe(1): SCRIPTED PEER, TEMPLATES)
    Flag(long: "answer", valueName: "TYPE=TEMPLATE",
         help: "Answer each incoming JSON message of type TYPE (at --type-key) with TEMPLATE on its connection; "
             + "repeat for more types.",
         category: .scripting, repeatable: true, modes: [.clients, .server],
         doc: [
             """
             The answer goes out after the read that brought the message, ahead of the stdin lines \
             still queued; with --listen, to that client only. The message itself is still written \
             (a --route to drop discards it). ${.KEYPATH} in TEMPLATE is the value at KEYPATH of the \
             message being answered: --answer 'ping={"type":"pong","id":${.id}}'. TYPE matches a \
             string at --type-key, or a number, true, false or null written as TYPE (--type-key op \
             --answer '1=...'); .KEYPATH answers every JSON message that has a value there, whatever \
             it is (--answer '.ping={"pong":${.ping}}' answers {"ping":1700000000}); $text answers \
             text that is not JSON (--answer '$text={"$text":"pong"}' answers a plain ping) and \
             $binary a binary message. Several --answer \
             for one TYPE answer in the order given. An answer belongs to its connection: one not \
             yet written when the connection drops is not sent again. See TEMPLATES.
             """,
             """
             Answers wait behind back-pressure as stdin lines do: while the connection's unsent \
             output is above the high water (256K for a client; with --listen, the one stdin waits \
             for: 4M, less with many clients) they wait in wspipe, in order, and go once it has \
             caught up; while more than 1M of them wait, wspipe stops reading the peer. A peer \
             that asks faster than it reads the answers is slowed down, not followed without \
             bound, and every request it sent is still answered.
             """,
         ],
         example: #"ping={"type":"pong"}"#,
         apply: { o, v throws(UsageError) in
             _ = try FlagValue.answer("answer", v)
             o.answers.append(v)
         }),
    Flag(long: "heartbeat", valueName: "TEMPLATE",
         help: "Send TEMPLATE every --heartbeat-interval on each connection: an application-level keepalive.",
         category: .scripting, modes: [.clients, .server],
         doc: [
             """
             The first one goes an interval after the connection opens. With --listen each client \
             gets its own. For the realtime protocols that expect a JSON heartbeat and drop a \
             client that sends none (WebSocket pings do not count for them); --heartbeat-timeout \
             notices a peer that has gone silent. A heartbeat that falls due while the connection's \
             unsent output is above the high water (as for --answer) waits for it to catch up, and \
             the intervals that pass meanwhile add none: one goes when it has.
             """,
         ],
         example: "{}",
         apply: { o, v throws(UsageError) in o.heartbeat = try FlagValue.nonEmpty("heartbeat", v) }),
    Flag(long: "heartbeat-interval", valueName: "DURATION",
         help: "How often --heartbeat is sent, 10ms or more.",
         category: .scripting, defaultValue: "20s", rules: [.requires("heartbeat")], modes: [.clients, .server],
         example: "5s",
         apply: { o, v throws(UsageError) in
             o.heartbeatIntervalNanos = try FlagValue.interval("heartbeat-interval", v)
         }),
    Flag(long: "heartbeat-timeout", valueName: "DURATION",
         help: "Drop a connection on which nothing at all arrives from the peer for this long.",
         category: .scripting, defaultValue: "off", modes: [.clients, .server],
         doc: [
             """
             Any data counts: a message of any kind, a ping, a pong, part of a large frame. The \
             client then reconnects, as with --ping-timeout (the disconnected event's reason is \
             "heartbeat timeout"); with --listen the client is dropped with 1001, as with \
             --ping-timeout, and a heartbeat_timeout event. It needs no --heartbeat: alone it \
             watches a peer that pushes regularly.
             """,
         ],
         example: "5s",
         apply: { o, v throws(UsageError) in
             o.heartbeatTimeoutNanos = try FlagValue.positiveDurationOrOff("heartbeat-timeout", v)
         }),
    Flag(long: "wrap", valueName: "TEMPLATE",
         help: "Take each stdin line as raw text and send it as TEMPLATE, with ${line} the line as a JSON string.",
         category: .scripting, modes: [.client, .server],
         doc: [
             """
             tail -f chat.txt | wspipe --wrap '{"type":"chat","text":${line}}' URL sends each line \
             of the file as a chat message, quotes, backslashes, tabs and all. The line is taken \
             without its line end (with -0, its NUL). A line that is not UTF-8 cannot be a JSON \
             string: it is reported with its number, not sent, and makes the exit status 6, like \
             an invalid JSON line. An empty line is skipped, as in JSON mode. With --listen the \
             message goes to every client, each with its own ${seq}. Not with -b, --lenient or -i.
             """,
         ],
         example: #"{"t":${line}}"#,
         apply: { o, v throws(UsageError) in o.wrap = try FlagValue.nonEmpty("wrap", v) }),
    Flag(long: "record", valueName: "FILE",
         help: "Append every message sent and received, and every lifecycle event, to FILE as JSON lines.",
         category: .scripting, completion: .file, modes: [.clients, .server],
         doc: [
             """
             Each line is {"t_ms":T,"dir":"out","conn":C,"msg":M}: T milliseconds since wspipe \
             started, "dir" "out", "in" or "event", C the connection (1, then 2 after the first \
             reconnect...) or with --listen the client's id, and M the message, which gives back its \
             exact bytes: JSON text as itself, other text as {"$text":"..."}, binary as \
             {"$binary":"..."}, an event as its event object (recorded whether or not --events is \
             given). A message wspipe made from --answer, --heartbeat or --on-connect also has \
             "src": "answer", "heartbeat" or "on_connect".
             """,
             """
             Each line is written with one write(2) when its message is sent or received: nothing \
             waits in wspipe, so a killed run keeps what it recorded. The file is bounded only by \
             the disk; a write that fails is reported once, the recording stops there and the run \
             goes on, and exits 1. A file that cannot be opened ends the run at once (exit 1). It \
             holds every message, tokens included, so it is kept the user's alone: a new file is \
             created with mode 0600, an existing one is narrowed to 0600, and a symbolic link to a \
             file (one another user may have planted in /tmp) or a file another user owns is \
             refused; a terminal, a pipe or /dev/stderr is written as it is.
             """,
         ],
         example: "r.ndjson",
         apply: { o, v throws(UsageError) in o.record = try FlagValue.nonEmpty("record", v) }),
    Flag(long: "replay", valueName: "FILE",
         help: "Play a --record file: a client sends its out messages in place of stdin, "
             + "a server (--listen) plays its in messages to each client that connects.",
         category: .scripting, completion: .file, modes: [.client, .server],
         doc: [
             """
             Messages keep their recorded spacing (divided by --replay-speed), or go evenly spaced \
             with --rate; a message waiting for back-pressure delays the rest rather than letting \
             them go in a burst. The messages wspipe had made from flags ("src") are not played: \
             the replaying run makes its own from its own flags. The file is read and checked when \
             wspipe starts: a line that is not a record line, or whose t_ms is past 8760h (a year), \
             is a usage error naming it, and so is a replay that would last more than that at its \
             --replay-speed or --rate. A message not sent or not confirmed is reported with its \
             line in the file (--replay:12-20), as stdin's are.
             """,
             """
             A client sends the messages as it would stdin lines (queued while disconnected, sent \
             again after a drop), and ends when they are all out, as at stdin EOF; what could not \
             be sent is reported and makes the exit status 6. Its stdin is not sent: lines that \
             come there anyway are reported (stdin:1-2) and make the exit status 6. Not with -U, \
             --wrap or -i.
             """,
             """
             A server plays the whole recording to each client from the moment it connects (after \
             the --on-connect messages), while stdin lines still go to every client; at stdin EOF \
             it keeps serving (as with -n) until interrupted, or until its --once client leaves. \
             Record a session with the real server, then serve it to the app under test: \
             wspipe --record app.ndjson wss://api.example/ws, then \
             wspipe --listen 8080 --replay app.ndjson.
             """,
         ],
         apply: { o, v throws(UsageError) in o.replay = try FlagValue.nonEmpty("replay", v) }),
    Flag(long: "replay-speed", valueName: "FACTOR",
         help: "Play --replay this many times faster than recorded (0.5 is half as fast).",
         category: .scripting, defaultValue: "1", rules: [.requires("replay")], modes: [.client, .server],
         doc: [
             "Not with --rate, which spaces the messages evenly instead.",
         ],
         example: "2",
         apply: { o, v throws(UsageError) in o.replaySpeed = try FlagValue.positiveDecimal("replay-speed", v) }),

    // MARK: Checking a server (wspipe(1): CHECKING A SERVER)
    Flag(long: "check", valueName: "FILE",
         help: "Check the server against a recording (--record's file or a browser's HAR): send what it sent, "
             + "compare what comes back, exit 8 on a difference; repeat for more files.",
         category: .check, completion: .file, repeatable: true, modes: .check,
         doc: [
             """
             FILE may be a pattern, quoted so that wspipe expands it: --check 'tests/*.ndjson' checks every \
             file it matches, in name order. Each recorded connection is played on a fresh connection of \
             its own, to the URL given, or without one to the URL the recording holds (its connected \
             event, or the HAR request). A message to send goes once every message the recording expects \
             before it on that connection has come, and each message that comes is compared with the one \
             expected. See CHECKING A SERVER.
             """,
         ],
         apply: { o, v throws(UsageError) in o.checks.append(try FlagValue.nonEmpty("check", v)) }),
    Flag(long: "check-timeout", valueName: "DURATION",
         help: "Wait at most this long for each message a --check recording expects.",
         category: .check, defaultValue: "5s", modes: .check,
         example: "2s",
         apply: { o, v throws(UsageError) in o.checkTimeoutNanos = try FlagValue.positiveDuration("check-timeout", v) }),
    Flag(long: "check-settle", valueName: "DURATION",
         help: "After the last message a recorded connection expects, watch this long for messages the recording does not have.",
         category: .check, defaultValue: "100ms", modes: .check,
         doc: [
             "Such a message fails the check, unless --allow-extra names its type. With 0 the connection closes as soon as the last one expected has come.",
         ],
         example: "1s",
         apply: { o, v throws(UsageError) in o.checkSettleNanos = try FlagValue.duration("check-settle", v) }),
    Flag(long: "ignore", valueName: "KEYPATH",
         help: "Leave the value at KEYPATH out of the --check comparison, * for any key or index; repeat for more.",
         category: .check, repeatable: true, modes: .check,
         doc: [
             """
             --ignore ts skips the top-level ts, --ignore 'items.*.ts' the ts of every element of items, \
             --ignore 'room.users.0' the first user. The value may then differ, be missing or be added.
             """,
         ],
         example: "items.*.ts",
         apply: { o, v throws(UsageError) in o.ignores.append(try FlagValue.keyPath("ignore", v)) }),
    Flag(long: "check-order", valueName: "recorded|any",
         help: "With any, the messages a recording expects between two it sends may come in any order.",
         category: .check, completion: .choices(["recorded", "any"]), defaultValue: "recorded", modes: .check,
         doc: [
             """
             For a server that answers several requests in parallel: two subscriptions sent together may \
             be confirmed in either order. The messages after the next one sent are still awaited after it.
             """,
         ],
         example: "any",
         apply: { o, v throws(UsageError) in
             guard v == "recorded" || v == "any" else { throw .invalidChoice("check-order", v, choices: ["recorded", "any"]) }
             o.checkOrderAny = v == "any"
         }),
    Flag(long: "allow-extra", valueName: "TYPE",
         help: "Let messages of type TYPE (at --type-key) come at any time in a --check, and expect none; repeat for more types.",
         category: .check, repeatable: true, modes: .check,
         doc: [
             """
             For what a server sends on its own clock (heartbeats, presence): such messages are skipped \
             whenever they come, and those the recording has are not awaited.
             """,
         ],
         example: "heartbeat",
         apply: { o, v throws(UsageError) in o.allowExtra.append(try FlagValue.nonEmpty("allow-extra", v)) }),
    Flag(long: "junit", valueName: "FILE",
         help: "Also write the --check results to FILE as JUnit XML, one test case per recording.",
         category: .check, completion: .file, modes: .check,
         doc: [
             """
             The format GitHub Actions (through a test-report action), GitLab and Jenkins show: a \
             testsuite named wspipe --check, a testcase per recording (per recording and run with \
             --repeat) named after its file, with the file's folder as its classname (dots for slashes) \
             and its time in seconds; a failed check has a failure holding the report, a recording that \
             could not be checked (no connection) an error. FILE is replaced.
             """,
         ],
         example: "report.xml",
         apply: { o, v throws(UsageError) in o.junit = try FlagValue.nonEmpty("junit", v) }),
    Flag(long: "repeat", valueName: "N",
         help: "Check the recordings N times, for the reply latencies' percentiles.",
         category: .check, defaultValue: "1", modes: .check,
         doc: [
             """
             Each run of each recording counts as a test in the summary and the JUnit file. With more than \
             one, the reply latencies of all runs are reported together before the summary line.
             """,
         ],
         example: "3",
         apply: { o, v throws(UsageError) in o.repeats = try FlagValue.positiveInteger("repeat", v) }),
    Flag(long: "max-reply-p99", valueName: "DURATION",
         help: "Fail the run with exit status 8 when the 99th percentile of the reply latencies is above DURATION.",
         category: .check, modes: [.client, .check],
         doc: [
             """
             A latency budget for CI: with --check every reply the recordings expect counts, in client mode \
             every reply --reply or the one-shot rule matched by an id or an echo (see --linger). A run that \
             measured no reply fails too.
             """,
         ],
         example: "250ms",
         apply: { o, v throws(UsageError) in o.maxReplyP99Nanos = try FlagValue.positiveDuration("max-reply-p99", v) }),
    .toggle("har-credentials", nil, .check,
            help: "Send the Cookie, Authorization and other credential headers of a HAR file's request too.",
            modes: [.client, .check],
            doc: [
                """
                Without it, a HAR file given to --check or --replay lends its request's URL, subprotocols, \
                Origin and other headers, but not Cookie, Authorization, Proxy-Authorization nor any header \
                whose name mentions a token, a key, a secret, a session, a password, auth, csrf or xsrf: a \
                HAR file is often shared, and its credentials may not be meant for this server. A header given \
                with -H or --header-file replaces the HAR's of the same name.
                """,
            ],
            apply: { $0.harCredentials = true }),

    // MARK: Server mode (wspipe(1): OPTIONS, Server mode)
    Flag(long: "listen", valueName: "[HOST:]PORT[/PATH]",
         help: "Accept WebSocket clients on this address (a bare PORT is 127.0.0.1 only; 0.0.0.0:PORT for every "
             + "interface), or on the Unix-domain socket unix:PATH (removed at exit), instead of connecting to a URL.",
         category: .server, modes: .servers,
         doc: [
             """
             A slow client gets back-pressure: wspipe stops reading stdin until it catches up, so \
             that every client gets every line, for at most --send-timeout (10s): a client that \
             takes nothing for that long is disconnected.
             """,
             """
             Each stdin line goes at most once to each client connected when it is read; nothing is \
             sent again, to it or to another client, and a line read while no client is connected \
             is not sent (exit status 6). With --once the one client gets every line read while it \
             is connected, and the run ends when it leaves. So lines piped in once (printf ... | \
             wspipe -n --listen PORT) reach the clients connected when they are read, usually the \
             first; a client that comes after stdin ended gets none, which wspipe says once. Lines \
             every client should get go in --on-connect-file FILE, or a --replay.
             """,
             """
             Each client is accounted for as a client is (see RECONNECT AND REPLAY): when it \
             disconnects, its client_disconnected event counts the stdin lines written to it that it \
             never confirmed (unconfirmed, unconfirmed_lines: no message, pong or answered Close from \
             it after them; unread, unread_lines: its TCP took them before it last spoke, its window \
             says it may not have read them) and those queued for it and never written (not_sent, \
             not_sent_lines); a warning names them (at -v only when the client left with a closing \
             handshake), and --stats adds them up. Lines its TCP never acknowledged, or never \
             written to it, make the exit status 6, unless the client closed the connection itself: \
             it chose to stop reading.
             """,
             """
             What the clients hold together (output not yet written to them, messages still \
             arriving from them) stays under 4 times --max-message-size, at least 64M: the more \
             clients, the sooner one counts as slow; past it, the client holding the most is \
             disconnected with 1008 and a memory_budget event. When accept(2) runs out of file \
             descriptors, wspipe says so once (an accept_paused event), lets new connections wait \
             in the kernel's queue and tries again every 250 ms, instead of spinning.
             """,
         ],
         apply: { o, v throws(UsageError) in o.listen = try FlagValue.nonEmpty("listen", v) }),
    .toggle("once", nil, .server,
            help: "Serve one client and exit when it leaves.",
            rules: [.serverOnly],
            apply: { $0.once = true }),
    Flag(long: "exec", valueName: "COMMAND",
         help: "Give each client its own sh -c COMMAND: its messages become the program's stdin lines, the program's stdout lines go to that client only.",
         category: .server,
         rules: [.conflicts("relay"), .conflicts("tag"), .conflicts("send-timeout"),
                 .conflicts("unidirectional"), .conflicts("unidirectional-reverse")], modes: .exec,
         doc: [
             """
             The program takes the place of stdin and stdout for its client, as with websocketd: \
             wspipe does not read its own stdin, and writes no messages to its stdout (events and \
             notices still go to stderr). Lines are framed as on stdin and stdout: in JSON mode \
             each message is one NDJSON line (binary and non-JSON text as {"$binary":"..."} and \
             {"$text":"..."}) and each line the program writes is validated and sent, envelopes \
             unwrapped; -t, -b, -0 and --binary-output work as usual. The program's stderr is \
             wspipe's.
             """,
             "The program's environment has wspipe's, plus CGI-style variables about its client:",
             .list([
                 DocItem("REMOTE_ADDR, REMOTE_PORT", "The client's address and port."),
                 DocItem("PATH_INFO, QUERY_STRING, REQUEST_URI", "The request path, the query after '?', and both."),
                 DocItem("HTTP_*", "Each request header, as HTTP_USER_AGENT for User-Agent (not Proxy). A header "
                         + "whose name has other than letters, digits and '-' is left out, as Apache does "
                         + "(X_Forwarded_For would pass for X-Forwarded-For; -v names them), and a request "
                         + "whose head holds a CR, a NUL or an LF without its CR is answered 400."),
                 DocItem("SERVER_PORT, HTTPS", "The port wspipe listens on; HTTPS=on with --cert."),
                 DocItem("WSPIPE_CLIENT_ID", "The client's number, as in the client_connected event."),
             ]),
             """
             When the program exits and its stdout is over, every line it wrote has been sent and \
             the client is closed with 1000, or 1011 after a non-zero status or a signal. When the \
             client leaves, the program's stdin is closed once what the client sent is written; a \
             program still running --close-timeout later gets SIGTERM, and SIGKILL after as long \
             again. Every program is reaped, also when wspipe stops. Each program leads a process \
             group of its own: the signals reach what it started, what it leaves running ends with \
             it, and nothing it started outlives wspipe, even one killed with SIGKILL.
             """,
             """
             Back-pressure goes both ways and nothing is dropped: a program that does not read \
             stops wspipe reading its client, and a client that does not read stops wspipe reading \
             the program's stdout, which then blocks on its full pipe.
             """,
         ],
         apply: { o, v throws(UsageError) in o.exec = try FlagValue.nonEmpty("exec", v) }),
    .toggle("relay", nil, .server,
            help: "Send every client's messages to every other client as well: a chat room without a script.",
            rules: [.conflicts("exec")], modes: .server,
            doc: [
                """
                stdout still gets every message, and stdin lines still go to every client. Each \
                member has a queue of its own (what wspipe has not written to it yet): the room never \
                waits for a member, so one that reads slowly, or not at all, holds nobody back. A \
                member that has more than 16M unsent when a message is relayed to it (less with \
                many clients: the memory budget shared among them, at least 256K) has fallen behind: \
                it is disconnected with 1008 (reason "fell behind the relay"), a relay_behind event \
                and a warning, and the others go on. So wspipe holds at most that, and one message \
                more, for each member. A member that takes nothing at all is disconnected after \
                --send-timeout (10s) as well, since it holds stdin back.
                """,
                """
                With --send-timeout 0 the room waits for its slowest member instead: wspipe stops \
                reading the clients while one is behind, so nobody is dropped and every member gets \
                every message, but one member that does not read stops the whole room.
                """,
            ],
            apply: { $0.relay = true }),
    .toggle("tag", nil, .server,
            help: "Add \"$client\":N to each JSON object line from client N, and send a stdin line "
                + "carrying \"$client\":N to that client only.",
            rules: [.conflicts("exec"), .conflicts("text"), .conflicts("binary")], modes: .server,
            doc: [
                """
                The member is added first in the object, and a stdin line is sent without it. \
                JSON line mode only (refused with -t and -b, whose lines are not JSON). A client cannot pass for another: a top-level "$client" member \
                it sends itself (however spelled, as "\\u0024client" too) is removed first, and \
                reported once per client on stderr and each time with a tag_removed event, since \
                jq, Python and JavaScript readers keep the last of two equal keys. --relay passes \
                messages on to the other clients as they are.
                """,
            ],
            apply: { $0.tag = true }),
    Flag(long: "send-timeout", valueName: "DURATION",
         help: "Disconnect a client that has taken no data for this long instead of holding back the others; 0 waits for ever.",
         category: .server, defaultValue: "10s", rules: [.conflicts("exec")], modes: .server,
         doc: [
             """
             A client that does not read what it is sent holds back stdin once its unsent output \
             passes the high water, so that every client gets every line. A client whose unsent \
             output then has not shrunk for this long is disconnected with 1008 and a send_timeout \
             event, and the others go on: a stuck client holds stdin back for at most this long, \
             never for good. With 0 a slow client is waited for, however long it takes, and with \
             --relay the whole room waits for it (see --relay).
             """,
         ],
         example: "2s",
         apply: { o, v throws(UsageError) in
             // "off", the default of earlier versions, still means 0.
             let nanos = v == "off" ? 0 : try FlagValue.duration("send-timeout", v)
             o.sendTimeoutNanos = nanos == 0 ? nil : nanos
         }),

    Flag(long: "max-clients", valueName: "N",
         help: "Serve at most N clients at once; past that, an upgrade is answered 503.",
         category: .server, defaultValue: "unlimited", rules: [.serverOnly],
         doc: [
             """
             Only connected clients count. At most N more connections may be in their TLS or HTTP \
             handshake at the same time; beyond that, wspipe stops accepting until one of them \
             finishes, and the kernel's listen queue holds the rest, so no number of connections \
             makes wspipe hold more than 2N sockets.
             """,
         ],
         example: "3",
         apply: { o, v throws(UsageError) in o.maxClients = try FlagValue.positiveIntegerOrUnlimited("max-clients", v) }),
    Flag(long: "max-programs", valueName: "N",
         help: "With --exec, run at most N programs at once; past that, an upgrade is answered 503.",
         category: .server, defaultValue: "256", rules: [.requires("exec")], modes: .exec,
         doc: [
             """
             A program counts from its client's upgrade until it is reaped, also while it winds \
             down after its client left. A program that cannot be started (no process or \
             descriptor left) is a 503 too: the client never gets a 101 that is closed at once. \
             The 503's body says why (503 Service Unavailable: 4 programs running, the \
             --max-programs limit; try again later), and so does the client_refused event's \
             reason; stderr says it once, without -v, each time the limit is reached (-v names \
             every client refused). The default fits the usual limit of 1024 open files (each --exec client takes three: \
             its socket and two pipes) and a small machine: 256 shells take about 400 MB.
             """,
         ],
         example: "3",
         apply: { o, v throws(UsageError) in o.maxPrograms = try FlagValue.positiveInteger("max-programs", v) }),
    Flag(long: "allow-origin", valueName: "ORIGIN",
         help: "Accept browser pages from ORIGIN only (scheme://host[:port]); repeat to allow more.",
         category: .server, repeatable: true, rules: [.serverOnly],
         doc: [
             """
             A request whose Origin header is none of them is answered 403. Origins compare \
             case-insensitively. A request without an Origin header does not come from a browser \
             page and is accepted: any other client can send whatever Origin it likes, so this \
             guards against web pages (cross-site WebSocket hijacking), not against other programs.
             """,
         ],
         example: "https://o.example",
         apply: { o, v throws(UsageError) in o.allowedOrigins.append(try FlagValue.nonEmpty("allow-origin", v)) }),

    // MARK: Diagnostics (wspipe(1): OPTIONS, Diagnostics)
    .toggle("events", nil, .output,
            help: "Write lifecycle events (connected, reconnecting, ...) as {\"$event\":...} JSON lines on stderr.", modes: [.all, .check],
            doc: [
                """
                Each event is one JSON object, such as \
                {"$event":"connected","url":"wss://...","attempt":1}, routed like a message: \
                --route '$event=DEST' sends the events elsewhere.
                """,
                """
                A disconnected event has the close code (1006 when no Close came), its reason (the Close \
                frame's own reason, exactly as the peer sent it; what happened when no Close came), clean \
                (true only when the peer's Close came), by (client or server), unconfirmed and, when \
                stdin lines are among them, unconfirmed_lines [first, last], then unread and unread_lines \
                when some are; client_disconnected, in server mode, has the client's id, code, reason, \
                clean, unconfirmed and not_sent (with unconfirmed_lines and not_sent_lines), and unread \
                (with unread_lines) when some are. See RECONNECT AND REPLAY. \
                With --reply, an unreplied event lists the values no reply came for.
                """,
                """
                Each reply matched to its request (by --reply, by the one-shot rule's id or an echo, by --check) \
                is a reply event with ms, the time since the request went out, and its key (its --reply value) or, with --check, \
                the recording's file and line. --check adds a check event for each recording, with file, \
                result (passed or failed), time_ms and, when it failed, line, path and reason.
                """,
            ],
            apply: { $0.events = true }),
    .toggle("stats", nil, .output,
            help: "At exit, write a JSON summary on stderr: messages and bytes each way, reconnects, unacked.", modes: [.all, .check],
            doc: [
                """
                One {"$stats":{...}} line: messages_out, bytes_out, messages_in, bytes_in, reconnects, \
                invalid_lines, unacked (still held by --ack at the end), not_sent (never written to the \
                socket: queued at the end, or refused by the server; in server mode also what clients \
                that left were never sent), unconfirmed (taken by a connection and never confirmed, \
                see RECONNECT AND REPLAY; in server mode, by clients that left), unconfirmed_lines (the \
                stdin lines of each report, as [first, last] pairs), unread (taken by the peer's TCP \
                before it last spoke, maybe never read by it) and unread_lines.
                """,
                """
                When replies were matched to their requests (by --reply, by the one-shot rule's id or an echo, \
                by --check), reply_ms holds their latencies in milliseconds: {"count":N,"p50":..,"p90":..,"p99":..,"max":..}, \
                from a histogram of fixed size, each percentile within 1%.
                """,
            ],
            apply: { $0.stats = true }),
    .toggle("trace", nil, .output,
            help: "Show every frame both ways on stderr: time, direction, opcode, flags, length and a preview.", modes: [.all, .check],
            doc: [
                """
                Like curl --trace for WebSocket frames: > for frames wspipe sends, < for frames it \
                receives, then the opcode, the fin, rsv1 and masked flags, the payload length and the \
                start of the payload (text with control characters escaped, or hex; a Close's code and \
                reason). Shown whatever -q says. -v shows the handshake response's status and headers.
                """,
            ],
            apply: { $0.trace = true }),
    Flag(long: "write-out", short: "w", valueName: "FORMAT",
         help: "At exit, write FORMAT with %{name} replaced by what the run measured, as curl -w does; %{json} for all of it.",
         category: .output, modes: [.clients, .check],
         doc: [
             """
             FORMAT is text with variables (%{time_connect}), %% for a '%', and the escapes \\n, \
             \\r, \\t and \\\\; @FILE reads it from FILE. It goes to stdout, after every \
             message, or to stderr after %{stderr} (%{stdout} switches back). %{json} is every \
             variable in one JSON object, in the order below: -w '%{json}\\n' ends stdout with \
             one more JSON line. Times are seconds from the start of the run, with microseconds, \
             and those of a connection are its first one's. A value can come from the server (a \
             redirect's Location is url_effective), so values are escaped as peer text is on \
             stderr, and on stdout when it is a terminal (LINES AND MESSAGES); into a pipe they are \
             exact.
             """,
             .list(WriteOutVariable.allCases.map { DocItem($0.rawValue, $0.meaning) }),
         ],
         example: "%{json}",
         apply: { o, v throws(UsageError) in
             if !v.hasPrefix("@") {
                 do throws(WriteOutFormat.ParseError) {
                     _ = try WriteOutFormat(parsing: v)
                 } catch {
                     throw UsageError("--write-out: \(error.message)")
                 }
             }
             o.writeOut = v
         }),

    // MARK: General (wspipe(1): SYNOPSIS; OPTIONS, Diagnostics)
    Flag(long: "help", short: "h",
         help: "Print the short help, or every option of CATEGORY (or all), and exit.",
         category: .general, modes: .all,
         doc: [
             .paragraph("The short help lists the options most runs need and names the categories: "
                 + FlagCategory.allCases.map(\.name).joined(separator: ", ") + ". This page has them all."),
         ],
         optionalValue: (name: "CATEGORY", choices: HelpRenderer.topics),
         apply: { o, v throws(UsageError) in
             guard v.isEmpty || HelpRenderer.topics.contains(v) else {
                 throw .invalidChoice("help", v, choices: HelpRenderer.topics)
             }
             o.showHelp = true
             o.helpTopic = v.isEmpty ? nil : v
         }),
    .toggle("version", "V", .general,
            help: "Print the version and exit.", modes: .all,
            apply: { $0.showVersion = true }),
    Flag(long: "generate", valueName: Flag.alternatives(DocGenerator.kinds),
         help: "Print the man page or the completion script for this shell and exit.",
         category: .general, completion: .choices(DocGenerator.kinds), modes: .all,
         apply: { o, v throws(UsageError) in
             guard DocGenerator.kinds.contains(v) else {
                 throw .invalidChoice("generate", v, choices: DocGenerator.kinds)
             }
             o.generate = v
         }),
    .toggle("verbose", "v", .general,
            help: "Print lifecycle notices on stderr; repeat for more detail.",
            repeatable: true, modes: [.all, .check],
            apply: { $0.verbose += 1 }),
    .toggle("quiet", "q", .general,
            help: "Print nothing on stderr but fatal errors.", modes: [.all, .check],
            apply: { $0.quiet = true }),
    Flag(long: "config", short: "K", valueName: "FILE",
         help: "Read options from FILE, in curl's config syntax, after the default config file; repeat for more files.",
         category: .general, completion: .file, repeatable: true, modes: [.all, .check],
         doc: [
             """
             See CONFIG FILES. The command line overrides what a file says; a file given with -K \
             applies to servers too (the default file only to runs with a URL).
             """,
         ],
         apply: { o, v throws(UsageError) in o.configFiles.append(try FlagValue.nonEmpty("config", v)) }),
    .toggle("no-config", nil, .general,
            help: "Do not read the default config file (-K files still are).",
            modes: [.all, .check],
            doc: [
                "The same as WSPIPE_CONFIG set and empty. It is curl's -q, whose short name stays --quiet here.",
            ],
            apply: { $0.noConfig = true }),
    Flag(long: "profile", valueName: "NAME",
         help: "Apply the [NAME] section of the config files, whatever the URL.",
         category: .general, completion: .profiles, modes: [.all, .check],
         doc: [
             """
             Without --profile, the section whose url line is the longest prefix of the URL applies. \
             With --profile and no URL, the section's first url line is the URL. A NAME no file read \
             has is a usage error.
             """,
         ],
         apply: { o, v throws(UsageError) in o.profile = try FlagValue.nonEmpty("profile", v) }),
]

/// Lookups and integrity checks over `flagTable`.
public enum FlagTable {
    /// The flag with this long name (no dashes).
    public static func flag(long: some StringProtocol) -> Flag? {
        flagTable.first { $0.long == long }
    }

    /// The flag with this short name.
    public static func flag(short: Character) -> Flag? {
        flagTable.first { $0.short == short }
    }

    /// Problems with the table, empty when it is sound: duplicate long or short
    /// names, long names that are not lowercase words joined by '-', a value
    /// flag without a value name or a switch with one, empty help or help not
    /// ending in '.', help writing its own "(default: ...)", a repeatable flag
    /// whose help does not say so or with a default value (values given would
    /// add to it), a default value and a default note together, a default
    /// or completion on a switch, a choices completion the value name does not
    /// list, rules naming unknown flags, conflicts not listed both ways, a
    /// client-only flag with a server-mode rule, doc paragraphs or list items
    /// that do not end a sentence.
    public static func validate(_ table: [Flag] = flagTable) -> [String] {
        var problems: [String] = []
        var longs: Set<String> = []
        var shorts: Set<Character> = []
        for flag in table {
            let name = "--" + flag.long
            if !longs.insert(flag.long).inserted { problems.append("\(name): duplicate long name") }
            if let short = flag.short, !shorts.insert(short).inserted {
                problems.append("\(name): duplicate short name -\(short)")
            }
            if !isWellFormedLongName(flag.long) { problems.append("\(name): malformed long name") }
            if let short = flag.short, short == "-" || short == "=" || !short.isASCII || short.isWhitespace {
                problems.append("\(name): unusable short name")
            }
            if let valueName = flag.valueName, valueName.isEmpty { problems.append("\(name): empty value name") }
            if flag.help.isEmpty { problems.append("\(name): empty help") }
            if !flag.help.isEmpty && !flag.help.hasSuffix(".") { problems.append("\(name): help must end with '.'") }
            if flag.help.lowercased().contains("(default") {
                problems.append("\(name): help states a default (set defaultValue instead)")
            }
            if flag.repeatable && !flag.help.lowercased().contains("repeat") {
                problems.append("\(name): repeatable but the help does not say so")
            }
            if flag.defaultValue != nil && flag.defaultNote != nil {
                problems.append("\(name): both a default value and a default note")
            }
            if flag.repeatable && flag.defaultValue != nil {
                problems.append("\(name): repeatable with a default value (given values would add to it)")
            }
            if !flag.takesValue {
                if flag.shownDefault != nil { problems.append("\(name): switch with a default value") }
                if flag.completion != .none { problems.append("\(name): switch with a completion") }
            }
            if case .choices(let choices) = flag.completion {
                if choices.isEmpty { problems.append("\(name): empty choices") }
                if flag.valueName != choices.joined(separator: "|") {
                    problems.append("\(name): value name must list the choices")
                }
                if let defaultValue = flag.defaultValue, !choices.contains(defaultValue) {
                    problems.append("\(name): default is not one of the choices")
                }
            }
            problems += ruleProblems(flag, table)
            problems += docProblems(flag)
        }
        return problems
    }

    /// Doc paragraphs that do not end a sentence (or introduce a list), and
    /// empty lists or list items.
    private static func docProblems(_ flag: Flag) -> [String] {
        let name = "--" + flag.long
        var problems: [String] = []
        for block in flag.doc {
            switch block {
            case .paragraph(let text):
                if !text.hasSuffix(".") && !text.hasSuffix(":") {
                    problems.append("\(name): doc paragraph must end with '.' or ':'")
                }
            case .list(let items):
                if items.isEmpty { problems.append("\(name): empty doc list") }
                for item in items where item.term.isEmpty || !item.text.hasSuffix(".") {
                    problems.append("\(name): doc list item '\(item.term)' needs a term and a text ending with '.'")
                }
            }
        }
        return problems
    }

    /// Rules naming unknown flags, conflicts not listed both ways, and modes
    /// that contradict each other.
    private static func ruleProblems(_ flag: Flag, _ table: [Flag]) -> [String] {
        let name = "--" + flag.long
        var problems: [String] = []
        for rule in flag.rules {
            switch rule {
            case .conflicts(let other):
                guard let target = table.first(where: { $0.long == other }) else {
                    problems.append("\(name): conflicts with unknown flag --\(other)")
                    continue
                }
                if !target.conflicts.contains(flag.long) {
                    problems.append("\(name): conflict with --\(other) not listed both ways")
                }
            case .requires(let other), .requiresInServerMode(let other):
                if other == "listen" {
                    problems.append("\(name): requires --listen (use .serverOnly)")
                } else if !table.contains(where: { $0.long == other }) {
                    problems.append("\(name): requires unknown flag --\(other)")
                }
            case .clientOnly, .serverOnly:
                break
            }
        }
        let saysClient = flag.clientOnly || flag.rules.contains(.clientOnly)
        if saysClient && (flag.rules.contains(.serverOnly) || flag.rules.contains(where: isServerRequirement)) {
            problems.append("\(name): client-only with a server-mode rule")
        }
        if flag.modes.isEmpty { problems.append("\(name): works in no mode") }
        if flag.explicitModes && (flag.rules.contains(.clientOnly) || flag.rules.contains(.serverOnly)) {
            problems.append("\(name): modes given twice (modes and .clientOnly/.serverOnly)")
        }
        return problems
    }

    private static func isServerRequirement(_ rule: FlagRule) -> Bool {
        if case .requiresInServerMode = rule { return true }
        return false
    }

    private static func isWellFormedLongName(_ long: String) -> Bool {
        guard let first = long.first, first.isLetter, first.isLowercase, long.last != "-" else { return false }
        return !long.contains("--") && long.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
    }
}
