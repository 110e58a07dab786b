import WSTransport

/// `--listen [HOST:]PORT[/PATH]` or `--listen unix:PATH` (wspipe(1): OPTIONS, Server mode).
public struct ListenAddress: Equatable, Sendable {
    /// nil: every interface.
    public var host: String?
    public var port: UInt16
    /// nil: any request path is accepted.
    public var path: String?
    /// `unix:PATH`: a Unix-domain socket at this file instead of TCP (any request path).
    public var unixPath: String?

    public init(host: String?, port: UInt16, path: String?, unixPath: String? = nil) {
        self.host = host; self.port = port; self.path = path; self.unixPath = unixPath
    }

    public init?(parsing text: String) {
        if text.hasPrefix("unix:") {
            let file = String(text.dropFirst(5))
            guard !file.isEmpty else { return nil }
            host = nil; port = 0; path = nil; unixPath = file
            return
        }
        unixPath = nil
        var rest = Substring(text)
        path = nil
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        host = nil
        if rest.first == "[" {   // [::1]:8080
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].first == ":" else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(close, offsetBy: 2)...]
        } else if let colon = rest.lastIndex(of: ":") {
            let h = rest[..<colon]
            host = h.isEmpty ? nil : String(h)
            rest = rest[rest.index(after: colon)...]
        }
        guard let p = UInt16(rest) else { return nil }
        port = p
    }

    /// Opens the listening socket this address names.
    func openListener() throws -> TCPListener {
        if let unixPath { return try TCPListener(unixPath: unixPath) }
        return try TCPListener(host: host, port: port)
    }

    /// This address with the port the system chose for port 0.
    func bound(to listener: TCPListener) -> ListenAddress {
        var shown = self
        if unixPath == nil { shown.port = listener.port }
        return shown
    }

    /// Port 0 must be reported at the default verbosity: nobody can know it otherwise.
    var needsAnnouncing: Bool { unixPath == nil && port == 0 }

    var display: String {
        if let unixPath { return "unix:" + unixPath }
        let h = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "*"
        return "\(h):\(port)\(path ?? "")"
    }
}
