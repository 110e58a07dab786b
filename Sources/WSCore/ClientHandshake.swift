/// Client side of the opening handshake (RFC 6455 §4.1, §4.2.2).
public struct ClientHandshake: Sendable {
    /// base64 of 16 random bytes (§4.1: "a randomly selected 16-byte value
    /// that has been base64-encoded").
    public let key: String
    /// The GET request, CRLF line ends.
    public let requestBytes: [UInt8]

    private let expectedAccept: String
    private let offeredProtocols: [String]
    /// Sec-WebSocket-Extensions values the caller put in the extra headers.
    private let offeredExtensions: [String]
    /// We offered permessage-deflate (`DeflateNegotiation.clientOffer`).
    private let offersCompression: Bool
    private var parser = HTTPHeaderParser()
    private var result: ClientHandshakeResult?
    /// The server's response head once complete, and the bytes that came
    /// after it (the first frames, or the start of a rejection's body).
    public private(set) var response: (head: HTTPHead, rest: [UInt8])?
    /// What the server's response agreed on for permessage-deflate, once the
    /// result is `.accepted`; nil when it was not offered or the server declined.
    public private(set) var compression: DeflateParameters?

    public init(host: String,            // Host header value, with ":port" when not default
                path: String,            // path + query, e.g. "/chat?x=1"
                headers: [(name: String, value: String)],   // extra headers, in order
                protocols: [String],     // Sec-WebSocket-Protocol offers
                origin: String?,
                userAgent: String?,
                offersCompression: Bool = false,   // --compress: offer permessage-deflate (RFC 7692)
                entropy: inout EntropyPool) {
        key = Base64.encode(entropy.fill(16))
        expectedAccept = webSocketAccept(forKey: key)
        self.offersCompression = offersCompression
        var extra = headers
        if offersCompression { extra.append((name: "Sec-WebSocket-Extensions", value: DeflateNegotiation.clientOffer)) }
        offeredProtocols = protocols + extra.filter { ASCII.equalsIgnoringCase($0.name, "Sec-WebSocket-Protocol") }
            .flatMap { ASCII.commaList($0.value) }
        offeredExtensions = extra.filter { ASCII.equalsIgnoringCase($0.name, "Sec-WebSocket-Extensions") }
            .map(\.value)
        requestBytes = ClientHandshake.request(host: host, path: path, key: key, headers: extra,
                                               protocols: protocols, origin: origin, userAgent: userAgent)
    }

    /// The headers the handshake itself owns (RFC 6455 §4.1: the key and
    /// version, the upgrade; §9.1: the extensions negotiated, which --compress
    /// offers), the server's answer, and those that would frame the request
    /// otherwise (RFC 9112 §6: a GET upgrade has no body). A header given by
    /// the user (-H, --header-file, --header-command) must not be one: a
    /// second Sec-WebSocket-Key or `Connection: close` would break the
    /// handshake, or make it mean something else to a proxy.
    public static let reservedHeaders = [
        "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Accept", "Sec-WebSocket-Extensions",
        "Upgrade", "Connection", "Content-Length", "Transfer-Encoding",
    ]

    /// The reserved header `name` is (spelled as in `reservedHeaders`), if it is one.
    public static func reservedHeader(_ name: String) -> String? {
        reservedHeaders.first { ASCII.equalsIgnoringCase($0, name) }
    }

