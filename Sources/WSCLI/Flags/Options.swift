import WSBridge
import WSCodecs
import WSTransport
import WSMessages

/// `--route-errors`: what happens when a route destination fails (wspipe(1): ROUTING).
public enum RouteErrors: String, CaseIterable, Sendable {
    case report, ignore
}

/// Everything the command line can say. Filled by `ArgumentParser.parse`
/// from the flag table; each field is written by one flag's `apply` (and the
/// positional URL).
///
/// The fields hold neutral values (nil, false, 0, empty), never a default of
/// their own: the parser first applies every flag's `defaultValue` from the
/// table, so the table is the one place a default is written (a test checks
/// that `Options()` stays neutral).
public struct Options: Sendable {
    /// Where a secret flag's value (`Flag.secret`) is in the arguments: the
    /// argument's index (0 for the first after the program's name) and the
    /// value's first byte in it (after `--user=`), for `App` to blank.
    public var secretArguments: [(index: Int, offset: Int)] = []
    public var url: String? = nil
    /// `--listen [HOST:]PORT[/PATH]`, raw; split when the run is planned.
    public var listen: String? = nil
    /// `-H 'Name: value'`, in order; name validated as an HTTP token, value
    /// with its leading spaces trimmed.
    public var headers: [(name: String, value: String)] = []
    public var headerFile: String? = nil
    /// `--header-command`: run before each attempt for more headers.
    public var headerCommand: String? = nil
    public var origin: String? = nil
    public var userAgent = ""
    public var protocols: [String] = []
    public var connectTimeoutNanos: Int64 = 0
    /// `--proxy URL`, checked by `ProxyURL`; "" = no proxy, whatever the environment says.
    public var proxy: String? = nil
    /// `--proxy-user USER:PASSWORD`: the proxy's credentials, in place of the URL's.
    public var proxyUser: (user: String, password: String)? = nil
    /// `--proxy-user-file FILE`, unread: read when the run is planned.
    public var proxyUserFile: String? = nil
    /// `--noproxy LIST`: replaces the no_proxy variable.
    public var noProxy: String? = nil
    /// `--unix-socket PATH`.
    public var unixSocket: String? = nil
    /// `-L`: follow redirects.
    public var location = false
    /// `--max-redirs`.
    public var maxRedirects = 0
    /// `--location-downgrade`: with -L, follow wss:// to ws:// too.
    public var locationDowngrade = false
    /// `--cookie DATA|FILE`, unread: DATA when it has a '=', else a file read when the run is planned.
    public var cookie: String? = nil
    /// `-c/--cookie-jar FILE`.
    public var cookieJar: String? = nil
    /// `--user USER:PASSWORD`.
    public var user: String? = nil
    /// `--user-file FILE`, unread.
    public var userFile: String? = nil
    /// `-4`, `-6`; nil: both families, raced.
    public var family: AddressFamily? = nil
    /// `-w/--write-out FORMAT` (or `@FILE`), checked when not a file.
    public var writeOut: String? = nil
    public var insecure = false
    public var cacert: String? = nil
    public var cert: String? = nil
    public var key: String? = nil
    public var maxMessageSize = 0
    /// JSON unless `-t` or `-b` (JSON is the mode without a flag).
    public var lineFormat: LineFormat = .json
    /// `--compress`: negotiate permessage-deflate (client offers, server accepts).
    public var compress = false
    /// `-0`: NUL instead of `\n` as the separator in raw line mode.
    public var nulSeparator = false
    /// `--no-line`: raw mode, stdin is one message, no separator after messages.
    public var noLine = false
    /// Always set from `--binary-output`'s default; `.raw` only because an enum needs a value.
    public var binaryOutput: BinaryOutputMode = .raw
    /// `--codec`: binary messages are MessagePack or CBOR, as JSON lines.
    public var codec: BinaryFormat? = nil
    public var lenient = false
    public var strict = false
    /// `-n`: at stdin EOF keep receiving until the server closes.
    public var noClose = false
    /// Incoming messages to accept before exiting; `-1` sets 1.
    public var maxMessages: Int? = nil
    /// `-u`: stdin to socket only.
    public var unidirectional = false
    /// `-U`: socket to stdout only.
    public var reverseUnidirectional = false
    /// `-i`: the interactive mode even when stdout is not a terminal.
    public var interactive = false
    /// `--history-size`: bytes of messages the interactive transcript keeps.
    public var historySize = 0
    /// `--no-status-line`: no status row in the interactive mode.
    public var noStatusLine = false
    /// `--socketio`: Socket.IO events as lines (Engine.IO v4 over WebSocket).
    public var socketIO = false
    /// `--namespace NS`, in order (each starts with "/", holds no comma).
    public var namespaces: [String] = []
    /// `--sio-auth JSON`: the template of the namespaces' auth object.
    public var sioAuth: String? = nil
    public var closeTimeoutNanos: Int64 = 0
    /// `--linger`: at stdin EOF, how long replies still owed may take.
    public var lingerNanos: Int64 = 0
    /// `--ping-interval`: nil = no pings of our own (server pings are still answered).
    public var pingIntervalNanos: Int64? = nil
    /// `--ping-timeout`: nil = the ping interval. Only given with `--ping-interval`.
    public var pingTimeoutNanos: Int64? = nil
    /// `--backoff MIN[:MAX[:FACTOR]]`; MIN > 0, MAX >= MIN, FACTOR >= 1.
    public var backoffMinNanos: Int64 = 0
    public var backoffMaxNanos: Int64 = 0
    public var backoffFactor: Double = 0
    /// `--jitter`: each delay is spread within ±this fraction, 0...1.
    public var jitter: Double = 0
    /// `--max-retries`: consecutive failed attempts before giving up; nil = unlimited.
    public var maxRetries: Int? = nil
    /// `--no-reconnect`: exit when an established connection ends.
    public var noReconnect = false
    /// `--wait`: retry the first connection too, with the same policy.
    public var wait = false
    /// `--queue-limit`: bytes of stdin lines held while disconnected (> 0).
    public var queueLimit = 0
    /// `--on-connect MSG`, in order; may contain `${NAME}` captures.
    public var onConnect: [String] = []
    /// `--on-connect-file FILE`, unread: the file is read when the run is planned.
    public var onConnectFile: String? = nil
    /// `--on-reconnect MSG`, in order; replaces the on-connect messages on reconnections.
    public var onReconnect: [String] = []
    /// `--capture NAME=KEYPATH`, in order; names are unique identifiers, paths non-empty keys.
    public var captures: [(name: String, path: [String])] = []
    /// `--ack KEYPATH` split at the dots ("meta.seq" -> ["meta", "seq"]); nil = no acks.
    public var ackPath: [String]? = nil
    /// `--ack-timeout`: at stdin EOF, how long to wait for the outstanding acks.
    public var ackTimeoutNanos: Int64 = 0
    /// `--reply KEYPATH` split at the dots: the value that pairs a reply with its request.
    public var replyPath: [String]? = nil
    /// `--reply-match KEYPATH=VALUE`, split: what a reply must carry besides its key.
    public var replyMatch: (path: [String], value: String)? = nil
    /// `--until KEYPATH=VALUE`, split: the message that ends a scripted check.
    public var until: (path: [String], value: String)? = nil
    /// `--idle-timeout`: nil = off.
    public var idleTimeoutNanos: Int64? = nil
    /// `--rate`: the interval between stdin messages; nil = off.
    public var rateIntervalNanos: Int64? = nil
    /// `--close-code CODE[:REASON]` (always set from the table's default).
    public var closeCode = 0
    public var closeReason = ""
    /// `--answer TYPE=TEMPLATE`, in order, as given (both sides checked non-empty; `Plan`
    /// splits at the first '=' and checks the template). Strings, not pairs: a
    /// new tuple type costs every run its metadata at start-up.
    public var answers: [String] = []
    /// `--heartbeat TEMPLATE`.
    public var heartbeat: String? = nil
    /// `--heartbeat-interval` (always set from the table's default).
    public var heartbeatIntervalNanos: Int64 = 0
    /// `--heartbeat-timeout`: nil = off.
    public var heartbeatTimeoutNanos: Int64? = nil
    /// `--wrap TEMPLATE`.
    public var wrap: String? = nil
    /// `--record FILE`.
    public var record: String? = nil
    /// `--replay FILE`, unread: read when the run is planned.
    public var replay: String? = nil
    /// `--replay-speed` (always set from the table's default).
    public var replaySpeed: Double = 0
    /// `--check FILE`, in order, as given (patterns expanded when the run is planned).
    public var checks: [String] = []
    /// `--check-timeout`, `--check-settle` (always set from the table's defaults).
    public var checkTimeoutNanos: Int64 = 0
    public var checkSettleNanos: Int64 = 0
    /// `--check-order any`.
    public var checkOrderAny = false
    /// `--ignore KEYPATH`, split at the dots.
    public var ignores: [[String]] = []
    /// `--allow-extra TYPE`.
    public var allowExtra: [String] = []
    /// `--junit FILE`.
    public var junit: String? = nil
    /// `--repeat N` (always set from the table's default).
    public var repeats = 0
    /// `--max-reply-p99`: nil = no budget.
    public var maxReplyP99Nanos: Int64? = nil
    /// `--har-credentials`.
    public var harCredentials = false
    /// `--events`: lifecycle events as `{"$event":...}` lines.
    public var events = false
    /// `--stats`: a final `{"$stats":...}` summary on stderr.
    public var stats = false
    /// `--trace`: every frame both ways on stderr.
    public var trace = false
    /// `--type-key` split at the dots: where `--route` reads the type of an incoming message.
    public var typeKey: [String] = []
    /// `--route VALUE=DEST`, in order, split at the first '='; both sides
    /// non-empty, VALUEs unique. DEST is checked by the bridge (`RouteSpec`).
    public var routes: [(value: String, destination: String)] = []
    /// `--route-errors ignore`: a failing destination is not reported.
    public var routeErrorsIgnored = false
    /// `--tag` (server mode): `"$client":N` on lines from clients, addressing on stdin lines.
    public var tag = false
    /// `--send-timeout` (server mode): nil (0) = a slow client holds back stdin for as long as it takes.
    public var sendTimeoutNanos: Int64? = nil
    /// `--exec` (server mode): each client's own program.
    public var exec: String? = nil
    /// `--relay` (server mode): each client's messages go to the other clients too.
    public var relay = false
    /// `--max-programs` (server mode, --exec): programs at once.
    public var maxPrograms = 0
    /// `--max-clients` (server mode): nil = unlimited.
    public var maxClients: Int? = nil
    /// `--allow-origin` (server mode), in order; empty = any Origin.
    public var allowedOrigins: [String] = []
    /// Number of `-v` given.
    public var verbose = 0
    public var quiet = false
    /// `--once` (server mode): serve one client, exit when it leaves.
    public var once = false
    public var showHelp = false
    /// `--help CATEGORY` (or all): nil for the short help.
    public var helpTopic: String? = nil
    /// `-K/--config FILE`, in order: read before the command line (`Invocation`).
    public var configFiles: [String] = []
    /// `--no-config`: the default config file is not read.
    public var noConfig = false
    /// `--profile NAME`: the config files' [NAME] section.
    public var profile: String? = nil
    /// `--keylog FILE` (SSLKEYLOGFILE when not given): TLS secrets for Wireshark.
    public var keylog: String? = nil
    public var showVersion = false
    /// `--generate KIND`: print the man page or a completion script (see `DocGenerator`).
    public var generate: String? = nil

    public init() {}
}
