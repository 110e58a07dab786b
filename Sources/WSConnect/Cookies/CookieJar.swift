import WSTransport

/// The client's cookies (wspipe(1): --cookie, --cookie-jar): those of a
/// cookie file, and those every handshake response sets (3xx and 101
/// alike), sent with each request they match, reconnections included.
/// With --cookie-jar, the file is rewritten whenever a response changed
/// the cookies, so a run that is killed still leaves them.
///
/// Bounded whatever servers send (RFC 6265 §6.1's floors): 50 cookies a
/// domain, 3000 in all, the oldest going first.
public final class CookieJar {
    private(set) var cookies: [Cookie] = []
    /// --cookie-jar FILE.
    let savePath: String?
    private var nextCreation = 0
    /// The jar holds something the file does not yet.
    private(set) var unsaved = false

    static let perDomain = 50
    static let total = 3000

    init(cookies: [Cookie] = [], savePath: String?) {
        self.savePath = savePath
        for cookie in cookies { store(cookie, now: nil) }
        unsaved = !cookies.isEmpty
    }

    /// A jar with the cookies of `fileText` (a cookie file's content, read
    /// by the caller), for requests to `url`.
    public convenience init(fileText: String?, url: WebSocketURL, savePath: String?) {
        self.init(cookies: fileText.map { CookieFile.parse($0, url: url, now: wallClockSeconds()) } ?? [],
                  savePath: savePath)
    }

    /// "a=b; c=d" for a request to `url`, longer paths first (§5.4); nil
    /// when no cookie matches.
    func header(for url: WebSocketURL, now: Int64) -> String? {
        let path = url.target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? "/"
        let matching = cookies.filter { !$0.expired(at: now) && $0.matches(host: url.host, path: path, secure: url.secure) }
            .sorted { $0.path.count != $1.path.count ? $0.path.count > $1.path.count : $0.created < $1.created }
        guard !matching.isEmpty else { return nil }
        return matching.map { $0.name + "=" + $0.value }.joined(separator: "; ")
    }

    /// Stores the Set-Cookie headers of a response to `url`; true when
    /// the jar changed.
    @discardableResult
    func receive(_ headers: [(name: String, value: String)], from url: WebSocketURL, now: Int64) -> Bool {
        var changed = false
        for header in headers where header.name.lowercased() == "set-cookie" {
            if let cookie = SetCookie.parse(header.value, host: url.host, path: url.target, secure: url.secure, now: now) {
                store(cookie, now: now)
                changed = true
            }
        }
        if changed { unsaved = true }
        return changed
    }

    /// Adds or replaces (§5.3 step 11: the creation time is kept); an
    /// expired cookie only removes its namesake.
    private func store(_ cookie: Cookie, now: Int64?) {
        let old = cookies.firstIndex { $0.sameIdentity(cookie) }
        if let now, cookie.expired(at: now) {
            if let old { cookies.remove(at: old) }
            return
        }
        var cookie = cookie
        if let old {
            cookie.created = cookies[old].created
            cookies[old] = cookie
            return
        }
        cookie.created = nextCreation
        nextCreation += 1
        cookies.append(cookie)
        if cookies.filter({ $0.domain == cookie.domain }).count > Self.perDomain,
           let oldest = cookies.firstIndex(where: { $0.domain == cookie.domain }) {
            cookies.remove(at: oldest)
        }
        if cookies.count > Self.total { cookies.removeFirst() }
    }

    /// Writes the jar file when something is not in it yet; nil when done
    /// (or nothing to do), else what failed.
    package func save(now: Int64) -> String? {
        guard let savePath, unsaved else { return nil }
        let live = cookies.filter { !$0.expired(at: now) }
        if let error = PrivateFile.replace(savePath, with: Array(CookieFile.render(live).utf8)) {
            return "cannot write the cookie jar \(savePath): \(error)"
        }
        unsaved = false
        return nil
    }
}