    /// §4.1 items 2-10: the request line and the headers the server needs.
    /// A Host, Origin or User-Agent among `headers` takes the place of ours
    /// rather than repeating it, as curl does with its own (the last one
    /// given wins): a server answers 400 to a second Host (RFC 9112 §3.2).
    private static func request(host: String, path: String, key: String, headers: [(name: String, value: String)],
                                protocols: [String], origin: String?, userAgent: String?) -> [UInt8] {
        var ours: [(String, String?)] = [("Host", host), ("Origin", origin), ("User-Agent", userAgent)]
        var extra: [(String, String)] = []
        for header in headers {
            if let index = ours.firstIndex(where: { ASCII.equalsIgnoringCase($0.0, header.name) }) {
                ours[index].1 = header.value
            } else {
                extra.append((header.name, header.value))
            }
        }
        var fields: [(String, String)] = [
            ("Host", ours[0].1 ?? host), ("Upgrade", "websocket"), ("Connection", "Upgrade"),
            ("Sec-WebSocket-Key", key), ("Sec-WebSocket-Version", "13"),
        ]
        if let origin = ours[1].1 { fields.append(("Origin", origin)) }
        if let userAgent = ours[2].1 { fields.append(("User-Agent", userAgent)) }
        if !protocols.isEmpty { fields.append(("Sec-WebSocket-Protocol", protocols.joined(separator: ", "))) }
        fields += extra
        var text = "GET " + oneLine(path.isEmpty ? "/" : path) + " HTTP/1.1\r\n"
        for (name, value) in fields {
            text += oneLine(name) + ": " + oneLine(value) + "\r\n"
        }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// CR and LF would end the line early and let a value inject headers.
    private static func oneLine(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A }) else { return text }
        return String(decoding: text.utf8.map { $0 == 0x0D || $0 == 0x0A ? 0x20 : $0 }, as: UTF8.self)
    }

    /// Feed response bytes until the header block ends (CRLFCRLF), limit 16 KiB.
    /// Once a result other than `.needMoreData` is returned, later calls return it again.
    public mutating func receive(_ bytes: UnsafeRawBufferPointer) -> ClientHandshakeResult {
        if let result { return result }
        let outcome: ClientHandshakeResult
        switch parser.receive(bytes) {
        case .needMoreData: return .needMoreData
        case .tooLarge: outcome = .invalid(reason: "response header too large")
        case .malformed(let reason): outcome = .invalid(reason: "malformed response: " + reason)
        case .complete(let head, let leftover):
            response = (head, leftover)
            outcome = validate(head, leftover: leftover)
        }
        result = outcome
        if case .accepted(_, let extensions, _, _) = outcome, offersCompression {
            let elements = ExtensionElement.parseList(extensions.map { [$0] } ?? []) ?? []
            if case .success(let parameters) = DeflateNegotiation.acceptedByServer(elements) { compression = parameters }
        }
        return outcome
    }

    // MARK: - Validation (§4.1, "the client MUST validate the server's response")

    private func validate(_ head: HTTPHead, leftover: [UInt8]) -> ClientHandshakeResult {
        guard let status = ClientHandshake.statusCode(head.startLine) else {
            return .invalid(reason: "malformed status line")
        }
        // §4.1 item 1: "If the status code received from the server is not 101,
        // the client handles the response per HTTP procedures".
        if status != 101 {
            return .rejected(status: status, statusLine: head.startLine, headers: head.headers)
        }
        if let problem = upgradeProblem(head) ?? acceptProblem(head) ?? protocolProblem(head)
            ?? extensionProblem(head) {
            return .invalid(reason: problem)
        }
        let extensions = head.values("Sec-WebSocket-Extensions")
        return .accepted(protocol: head.value("Sec-WebSocket-Protocol"),
                         extensions: extensions.isEmpty ? nil : extensions.joined(separator: ", "),
                         headers: head.headers, leftover: leftover)
    }

    /// "HTTP/1.x NNN reason" -> NNN.
    static func statusCode(_ line: String) -> Int? {
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].utf8.count == 3,
              let status = Int(parts[1]), status >= 100 else { return nil }
        return status
    }

    /// Items 2 and 3: Upgrade contains "websocket", Connection has the token "Upgrade".
    private func upgradeProblem(_ head: HTTPHead) -> String? {
        let upgrade = ASCII.joined(head.values("Upgrade"), separator: ",")
        if !ASCII.contains(upgrade, ignoringCase: "websocket") {
            return upgrade.isEmpty ? "missing Upgrade header" : "Upgrade header is '\(upgrade)', not websocket"
        }
        if !head.listValues("Connection").contains(where: { ASCII.equalsIgnoringCase($0, "upgrade") }) {
            return "Connection header lacks the Upgrade token"
        }
        return nil
    }

    /// Item 4: exactly one Sec-WebSocket-Accept, equal to what our key gives.
    private func acceptProblem(_ head: HTTPHead) -> String? {
        let accepts = head.values("Sec-WebSocket-Accept")
        if accepts.isEmpty { return "missing Sec-WebSocket-Accept header" }
        if accepts.count > 1 { return "duplicate Sec-WebSocket-Accept header" }
        if accepts[0] != expectedAccept { return "wrong Sec-WebSocket-Accept value" }
        return nil
    }

    /// Item 6: a subprotocol "that was not present in the client's handshake"
    /// fails the connection; so does more than one.
    private func protocolProblem(_ head: HTTPHead) -> String? {
        let selected = head.values("Sec-WebSocket-Protocol")
        if selected.isEmpty { return nil }
        if selected.count > 1 || selected[0].contains(",") { return "server selected more than one subprotocol" }
        if !offeredProtocols.contains(selected[0]) {
            return "server selected subprotocol '\(selected[0])' that was not offered"
        }
        return nil
    }

    /// Item 5: an extension "not present in the client's handshake" fails the
    /// connection. permessage-deflate's parameters are checked here when we
    /// offered it (RFC 7692 §7.1); other extensions (offered with -H) are for
    /// their own code to judge.
    private func extensionProblem(_ head: HTTPHead) -> String? {
        let values = head.values("Sec-WebSocket-Extensions")
        if values.isEmpty { return nil }
        guard let selected = ExtensionElement.parseList(values) else {
            return "malformed Sec-WebSocket-Extensions header"
        }
        let offeredNames = (ExtensionElement.parseList(offeredExtensions) ?? []).map(\.name)
        for element in selected where !offeredNames.contains(where: { ASCII.equalsIgnoringCase($0, element.name) }) {
            return "server selected extension '\(element.name)' that was not requested"
        }
        if offersCompression, case .failure(let refusal) = DeflateNegotiation.acceptedByServer(selected) {
            return refusal.description
        }
        return nil
    }
}
