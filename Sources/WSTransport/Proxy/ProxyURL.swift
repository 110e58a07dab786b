/// A proxy given as `--proxy` or in the environment, the way curl reads it:
/// `[SCHEME://][USER:PASSWORD@]HOST[:PORT]`, user and password
/// percent-decoded, port 1080 when absent, no scheme meaning http.
public struct ProxyURL: Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// An HTTP proxy asked for a tunnel with CONNECT (RFC 9110 §9.3.6).
        case http
        /// SOCKS5 (RFC 1928) with the target's address resolved by us.
        case socks5
        /// SOCKS5 with the target's name resolved by the proxy.
        case socks5h
    }

    public var kind: Kind
    /// Without IPv6 brackets.
    public var host: String
    public var port: UInt16
    public var user: String?
    public var password: String?

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(parsing text: String) throws(ParseError) {
        var rest = Substring(text)
        kind = .http
        if let colon = rest.firstIndex(of: ":"), rest[colon...].hasPrefix("://") {
            let scheme = rest[..<colon].lowercased()
            switch scheme {
            case "http": kind = .http
            case "socks5": kind = .socks5
            case "socks5h": kind = .socks5h
            case "https": throw ParseError(description: "HTTPS proxies are not supported (use http://, socks5:// or socks5h://)")
            default: throw ParseError(description: "unsupported proxy scheme '\(scheme)' (use http://, socks5:// or socks5h://)")
            }
            rest = rest[rest.index(colon, offsetBy: 3)...]
        }
        // A trailing "/" (curl allows a path) is ignored.
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...].allSatisfy({ $0 == "/" }) else {
                throw ParseError(description: "a proxy URL has no path")
            }
            rest = rest[..<slash]
        }
        user = nil
        password = nil
        if let at = rest.lastIndex(of: "@") {
            let info = rest[..<at]
            let colon = info.firstIndex(of: ":")
            user = try Self.percentDecoded(info[..<(colon ?? info.endIndex)])
            password = ""
            if let colon { password = try Self.percentDecoded(info[info.index(after: colon)...]) }
            rest = rest[rest.index(after: at)...]
        }
        var portText: Substring?
        if rest.first == "[" {
            guard let close = rest.firstIndex(of: "]") else { throw ParseError(description: "unclosed '[' in proxy host") }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.first == ":" { portText = after.dropFirst() } else if !after.isEmpty {
                throw ParseError(description: "unexpected text after the proxy's IPv6 address")
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            portText = rest[rest.index(after: colon)...]
        } else {
            host = String(rest)
        }
        guard !host.isEmpty else { throw ParseError(description: "proxy URL has no host") }
        if let p = portText {
            guard let n = UInt16(p), n > 0 else { throw ParseError(description: "invalid proxy port '\(p)'") }
            port = n
        } else {
            port = 1080
        }
    }

    /// host:port with brackets around IPv6 literals.
    public var authority: String {
        (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// For messages: the scheme and address, never the credentials.
    public var description: String {
        "\(kind.rawValue)://\(authority)"
    }

    public var credentials: (user: String, password: String)? {
        user.map { ($0, password ?? "") }
    }

    /// RFC 3986 §2.1 percent-encoding in the user information.
    static func percentDecoded(_ text: Substring) throws(ParseError) -> String {
        var out: [UInt8] = []
        var bytes = text.utf8[...]
        while let byte = bytes.popFirst() {
            guard byte == UInt8(ascii: "%") else { out.append(byte); continue }
            guard bytes.count >= 2,
                  let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else {
                throw ParseError(description: "invalid percent-encoding in the proxy's user or password")
            }
            out.append(value)
            bytes = bytes.dropFirst(2)
        }
        return String(decoding: out, as: UTF8.self)
    }
}
