/// `--listen [HOST:]PORT[/PATH]` (wspipe(1): OPTIONS, Server mode). Without
/// a HOST it listens on 127.0.0.1 only, as websocat does: a debugging server
/// must not be exposed by accident (`0.0.0.0:PORT` or `[::]:PORT` expose it).
public struct ListenAddress: Equatable, Sendable {
    public static let loopback = "127.0.0.1"
    public var host: String
    public var port: UInt16
    /// nil: any request path is accepted.
    public var path: String?

    public init(host: String, port: UInt16, path: String?) {
        self.host = host; self.port = port; self.path = path
    }

    public init?(parsing text: String) {
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

    /// The URL clients connect to: "ws://127.0.0.1:8863/".
    func url(secure: Bool) -> String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(h):\(port)\(path ?? "/")"
    }
}
