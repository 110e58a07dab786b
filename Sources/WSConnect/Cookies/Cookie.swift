/// One cookie of the jar (RFC 6265 §5.3's storage model, the fields a
/// Netscape/curl cookie file has).
struct Cookie: Equatable {
    var name: String
    var value: String
    /// Lower case, without a leading dot.
    var domain: String
    /// Sent to `domain` only, not to its subdomains (set without a Domain
    /// attribute; FALSE in a cookie file's second column).
    var hostOnly: Bool
    var path: String
    /// Sent over wss:// only.
    var secure: Bool
    var httpOnly: Bool
    /// When it expires, in seconds since the epoch; nil for a session
    /// cookie (0 in a cookie file).
    var expires: Int64?
    /// Creation order, which breaks ties in the Cookie header (§5.4).
    var created: Int = 0

    /// The same cookie: a new one with this identity replaces the old (§5.3 step 11).
    func sameIdentity(_ other: Cookie) -> Bool {
        name == other.name && domain == other.domain && path == other.path && hostOnly == other.hostOnly
    }

    func expired(at now: Int64) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether the cookie goes with a request to this host and path (§5.4 step 1).
    func matches(host: String, path requestPath: String, secure secureRequest: Bool) -> Bool {
        if secure && !secureRequest { return false }
        let host = host.lowercased()
        let hostMatches = hostOnly ? host == domain : Cookie.domainMatches(host, domain)
        return hostMatches && Cookie.pathMatches(requestPath, path)
    }

    /// §5.1.3: identical, or `domain` a suffix of `host` after a dot, where
    /// `host` is a name (not an IP address).
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// §5.1.4: the same path, or `cookiePath` a prefix of it ending at a '/'.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        return requestPath.dropFirst(cookiePath.count).first == "/"
    }

    /// §5.1.4: the default path of a cookie set by a request to `requestPath`
    /// (its directory).
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.first == "/", let slash = requestPath.lastIndex(of: "/"),
              slash != requestPath.startIndex else { return "/" }
        return String(requestPath[..<slash])
    }

    /// An IPv6 literal (it has a colon) or a dotted IPv4 one.
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0 == "." || $0.isASCII && $0.isNumber })
    }
}
