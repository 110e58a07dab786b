import WSConnect
/// A curl command's words read with curl's meanings (curl(1)) and said as
/// wspipe's flags: what `wspipe curl` runs, or prints with --print.
///
/// The headers a browser copies are read by their names: Origin and
/// User-Agent become --origin and --user-agent, Sec-WebSocket-Protocol one
/// --protocol per name, Sec-WebSocket-Extensions: permessage-deflate
/// --compress; those the handshake makes itself (Sec-WebSocket-Key, -Version,
/// Upgrade, Connection, Host) and Accept-Encoding are dropped, each with a
/// note for -v. Cookie and Authorization stay headers, kept apart as the
/// secrets --print moves into a file.
struct CurlTranslation {
    /// One thing the command says, as wspipe says it.
    enum Item: Equatable {
        /// A flag of wspipe by its long name; nil value for a switch.
        case flag(String, String?)
        /// A Cookie or Authorization header.
        case secretHeader(name: String, value: String)
        /// --user USER:PASSWORD.
        case user(String)
        /// --proxy-user USER:PASSWORD.
        case proxyUser(String)
    }

    var url: String? = nil
    var items: [Item] = []
    /// What was dropped or read differently, for -v.
    var notes: [String] = []
    /// The options that cannot be honoured, each with why.
    var refusals: [String] = []
    /// Whether curl's -v was given (the notes are said then, with --print too).
    var verbose: Bool { items.contains(.flag("verbose", nil)) }

    /// The words, without the leading "curl" (which is optional).
    init(_ words: [String]) throws(UsageError) {
        var words = words[...]
        if let first = words.first, ["curl", "curl.exe"].contains(first.lowercased()) { words = words.dropFirst() }
        var cookies: [String] = []
        var cookieFile: String? = nil
        while let word = words.first {
            words = words.dropFirst()
            if word.hasPrefix("-") && word.count > 1 {
                for (option, value) in try options(word, &words) {
                    try read(option, value, &cookies, &cookieFile)
                }
            } else {
                try setURL(word)
            }
        }
        if !refusals.isEmpty {
            throw UsageError("curl: cannot honour " + refusals.joined(separator: "; "))
        }
        if let cookieFile { items.append(.flag("cookie", cookieFile)) }
        if !cookies.isEmpty { mergeSecret("Cookie", cookies.joined(separator: "; ")) }
        guard url != nil else { throw UsageError("curl: the command has no URL") }
    }

