import WSCore

/// The headers of one upgrade request after the handshake's own
/// (wspipe(1): OPTIONS, Connection): -H, --header-file and
/// --header-command headers as given, then Basic authorization (--user, or
/// the URL's user:password) unless one of them authorizes already, then one
/// Cookie header (--cookie DATA and the cookie jar's cookies for this URL,
/// after a Cookie given with -H).
///
/// Credentials go only where the user sent them (curl's rule, which -L
/// follows): when a redirect leads to another scheme, host or port than
/// the URL given, the Authorization, Cookie and Host headers given are
/// dropped, and so are --user and --cookie DATA. The jar's cookies go
/// wherever their domain and path match; the redirect's own
/// user:password, if it has one, is used for it.
struct RequestHeaders {
    /// -H, --header-file and --header-command headers, in that order.
    var given: [(name: String, value: String)]
    /// The URL on the command line.
    var original: WebSocketURL
    /// --user USER:PASSWORD (or --user-file's).
    var basicAuth: String?
    /// --cookie DATA: "name=value; name2=value2", sent as it is.
    var cookieData: String?

    /// A URL's user information is percent-encoded (RFC 3986 §3.2.1): the
    /// credentials are what it stands for (`ws://u%40x:p%3Aw@host/` is user
    /// "u@x", password "p:w", as curl reads it). A '%' not followed by two
    /// hex digits stays as it is.
    static func percentDecoded(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
               let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The headers for a request to `hop` (the original URL, or where a
    /// redirect led), `jarCookies` the jar's "a=b; c=d" for it.
    func headers(for hop: WebSocketURL, jarCookies: String?) -> [(name: String, value: String)] {
        let trusted = Redirect.sameOrigin(hop, original)
        var headers = trusted ? given : given.filter { !Self.credentialHeaders.contains($0.name.lowercased()) }
        if !headers.contains(where: { $0.name.lowercased() == "authorization" }),
           let user = trusted ? basicAuth.map { Array($0.utf8) } ?? hop.userInfo.map(Self.percentDecoded)
                              : hop.userInfo.map(Self.percentDecoded) {
            headers.append((name: "Authorization", value: "Basic " + Base64.encode(user)))
        }
        let cookies = [trusted ? cookieData : nil, jarCookies].compactMap { $0 }.filter { !$0.isEmpty }
        if !cookies.isEmpty {
            if let index = headers.firstIndex(where: { $0.name.lowercased() == "cookie" }) {
                headers[index].value = ([headers[index].value] + cookies).joined(separator: "; ")
            } else {
                headers.append((name: "Cookie", value: cookies.joined(separator: "; ")))
            }
        }
        return headers
    }

    /// What the user meant for the host they named only.
    static let credentialHeaders: Set<String> = ["authorization", "cookie", "host"]
}
