import WSMessages
/// stdin lines addressed with --tag (wspipe(1): OPTIONS, Server mode): a
/// line with a `"$client":N` member goes to client N only, with the member
/// removed byte-exactly. What remains may be a `$text`/`$binary` envelope
/// (the form --tag writes them in), which is unwrapped as usual.
struct AddressedLines {
    /// Why an addressed line could not be sent.
    struct Undeliverable: Error { var reason: String }

    /// The line without its "$client" member.
    private var rest: [UInt8] = []
    private var envelopes = EnvelopeDecoder()
    /// --codec: what remains becomes a message as a stdin line does
    /// (envelopes unwrapped, anything else encoded).
    var codecLines: InputTranslator?

    /// Sends `json` (valid JSON with a "$client" member at `address`) through
    /// `send` to the client it names; false when that client takes nothing now.
    mutating func deliver(_ json: UnsafeRawBufferPointer, at address: ClientTag.Address, registry: ClientRegistry,
                          send: (OutgoingMessage, ServerClient) -> Bool) throws(Undeliverable) -> Bool {
        guard let id = address.client else {
            let value = String(decoding: UnsafeRawBufferPointer(rebasing: json[address.value]).prefix(40), as: UTF8.self)
            throw Undeliverable(reason: "\"$client\" must be a client number, not \(value)")
        }
        guard let client = registry.openClient(id: id) else { throw Undeliverable(reason: "no client \(id) connected") }
        rest.removeAll(keepingCapacity: true)
        ClientTag.appendRemoving(address.removal, from: json, into: &rest)
        if codecLines != nil {
            var sent = false
            let outcome = rest.withUnsafeBytes { line in codecLines!.translate(line) { sent = send($0, client) } }
            if case .rejected(let rejection) = outcome { throw Undeliverable(reason: rejection.reason) }
            return sent
        }
        let outcome: Result<Bool, Undeliverable> = rest.withUnsafeBytes { line in
            envelopes.decode(line) { decoded in
                switch decoded {
                case .notEnvelope: return .success(send(.text(line), client))
                case .text(let text): return .success(send(.text(text), client))
                case .binary(let bytes): return .success(send(.binary(bytes), client))
                case .invalidBase64: return .failure(Undeliverable(reason: "invalid base64 in $binary"))
                case .loneSurrogate: return .failure(Undeliverable(reason: "invalid $text: lone surrogate"))
                }
            }
        }
        return try outcome.get()
    }
}