    /// The option (or the options of a bundle such as -sSL) that `word`
    /// starts, each with its value, taken from the words after it when not
    /// attached.
    private func options(_ word: String,
                         _ rest: inout ArraySlice<String>) throws(UsageError) -> [(CurlOption, String?)] {
        if word.hasPrefix("--") {
            var name = word.dropFirst(2)
            var inline: String? = nil
            if CurlOption.find(long: name) == nil, let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = name[..<equals]
            }
            guard let option = CurlOption.find(long: name) else {
                throw UsageError("curl: unknown option '\(word)'; wspipe curl reads the options of "
                                 + "'wspipe curl --help' (give wspipe's own after --)")
            }
            guard option.takesValue else { return [(option, nil)] }
            if let inline { return [(option, inline)] }
            guard let value = rest.first else { throw UsageError("curl: missing value for \(word)") }
            rest = rest.dropFirst()
            return [(option, value)]
        }
        var result: [(CurlOption, String?)] = []
        var letters = word.dropFirst()
        while let letter = letters.first {
            letters = letters.dropFirst()
            guard let option = CurlOption.find(short: letter) else {
                throw UsageError("curl: unknown option '-\(letter)'; wspipe curl reads the options of "
                                 + "'wspipe curl --help' (give wspipe's own after --)")
            }
            guard option.takesValue else { result.append((option, nil)); continue }
            if !letters.isEmpty { return result + [(option, String(letters))] }
            guard let value = rest.first else { throw UsageError("curl: missing value for -\(letter)") }
            rest = rest.dropFirst()
            return result + [(option, value)]
        }
        return result
    }

    private mutating func read(_ option: CurlOption, _ value: String?, _ cookies: inout [String],
                               _ cookieFile: inout String?) throws(UsageError) {
        let v = value ?? ""
        let spelled = option.short.map { "-\($0)" } ?? "--\(option.long)"
        switch option.meaning {
        case .header: try header(v)
        case .cookie:
            if v.contains("=") { cookies.append(v) }
            else if cookieFile == nil { cookieFile = v }
            else { refusals.append("a second cookie file (-b \(v)): wspipe reads one") }
        case .flag("proxy-user"): items.append(.proxyUser(v))
        case .flag(let long): items.append(.flag(long, value))
        case .url: try setURL(v)
        case .user:
            guard v.contains(":") else {
                return refusals.append("-u without a password (curl would ask for it): give -u USER:PASSWORD")
            }
            items.append(.user(v))
        case .proxy:
            items.append(.flag("proxy", v.isEmpty || v.contains("://") ? v : "http://" + v))
        case .referer:
            var referer = Substring(v)
            if referer.hasSuffix(";auto") {
                referer = referer.dropLast(5)
                notes.append("curl: -e ';auto' dropped: a redirect gets no Referer")
            }
            if !referer.isEmpty { items.append(.flag("header", "Referer: \(referer)")) }
        case .method:
            guard v.uppercased() == "GET" else { return refusals.append("-X \(v): a WebSocket handshake is a GET") }
            notes.append("curl: -X GET dropped: the handshake is a GET")
        case .bearer: mergeSecret("Authorization", "Bearer \(v)")
        case .dropped(let why): notes.append("curl: \(spelled) dropped: \(why)")
        case .refused(let why): refusals.append("\(spelled): \(why)")
        }
    }

    /// The one URL; http(s):// as ws(s)://, as -L reads a Location.
    private mutating func setURL(_ text: String) throws(UsageError) {
        guard url == nil else { throw UsageError("curl: more than one URL ('\(url!)' and '\(text)')") }
        let lower = text.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let secure = lower.hasPrefix("https://")
            url = (secure ? "wss://" : "ws://") + text.dropFirst(secure ? 8 : 7)
            notes.append("curl: \(secure ? "https" : "http"):// read as \(secure ? "wss" : "ws")://")
        } else {
            url = text
        }
    }

    /// One -H, by its name (curl's forms: "Name: value", "Name;" for an
    /// empty value, "Name:" to remove a header of curl's own, @FILE).
    private mutating func header(_ text: String) throws(UsageError) {
        if text.hasPrefix("@") { return items.append(.flag("header-file", String(text.dropFirst()))) }
        let name: String
        let value: String
        if let colon = text.firstIndex(of: ":") {
            name = String(text[..<colon])
            value = String(text[text.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            if value.allSatisfy({ $0 == " " || $0 == "\t" }) {
                return notes.append("curl: -H '\(name):' dropped: curl's way to leave out a header of its own")
            }
        } else if text.hasSuffix(";") {
            name = String(text.dropLast())
            value = ""
        } else {
            throw UsageError("curl: -H '\(text)': expected 'Name: value'")
        }
        guard FlagValue.isToken(name) else {
            return notes.append("curl: -H '\(text)' dropped: not an HTTP/1.1 header name")
        }
        switch name.lowercased() {
        case "sec-websocket-key":
            notes.append("curl: \(name) dropped: wspipe makes a new key for each handshake")
        case "sec-websocket-version", "upgrade", "connection", "sec-websocket-accept":
            notes.append("curl: \(name) dropped: the WebSocket handshake sends its own")
        case "host":
            notes.append("curl: \(name) dropped: it comes from the URL")
        case "accept-encoding":
            notes.append("curl: \(name) dropped: a WebSocket handshake has no body to compress "
                         + "(permessage-deflate is --compress)")
        case "content-length", "transfer-encoding":
            notes.append("curl: \(name) dropped: \(CurlOption.noBody)")
        case "sec-websocket-protocol":
            for protocolName in value.split(separator: ",") {
                let trimmed = protocolName.trimmingBlanks()
                if !trimmed.isEmpty { items.append(.flag("protocol", trimmed)) }
            }
            notes.append("curl: \(name): \(value) read as --protocol")
        case "sec-websocket-extensions":
            extensions(name, value)
        case "origin": items.append(.flag("origin", value))
        case "user-agent": items.append(.flag("user-agent", value))
        case "cookie", "authorization", "proxy-authorization": mergeSecret(name, value)
        default: items.append(.flag("header", value.isEmpty ? "\(name):" : "\(name): \(value)"))
        }
    }

    /// permessage-deflate is --compress (wspipe makes its own offer); other
    /// extensions are dropped.
    private mutating func extensions(_ name: String, _ value: String) {
        for offer in value.split(separator: ",") {
            let token = offer.split(separator: ";").first.map { $0.trimmingBlanks() } ?? ""
            if token.lowercased() == "permessage-deflate" {
                if !items.contains(.flag("compress", nil)) {
                    items.append(.flag("compress", nil))
                    notes.append("curl: \(name): permessage-deflate read as --compress (wspipe makes its own offer)")
                }
            } else if !token.isEmpty {
                notes.append("curl: \(name): \(token) dropped: wspipe offers permessage-deflate only")
            }
        }
    }

    /// A Cookie or Authorization header; a second Cookie joins the first
    /// (one Cookie header, RFC 6265 §5.4).
    private mutating func mergeSecret(_ name: String, _ value: String) {
        if name.lowercased() == "cookie",
           let index = items.firstIndex(where: { if case .secretHeader(let n, _) = $0 { n.lowercased() == "cookie" } else { false } }),
           case .secretHeader(let n, let old) = items[index] {
            items[index] = .secretHeader(name: n, value: old + "; " + value)
            return
        }
        items.append(.secretHeader(name: name, value: value))
    }

    /// The wspipe arguments that run the command: the flags, then the URL.
    var arguments: [String] {
        var args: [String] = []
        for item in items {
            switch item {
            case .flag(let long, let value): args += ["--" + long] + (value.map { [$0] } ?? [])
            case .secretHeader(let name, let value): args += ["--header", "\(name): \(value)"]
            case .user(let credentials): args += ["--user", credentials]
            case .proxyUser(let credentials): args += ["--proxy-user", credentials]
            }
        }
        return args + [url ?? ""]
    }
}

extension StringProtocol {
    /// Without the spaces and tabs around it.
    func trimmingBlanks() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
