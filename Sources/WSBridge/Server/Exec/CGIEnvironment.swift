import WSCore

/// The environment an --exec program gets about its client (wspipe(1):
/// OPTIONS, Server mode), in the style of CGI (RFC 3875 §4.1) as websocketd
/// sets it: who connected, to which path, with which headers.
enum CGIEnvironment {
    /// "NAME=value" entries for client `id` at `peer` ("ADDR:PORT" or
    /// "[ADDR]:PORT") that sent `request` to our `serverPort`.
    static func variables(for request: UpgradeRequest, id: Int, peer: String, serverPort: UInt16,
                          tls: Bool) -> [String] {
        let (address, port) = split(peer: peer)
        let query = request.target.firstIndex(of: "?").map { String(request.target[request.target.index(after: $0)...]) }
        var variables = [
            "GATEWAY_INTERFACE=CGI/1.1",
            "SERVER_PROTOCOL=HTTP/1.1",
            "REQUEST_METHOD=\(request.method)",
            "REQUEST_URI=\(request.target)",
            "PATH_INFO=\(request.path)",
            "QUERY_STRING=\(query ?? "")",
            "SERVER_PORT=\(serverPort)",
            "REMOTE_ADDR=\(address)",
            "REMOTE_PORT=\(port)",
            "WSPIPE_CLIENT_ID=\(id)",
        ]
        if tls { variables.append("HTTPS=on") }
        variables += headerVariables(request.headers)
        // A NUL would end the C string early; the parser never lets one through, but be sure.
        return variables.map { $0.contains("\0") ? String($0.prefix { $0 != "\0" }) : $0 }
    }

    /// RFC 3875 §4.1.18: each request header as HTTP_NAME, upper-cased with
    /// '-' as '_'; repeated headers joined with ", " (RFC 9110 §5.3).
    ///
    /// A name with anything but letters, digits and '-' is left out (as
    /// Apache does): `X_Forwarded_For` or `X.Forwarded.For` would become
    /// HTTP_X_FORWARDED_FOR too, merged ahead of the one a reverse proxy
    /// sets, and a program would trust the client's address. `Proxy` is left
    /// out: a client must not set HTTP_PROXY, which many programs take as
    /// their proxy ("httpoxy", CVE-2016-5385).
    static func headerVariables(_ headers: [(name: String, value: String)]) -> [String] {
        var order: [String] = []
        var values: [String: String] = [:]
        for header in headers where isPlainName(header.name) {
            let name = "HTTP_" + String(decoding: header.name.utf8.map(envByte), as: UTF8.self)
            if name == "HTTP_PROXY" { continue }
            if let existing = values[name] {
                values[name] = existing + ", " + header.value
            } else {
                order.append(name)
                values[name] = header.value
            }
        }
        return order.map { "\($0)=\(values[$0]!)" }
    }

    /// The names of the request headers `headerVariables` leaves out for
    /// their spelling (for the -v note), in order.
    static func droppedHeaderNames(_ headers: [(name: String, value: String)]) -> [String] {
        headers.map(\.name).filter { !isPlainName($0) }
    }

    /// Letters, digits and '-' only: the names that map to HTTP_* one to one.
    static func isPlainName(_ name: String) -> Bool {
        name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): return true
            default: return false
            }
        }
    }

    private static func envByte(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - 32
        case UInt8(ascii: "-"): return UInt8(ascii: "_")
        default: return byte
        }
    }

    /// "127.0.0.1:5000" → ("127.0.0.1", "5000"); "[::1]:5000" → ("::1", "5000").
    static func split(peer: String) -> (address: String, port: String) {
        guard let colon = peer.lastIndex(of: ":") else { return (peer, "") }
        var address = peer[..<colon]
        if address.hasPrefix("[") && address.hasSuffix("]") { address = address.dropFirst().dropLast() }
        return (String(address), String(peer[peer.index(after: colon)...]))
    }
}
