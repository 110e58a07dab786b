/// A parsed ws:// or wss:// URL (RFC 6455 §3): just the parts a client needs.
public struct WebSocketURL: Equatable, Sendable {
    public var secure: Bool
    /// Host without IPv6 brackets, as given to getaddrinfo and SNI.
    public var host: String
    public var port: UInt16
    /// Path and query, never empty ("/" at least); the fragment is dropped (§3).
    public var target: String
    /// user:password from the URL, if any; sent as HTTP Basic authorization.
    public var userInfo: String?

    /// The Host header value: brackets around IPv6 literals, port only when not
    /// the scheme's default (RFC 7230 §5.4).
    public var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        let defaultPort: UInt16 = secure ? 443 : 80
        return port == defaultPort ? h : "\(h):\(port)"
    }

    /// The URL as the user would recognise it, for messages and events.
    public var display: String {
        (secure ? "wss://" : "ws://") + hostHeader + target
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case scheme, host, port(String)
        public var description: String {
            switch self {
            case .scheme: return "URL must start with ws:// or wss://"
            case .host: return "URL has no host"
            case .port(let p): return "invalid port '\(p)' in URL"
            }
        }
    }

    public init(parsing text: String) throws(ParseError) {
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("wss://") {
            secure = true; rest = rest.dropFirst(6)
        } else if rest.lowercased().hasPrefix("ws://") {
            secure = false; rest = rest.dropFirst(5)
        } else {
            throw .scheme
        }
        // The authority ends at the first '/', '?' or '#'.
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        var path = rest[authorityEnd...]
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        if path.isEmpty || path.first == "?" { target = "/" + path } else { target = String(path) }

        userInfo = nil
        if let at = authority.lastIndex(of: "@") {
            userInfo = String(authority[..<at])
            authority = authority[authority.index(after: at)...]
        }
        var portText: Substring? = nil
        if authority.first == "[" {
            guard let close = authority.firstIndex(of: "]") else { throw .host }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() } else if !after.isEmpty { throw .host }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        } else {
            host = String(authority)
        }
        guard !host.isEmpty else { throw .host }
        if let p = portText {
            guard let n = UInt16(p), n > 0 else { throw .port(String(p)) }
            port = n
        } else {
            port = secure ? 443 : 80
        }
    }
}
