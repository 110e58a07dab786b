import WSBridge
import WSTransport
import WSConnect

/// How a client reaches its server (wspipe(1): ENVIRONMENT): `--unix-socket`,
/// `--proxy`, or the proxy variables read the way curl reads them.
enum ProxySelection {
    /// `environment` looks a variable up (getenv in the program, a table in tests).
    /// `credentials` (--proxy-user, --proxy-user-file) replace those of the
    /// proxy's URL; with no proxy to give them to they are a usage error.
    static func route(for url: WebSocketURL, _ o: Options, credentials: (user: String, password: String)? = nil,
                      environment: (String) -> String? = ProxySelection.getenvironment) throws(UsageError) -> DialRoute {
        let noProxy = UsageError("--proxy-user: no proxy to authenticate to (give --proxy, or set https_proxy, http_proxy or all_proxy)")
        if let path = o.unixSocket {
            if credentials != nil { throw noProxy }
            return .unixSocket(path)
        }
        var proxy: ProxyURL
        if let flag = o.proxy {
            if flag.isEmpty {
                if credentials != nil { throw noProxy }
                return .direct
            }
            do { proxy = try ProxyURL(parsing: flag) } catch { throw UsageError("--proxy: \(error)") }
        } else {
            guard let (name, value) = fromEnvironment(secure: url.secure, environment) else {
                if credentials != nil { throw noProxy }
                return .direct
            }
            do { proxy = try ProxyURL(parsing: value) } catch { throw UsageError("\(name): \(error)") }
        }
        if let credentials {
            proxy.user = credentials.user
            proxy.password = credentials.password
        }
        let exceptions = o.noProxy ?? firstSet(["no_proxy", "NO_PROXY"], environment)?.value ?? ""
        return bypasses(url.host, exceptions) ? .direct : .proxy(proxy)
    }

    /// ws:// uses http_proxy (lower case only: HTTP_PROXY can be set by a CGI
    /// request's Proxy header, so curl ignores it), wss:// https_proxy or
    /// HTTPS_PROXY; both fall back to all_proxy or ALL_PROXY.
    static func fromEnvironment(secure: Bool, _ environment: (String) -> String?) -> (name: String, value: String)? {
        let specific = secure ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]
        return firstSet(specific + ["all_proxy", "ALL_PROXY"], environment)
    }

    /// no_proxy / --noproxy: "*" for every host; otherwise comma-separated
    /// names, each matching itself and its subdomains (a leading dot is
    /// optional), and IP addresses matching literally, as in curl.
    static func bypasses(_ host: String, _ list: String) -> Bool {
        let name = host.lowercased()
        for raw in list.split(separator: ",") {
            var entry = Substring(raw.lowercased())
            entry = entry.drop { $0 == " " || $0 == "\t" }
            while entry.last == " " || entry.last == "\t" { entry = entry.dropLast() }
            if entry == "*" { return true }
            if entry.first == "[" && entry.last == "]" { entry = entry.dropFirst().dropLast() }
            while entry.first == "." { entry = entry.dropFirst() }
            guard !entry.isEmpty else { continue }
            if name == entry || name.hasSuffix("." + entry) { return true }
        }
        return false
    }

    private static func firstSet(_ names: [String], _ environment: (String) -> String?) -> (name: String, value: String)? {
        for name in names {
            if let value = environment(name), !value.isEmpty { return (name, value) }
        }
        return nil
    }

    static func getenvironment(_ name: String) -> String? {
        ProcessEnvironment.variable(name)
    }
}
