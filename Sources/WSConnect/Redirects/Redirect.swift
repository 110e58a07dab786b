import WSTerminal
/// What to do with a 3xx answer to the upgrade request (wspipe(1): OPTIONS,
/// Connection, -L): where it leads, or why it is not followed. Pure: the
/// connector asks, then dials the next URL itself.
///
/// A WebSocket handshake is always a GET, so 301, 302 and 303 are followed
/// exactly like 307 and 308 (RFC 9110 §15.4). http:// and https:// in a
/// Location are the same servers' ws:// and wss:// (RFC 6455 §3: the same
/// ports and the same request).
enum Redirect {
    /// The statuses -L follows.
    static let statuses: Set<Int> = [301, 302, 303, 307, 308]

    enum Decision: Equatable {
        case follow(WebSocketURL)
        /// Not followed, with why, for the user.
        case refuse(String)
    }

    /// `redirectsSoFar`: redirects already followed in this attempt.
    static func decide(status: Int, location: String?, from current: WebSocketURL, redirectsSoFar: Int,
                       options: RedirectOptions) -> Decision {
        guard let location, !location.isEmpty else {
            return .refuse("the server answered \(status) without a Location header")
        }
        guard redirectsSoFar < options.maxRedirects else {
            return .refuse("stopped after \(options.maxRedirects) redirect(s) (--max-redirs); "
                + "\(current.display) redirects again (\(status))")
        }
        let target: WebSocketURL
        switch resolve(location, against: current) {
        case .success(let url): target = url
        case .failure(let problem): return .refuse("redirected (\(status)) to '\(TerminalEscaping.escaping(location))': \(problem.text)")
        }
        if current.secure && !target.secure && !options.allowDowngrade {
            return .refuse("refused to follow a redirect (\(status)) from \(current.display) to \(target.display): "
                + "it leaves TLS (--location-downgrade allows it)")
        }
        return .follow(target)
    }

    struct Problem: Error, Equatable { let text: String }

    /// A Location (an absolute URL, `//host/path`, `/path`, `path` or
    /// `?query`) resolved against the URL that answered (RFC 3986 §5.2),
    /// with http and https read as ws and wss.
    static func resolve(_ location: String, against base: WebSocketURL) -> Result<WebSocketURL, Problem> {
        let trimmedLocation = trimmed(location)
        if trimmedLocation.contains(where: { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) }) {
            return .failure(Problem(text: "the Location contains control characters"))
        }
        let reference = Substring(percentEncodingPath(trimmedLocation))
        let absolute: String
        if let colon = schemeEnd(reference) {
            let scheme = reference[..<colon].lowercased()
            guard let mapped = webSocketScheme[scheme] else {
                return .failure(Problem(text: "\(scheme):// is not a WebSocket or HTTP URL"))
            }
            absolute = mapped + reference[colon...]
        } else if reference.hasPrefix("//") {
            absolute = (base.secure ? "wss:" : "ws:") + reference
        } else {
            absolute = origin(of: base) + relativeTarget(reference, base: base.target)
        }
        do {
            return .success(try WebSocketURL(parsing: absolute))
        } catch {
            return .failure(Problem(text: "\(error)"))
        }
    }

    /// Same scheme, host and port: what curl calls the same host, where
    /// credentials may go (CVE-2022-27776: a change of port or scheme counts).
    static func sameOrigin(_ a: WebSocketURL, _ b: WebSocketURL) -> Bool {
        a.secure == b.secure && a.port == b.port && a.host.lowercased() == b.host.lowercased()
    }

    private static let webSocketScheme = ["ws": "ws", "wss": "wss", "http": "ws", "https": "wss"]

    /// The reference with every byte of its path and query that a request
    /// line cannot carry (a space, a byte past ASCII: `/café` as the UTF-8
    /// the header was read as) percent-encoded, as curl does (RFC 3986
    /// §2.1); a `%` already there stays. The scheme and authority are kept
    /// as they are: a host is not percent-encoded.
    static func percentEncodingPath(_ reference: Substring) -> String {
        var pathStart = reference.startIndex
        if let colon = schemeEnd(reference) { pathStart = reference.index(after: colon) }
        if reference[pathStart...].hasPrefix("//") {
            let authority = reference.index(pathStart, offsetBy: 2)
            pathStart = reference[authority...].firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? reference.endIndex
        }
        let path = reference[pathStart...]
        guard path.utf8.contains(where: { $0 >= 0x80 || $0 == 0x20 }) else { return String(reference) }
        var encoded = String(reference[..<pathStart])
        for byte in path.utf8 {
            if byte >= 0x80 || byte == 0x20 {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 15, radix: 16, uppercase: true)
            } else {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return encoded
    }

    /// The end of a URI scheme (RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":").
    private static func schemeEnd(_ text: Substring) -> Substring.Index? {
        guard let first = text.first, first.isASCII, first.isLetter, let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        let valid = scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
        return valid ? colon : nil
    }

    private static func trimmed(_ text: String) -> Substring {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return slice
    }

    /// "ws://user@host:port" of the base: a relative reference keeps its
    /// authority, user information included (§5.2.2).
    private static func origin(of base: WebSocketURL) -> String {
        (base.secure ? "wss://" : "ws://") + (base.userInfo.map { $0 + "@" } ?? "") + base.hostHeader
    }

    /// The path and query of a reference without scheme or authority, merged
    /// with the base's path (§5.2.2, §5.2.3) and without dot segments (§5.2.4).
    static func relativeTarget(_ reference: Substring, base: String) -> String {
        let reference = reference.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let (basePath, baseQuery) = splitQuery(Substring(base))
        if reference.isEmpty { return String(basePath) + (baseQuery.map { "?" + $0 } ?? "") }
        if reference.first == "?" { return String(basePath) + reference }
        let (path, query) = splitQuery(reference)
        let merged: String
        if path.first == "/" {
            merged = String(path)
        } else {
            let directory = basePath.lastIndex(of: "/").map { basePath[...$0] } ?? "/"
            merged = String(directory) + path
        }
        return removingDotSegments(merged) + (query.map { "?" + $0 } ?? "")
    }

    private static func splitQuery(_ text: Substring) -> (path: Substring, query: Substring?) {
        guard let mark = text.firstIndex(of: "?") else { return (text, nil) }
        return (text[..<mark], text[text.index(after: mark)...])
    }

    /// RFC 3986 §5.2.4 on an absolute path: "." segments go, ".." takes the
    /// segment before it with it (never above the root).
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }
}
