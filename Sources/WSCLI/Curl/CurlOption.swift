/// The curl options `wspipe curl` reads, with curl's meanings (curl(1)),
/// and those it knows it cannot honour. An option in neither list is
/// refused as unknown: guessing what it meant could send the wrong request.
struct CurlOption: Sendable {
    /// What the option becomes.
    enum Meaning: Sendable, Equatable {
        /// A header (-H): read by its name (`CurlTranslation.header`).
        case header
        /// -b: cookie data (with a '=') or a cookie file.
        case cookie
        /// The same flag of wspipe, with the value as it is.
        case flag(String)
        /// The URL (--url).
        case url
        /// -u USER:PASSWORD.
        case user
        /// -x: a proxy, http:// when it names no scheme.
        case proxy
        /// -e: the Referer header (";auto" is -L's business, dropped).
        case referer
        /// -X: GET is what the handshake sends anyway.
        case method
        /// --oauth2-bearer TOKEN: an Authorization header.
        case bearer
        /// Nothing to do, for this reason.
        case dropped(String)
        /// Cannot be honoured, for this reason.
        case refused(String)
    }

    let short: Character?
    let long: String
    let takesValue: Bool
    let meaning: Meaning

    init(_ short: Character?, _ long: String, value: Bool, _ meaning: Meaning) {
        self.short = short
        self.long = long
        self.takesValue = value
        self.meaning = meaning
    }

    /// What the option does, for the completions' descriptions.
    var summary: String {
        switch meaning {
        case .header: return "A handshake header, read by its name"
        case .cookie: return "Cookies (NAME=VALUE; ...) or a cookie file"
        case .flag(let long): return "As wspipe --\(long)"
        case .url: return "The URL"
        case .user: return "Basic authorization as USER:PASSWORD"
        case .proxy: return "The proxy (http:// when no scheme is given)"
        case .referer: return "The Referer header"
        case .method: return "GET only: the handshake is a GET"
        case .bearer: return "An Authorization: Bearer header"
        case .dropped(let why): return "Dropped: " + why
        case .refused(let why): return "Refused: " + why
        }
    }

    /// The options the completions offer: those read or dropped, not those refused.
    static var offered: [CurlOption] {
        table.filter { if case .refused = $0.meaning { false } else { true } }
    }

    /// Whether the value is a file name (for the completions): -b takes data too.
    static func namesFile(_ option: CurlOption) -> Bool {
        ["cookie", "cookie-jar", "cacert", "cert", "key", "unix-socket"].contains(option.long)
    }

    static func find(long: some StringProtocol) -> CurlOption? { table.first { $0.long == long } }
    static func find(short: Character) -> CurlOption? { table.first { $0.short == short } }

    static let noBody = "a WebSocket handshake is a GET without a body"
    static let http11 = "the WebSocket handshake is HTTP/1.1 (RFC 6455), whatever the browser used"

