import WSTransport

/// `--listen [HOST:]PORT[/PATH]` or `--listen unix:PATH` (wspipe(1):
/// OPTIONS, Server mode). Without a HOST it listens on 127.0.0.1 only, as
/// websocat does: a debugging server must not be exposed by accident
/// (`0.0.0.0:PORT` or `[::]:PORT` expose it).
public struct ListenAddress: Equatable, Sendable {
    public static let loopback = "127.0.0.1"
    public var host: String
    public var port: UInt16
    /// nil: any request path is accepted.
    public var path: String?
    /// `unix:PATH`: a Unix-domain socket at this file instead of TCP (any request path).
    public var unixPath: String?

    public init(host: String, port: UInt16, path: String?, unixPath: String? = nil) {
        self.host = host; self.port = port; self.path = path; self.unixPath = unixPath
    }

    public init?(parsing text: String) {
        if text.hasPrefix("unix:") {
            let file = String(text.dropFirst(5))
            guard !file.isEmpty else { return nil }
            host = Self.loopback; port = 0; path = nil; unixPath = file
            return
        }
        unixPath = nil
        var rest = Substring(text)
        path = nil
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        host = Self.loopback
        if rest.first == "[" {   // [::1]:8080
            guard let close = rest.firstIndex(of: "]"), rest[rest.index(after: close)...].first == ":" else { return nil }
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            rest = rest[rest.index(close, offsetBy: 2)...]
        } else if let colon = rest.lastIndex(of: ":") {
            let h = rest[..<colon]
            host = h.isEmpty ? Self.loopback : String(h)
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

    /// What clients connect to: "ws://127.0.0.1:8863/", or "unix:PATH".
    func url(secure: Bool) -> String {
        if let unixPath { return "unix:" + unixPath }
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(h):\(port)\(path ?? "/")"
    }
}
