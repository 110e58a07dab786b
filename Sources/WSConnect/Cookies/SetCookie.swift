/// A Set-Cookie header read as RFC 6265 §5.2 says a user agent reads it,
/// then checked as §5.3 stores it: the cookie to keep, or nil when it must
/// be ignored.
enum SetCookie {
    /// §6.1's floor for what a user agent keeps: 4096 bytes a cookie.
    static let maxCookieBytes = 4096

    /// `now`: the wall clock (seconds since the epoch); a cookie whose
    /// expiry is not after it deletes the stored one of the same identity.
    static func parse(_ header: String, host: String, path requestPath: String, secure secureRequest: Bool,
                      now: Int64) -> Cookie? {
        let parts = header.split(separator: ";", omittingEmptySubsequences: false)
        guard let pair = parts.first, let equals = pair.firstIndex(of: "=") else { return nil }
        let name = trim(pair[..<equals])
        let value = trim(pair[pair.index(after: equals)...])
        guard !name.isEmpty, name.utf8.count + value.utf8.count <= maxCookieBytes else { return nil }
        let host = host.lowercased()
        var cookie = Cookie(name: String(name), value: String(value), domain: host, hostOnly: true,
                            path: Cookie.defaultPath(requestPath), secure: false, httpOnly: false, expires: nil)
        var maxAge: Int64?, expires: Int64?
        for attribute in parts.dropFirst() {
            let (key, argument) = split(attribute)
            switch key.lowercased() {
            case "expires": if let date = CookieDate.parse(String(argument)) { expires = date }
            case "max-age": if let seconds = maxAgeSeconds(argument) { maxAge = seconds }
            case "domain":
                var domain = argument.lowercased()
                while domain.first == "." { domain.removeFirst() }
                guard !domain.isEmpty else { continue }
                // §5.3 step 6: a domain the request's host is not in is refused; a
                // bare name (no dot: a top-level domain) only as the host itself.
                guard Cookie.domainMatches(host, domain) else { return nil }
                // §5.3 step 5: a public suffix (co.uk, github.io) only as the
                // host itself, and then the cookie is the host's alone.
                if !Cookie.isIPAddress(domain) && PublicSuffix.isPublicSuffix(domain) {
                    guard domain == host else { return nil }
                    cookie.domain = host
                    cookie.hostOnly = true
                } else if domain.contains(".") && !Cookie.isIPAddress(domain) {
                    cookie.domain = domain
                    cookie.hostOnly = false
                } else if domain != host {
                    return nil
                }
            case "path":
                if argument.first == "/" { cookie.path = String(argument) }
            case "secure": cookie.secure = true
            case "httponly": cookie.httpOnly = true
            default: break
            }
        }
        // A control character (a TAB included) is refused, as curl does: the
        // cookie file is TAB-separated, so one in a name, value or path made a
        // line that neither wspipe nor curl could read back.
        guard !Self.hasControlCharacter(cookie.name), !Self.hasControlCharacter(cookie.value),
              !Self.hasControlCharacter(cookie.path) else { return nil }
        // A Secure cookie from a connection without TLS is refused (what
        // curl and RFC 6265bis do): it would let ws:// overwrite a wss:// one.
        if cookie.secure && !secureRequest { return nil }
        // §5.3 step 3: Max-Age wins over Expires.
        if let maxAge { cookie.expires = maxAge <= 0 ? 0 : now + maxAge } else { cookie.expires = expires }
        return cookie
    }

    /// "Key=Value" trimmed, or "Key" and "".
    private static func split(_ attribute: Substring) -> (Substring, Substring) {
        guard let equals = attribute.firstIndex(of: "=") else { return (trim(attribute), "") }
        return (trim(attribute[..<equals]), trim(attribute[attribute.index(after: equals)...]))
    }

    /// §5.2.2: an optional '-' and digits; anything else ignores the attribute.
    private static func maxAgeSeconds(_ text: Substring) -> Int64? {
        let digits = text.first == "-" ? text.dropFirst() : text
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // Past 12 digits (31,000 years) the number only needs to be large.
        let number = digits.count > 12 ? 1_000_000_000_000 : Int64(digits) ?? 0
        return text.first == "-" ? -number : number
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { $0 < 0x20 || $0 == 0x7F }
    }

    static func trim(_ text: Substring) -> Substring {
        var slice = text
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }
}
