@testable import WSCore

/// Both opening handshakes fed with arbitrary bytes, in two pieces.
enum FuzzHandshakes {
    static func client(_ input: UnsafeRawBufferPointer) {
        var entropy = EntropyPool(fixed: [7])
        var handshake = ClientHandshake(host: "example.com", path: "/", headers: [], protocols: ["chat"],
                                        origin: nil, userAgent: nil, entropy: &entropy)
        let half = input.count / 2
        let first = handshake.receive(UnsafeRawBufferPointer(rebasing: input[..<half]))
        let second = handshake.receive(UnsafeRawBufferPointer(rebasing: input[half...]))
        if case .accepted(let chosen, _, _, let leftover) = second {
            check(chosen == nil || chosen == "chat", "a subprotocol that was not offered")
            check(leftover.count <= input.count, "leftover larger than the input")
        }
        if case .needMoreData = first {} else {
            check("\(first)" == "\(second)", "the result changed after it was decided")
        }
    }

    static func server(_ input: UnsafeRawBufferPointer) {
        var handshake = ServerHandshake()
        let half = input.count / 2
        _ = handshake.receive(UnsafeRawBufferPointer(rebasing: input[..<half]))
        switch handshake.receive(UnsafeRawBufferPointer(rebasing: input[half...])) {
        case .request(let request, _):
            check(Base64.decode(request.key)?.count == 16, "accepted a key that is not 16 bytes")
            _ = ServerHandshake.acceptResponse(key: request.key, protocol: request.protocols.first)
        case .invalid(let status, let reason):
            _ = ServerHandshake.errorResponse(status: status, reason: reason, body: reason)
        case .needMoreData:
            break
        }
    }

    /// Sec-WebSocket-Extensions as a string: whatever the server accepts,
    /// its response must satisfy our own client-side check with the same
    /// parameters.
    static func extensions(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        let values = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let elements = ExtensionElement.parseList(values) {
            _ = DeflateNegotiation.acceptedByServer(elements)
        }
        guard let chosen = DeflateNegotiation.serverChoice(offers: values) else { return }
        let answer = ExtensionElement.parseList([chosen.headerValue]) ?? []
        guard case .success(let back?) = DeflateNegotiation.acceptedByServer(answer) else {
            return check(false, "our response '\(chosen.headerValue)' fails our own check")
        }
        check(back == chosen, "response parameters changed on the way: \(back) vs \(chosen)")
    }
}
