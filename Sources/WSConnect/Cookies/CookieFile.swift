/// Cookie files as curl reads and writes them (wspipe(1): --cookie,
/// --cookie-jar): the Netscape format, one cookie a line of seven
/// tab-separated fields (domain, include subdomains TRUE/FALSE, path,
/// secure TRUE/FALSE, expiry in seconds since the epoch or 0 for a session
/// cookie, name, value), "#HttpOnly_" before the domain of an HttpOnly
/// cookie, '#' comments. Lines "Set-Cookie: ..." are read as headers the
/// URL given had sent.
enum CookieFile {
    static let header = "# Netscape HTTP Cookie File\n# Written by wspipe --cookie-jar, in the format of curl's cookie files.\n\n"

    /// The cookies of a file, in its order; lines that are neither are
    /// skipped (curl skips them too), expired cookies dropped.
    static func parse(_ text: String, url: WebSocketURL, now: Int64) -> [Cookie] {
        var cookies: [Cookie] = []
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            var line = raw
            if line.lowercased().hasPrefix("set-cookie:") {
                let header = String(SetCookie.trim(line.dropFirst("set-cookie:".count)))
                if let cookie = SetCookie.parse(header, host: url.host, path: url.target, secure: url.secure, now: now),
                   !cookie.expired(at: now) {
                    cookies.append(cookie)
                }
                continue
            }
            var httpOnly = false
            if line.hasPrefix("#HttpOnly_") {
                httpOnly = true
                line = line.dropFirst("#HttpOnly_".count)
            } else if line.first == "#" {
                continue
            }
            guard var cookie = netscapeLine(line) else { continue }
            cookie.httpOnly = httpOnly
            if !cookie.expired(at: now) { cookies.append(cookie) }
        }
        return cookies
    }

    private static func netscapeLine(_ line: Substring) -> Cookie? {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        // A cookie with an empty value may come without its last tab.
        guard fields.count == 7 || fields.count == 6, let expires = Int64(fields[4]), !fields[5].isEmpty else { return nil }
        var domain = fields[0].lowercased()
        while domain.first == "." { domain.removeFirst() }
        guard !domain.isEmpty else { return nil }
        return Cookie(name: String(fields[5]), value: fields.count == 7 ? String(fields[6]) : "",
                      domain: domain, hostOnly: fields[1].uppercased() != "TRUE",
                      path: fields[2].isEmpty ? "/" : String(fields[2]),
                      secure: fields[3].uppercased() == "TRUE", httpOnly: false,
                      expires: expires == 0 ? nil : expires)
    }

    /// The file for these cookies, in the order given.
    static func render(_ cookies: [Cookie]) -> String {
        var text = header
        for cookie in cookies {
            let domain = (cookie.httpOnly ? "#HttpOnly_" : "") + (cookie.hostOnly ? "" : ".") + cookie.domain
            let fields = [domain, cookie.hostOnly ? "FALSE" : "TRUE", cookie.path, cookie.secure ? "TRUE" : "FALSE",
                          String(cookie.expires ?? 0), cookie.name, cookie.value]
            text += fields.joined(separator: "\t") + "\n"
        }
        return text
    }
}
