import WSCore

/// Whether an upgrade request may become a client (wspipe(1): OPTIONS,
/// Server mode), decided before the 101: the path, the Origin
/// (--allow-origin), and room for one more (--max-clients, --once, shutting
/// down). Pure: the session says how many clients are open.
struct ClientAdmission {
    /// nil: any request path.
    var path: String?
    /// Empty: any Origin.
    var allowedOrigins: [String] = []
    /// nil: no limit.
    var maxClients: Int?

    /// nil when the request is admitted, else the HTTP answer it gets.
    /// `accepting` is false once the server stops (or --once has its client).
    func refusal(for request: UpgradeRequest, openClients: Int, accepting: Bool) -> ServerClient.HTTPRefusal? {
        if let path, request.path != path { return .init(status: 404, reason: "Not Found") }
        if !originAllowed(request.header("Origin")) { return .init(status: 403, reason: "Forbidden") }
        if !accepting { return .init(status: 503, reason: "Service Unavailable") }
        if let maxClients, openClients >= maxClients { return .init(status: 503, reason: "Service Unavailable") }
        return nil
    }

    /// RFC 6454 §7: browsers send the Origin of the page that opens a
    /// WebSocket, and the server decides whom to serve. Origins are compared
    /// ASCII case-insensitively (scheme and host are case-insensitive, §4),
    /// a trailing slash on an allowed origin ignored. A request without an
    /// Origin does not come from a browser page; any other client can send
    /// whatever Origin it likes, so refusing those would protect nothing:
    /// they are admitted.
    func originAllowed(_ origin: String?) -> Bool {
        guard !allowedOrigins.isEmpty, let origin else { return true }
        return allowedOrigins.contains { allowed in
            let trimmed = allowed.hasSuffix("/") ? String(allowed.dropLast()) : allowed
            return Self.equalIgnoringASCIICase(trimmed, origin)
        }
    }

    private static func equalIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        func lower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte }
        return a.utf8.count == b.utf8.count && a.utf8.elementsEqual(b.utf8) { lower($0) == lower($1) }
    }
}
