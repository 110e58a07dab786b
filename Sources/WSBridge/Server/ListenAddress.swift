/// `--listen [HOST:]PORT[/PATH]` (wspipe(1): OPTIONS, Server mode).
public struct ListenAddress: Equatable, Sendable {
    /// nil: every interface.
    public var host: String?
    public var port: UInt16
    /// nil: any request path is accepted.
    public var path: String?

    public init(host: String?, port: UInt16, path: String?) {
        self.host = host; self.port = port; self.path = path
    }

    public init?(parsing text: String) {
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

    var display: String {
        let h = host.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "*"
        return "\(h):\(port)\(path ?? "")"
    }
}