    static let table: [CurlOption] = [
        // Mapped.
        CurlOption("H", "header", value: true, .header),
        CurlOption("b", "cookie", value: true, .cookie),
        CurlOption("c", "cookie-jar", value: true, .flag("cookie-jar")),
        CurlOption("u", "user", value: true, .user),
        CurlOption("A", "user-agent", value: true, .flag("user-agent")),
        CurlOption("e", "referer", value: true, .referer),
        CurlOption("k", "insecure", value: false, .flag("insecure")),
        CurlOption(nil, "cacert", value: true, .flag("cacert")),
        CurlOption("E", "cert", value: true, .flag("cert")),
        CurlOption(nil, "key", value: true, .flag("key")),
        CurlOption("x", "proxy", value: true, .proxy),
        CurlOption("U", "proxy-user", value: true, .flag("proxy-user")),
        CurlOption(nil, "noproxy", value: true, .flag("noproxy")),
        CurlOption(nil, "unix-socket", value: true, .flag("unix-socket")),
        CurlOption(nil, "connect-timeout", value: true, .flag("connect-timeout")),
        CurlOption("4", "ipv4", value: false, .flag("ipv4")),
        CurlOption("6", "ipv6", value: false, .flag("ipv6")),
        CurlOption("L", "location", value: false, .flag("location")),
        CurlOption(nil, "max-redirs", value: true, .flag("max-redirs")),
        CurlOption("w", "write-out", value: true, .flag("write-out")),
        CurlOption("v", "verbose", value: false, .flag("verbose")),
        CurlOption("s", "silent", value: false, .flag("quiet")),
        CurlOption(nil, "url", value: true, .url),
        CurlOption("X", "request", value: true, .method),
        CurlOption(nil, "oauth2-bearer", value: true, .bearer),
        // Nothing to do.
        CurlOption(nil, "compressed", value: false,
                   .dropped("a WebSocket handshake has no body to compress (permessage-deflate is --compress)")),
        CurlOption("g", "globoff", value: false, .dropped("wspipe reads no {} or [] ranges in URLs")),
        CurlOption("N", "no-buffer", value: false, .dropped("wspipe writes every message as it comes")),
        CurlOption("S", "show-error", value: false, .dropped("wspipe always says why it failed")),
        CurlOption("f", "fail", value: false, .dropped("a handshake that is not answered 101 is always a failure (exit status 4)")),
        CurlOption(nil, "http1.1", value: false, .dropped(http11)),
        CurlOption(nil, "http2", value: false, .dropped(http11)),
        CurlOption(nil, "http2-prior-knowledge", value: false, .dropped(http11)),
        CurlOption(nil, "http3", value: false, .dropped(http11)),
        CurlOption(nil, "tlsv1.2", value: false, .dropped("wspipe uses TLS 1.2 or later")),
        CurlOption(nil, "path-as-is", value: false, .dropped("wspipe sends the URL's path as it is")),
        // Not honoured.
        CurlOption("d", "data", value: true, .refused(noBody)),
        CurlOption(nil, "data-raw", value: true, .refused(noBody)),
        CurlOption(nil, "data-binary", value: true, .refused(noBody)),
        CurlOption(nil, "data-ascii", value: true, .refused(noBody)),
        CurlOption(nil, "data-urlencode", value: true, .refused(noBody)),
        CurlOption(nil, "json", value: true, .refused(noBody)),
        CurlOption("F", "form", value: true, .refused(noBody)),
        CurlOption(nil, "form-string", value: true, .refused(noBody)),
        CurlOption("T", "upload-file", value: true, .refused(noBody)),
        CurlOption("G", "get", value: false, .refused("it makes a query of --data, which a handshake does not have")),
        CurlOption("I", "head", value: false, .refused("a WebSocket handshake is a GET")),
        CurlOption("i", "include", value: false, .refused("-v shows the handshake response's headers")),
        CurlOption("o", "output", value: true, .refused("the messages go to stdout (--route writes them to files)")),
        CurlOption("O", "remote-name", value: false, .refused("the messages go to stdout (--route writes them to files)")),
        CurlOption("D", "dump-header", value: true, .refused("-v shows the handshake response's headers")),
        CurlOption("m", "max-time", value: true, .refused("a session has no fixed length: see --idle-timeout and --until")),
        CurlOption(nil, "retry", value: true, .refused("wspipe reconnects by itself: see --backoff and --max-retries")),
        CurlOption("r", "range", value: true, .refused(noBody)),
        CurlOption("K", "config", value: true, .refused("give wspipe's own -K after --")),
        CurlOption(nil, "resolve", value: true, .refused("wspipe has no --resolve")),
        CurlOption(nil, "connect-to", value: true, .refused("wspipe has no --connect-to")),
        CurlOption(nil, "digest", value: false, .refused("wspipe sends Basic authorization only")),
        CurlOption(nil, "ntlm", value: false, .refused("wspipe sends Basic authorization only")),
        CurlOption(nil, "negotiate", value: false, .refused("wspipe sends Basic authorization only")),
        CurlOption(nil, "anyauth", value: false, .refused("wspipe sends Basic authorization only")),
        CurlOption(nil, "location-trusted", value: false,
                   .refused("wspipe never sends credentials to another host on a redirect (-L does the rest)")),
        CurlOption(nil, "proxy-header", value: true, .refused("wspipe sends no headers of its own to a proxy")),
        CurlOption(nil, "limit-rate", value: true, .refused("see --rate for the messages wspipe sends")),
    ]
}
