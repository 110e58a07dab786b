/// What a permessage-deflate negotiation agreed on (RFC 7692 §7.1), as the
/// response that accepted it says, and what each side must do with it.
public struct DeflateParameters: Hashable, Sendable {
    /// §7.1.1.1: the server resets its compression context after each message.
    public var serverNoContextTakeover = false
    /// §7.1.1.2: the client resets its compression context after each message.
    public var clientNoContextTakeover = false
    /// §7.1.2.1: the server compresses with a window of at most 2^N bytes.
    public var serverMaxWindowBits: Int?
    /// §7.1.2.2: the client compresses with a window of at most 2^N bytes.
    public var clientMaxWindowBits: Int?

    public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                serverMaxWindowBits: Int? = nil, clientMaxWindowBits: Int? = nil) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// The extension's name in Sec-WebSocket-Extensions (RFC 7692 §7).
    public static let extensionName = "permessage-deflate"

    /// "permessage-deflate; ..." as a server's response that accepts with
    /// these parameters (also what `--trace`-style diagnostics can show).
    public var headerValue: String {
        var text = DeflateParameters.extensionName
        if serverNoContextTakeover { text += "; server_no_context_takeover" }
        if clientNoContextTakeover { text += "; client_no_context_takeover" }
        if let bits = serverMaxWindowBits { text += "; server_max_window_bits=\(bits)" }
        if let bits = clientMaxWindowBits { text += "; client_max_window_bits=\(bits)" }
        return text
    }

    /// Whether `role` resets its compressor after every message it sends.
    func sendsWithoutContextTakeover(_ role: Role) -> Bool {
        role == .client ? clientNoContextTakeover : serverNoContextTakeover
    }

    /// Whether the peer of `role` resets its compressor after every message,
    /// so our decompressor may too.
    func receivesWithoutContextTakeover(_ role: Role) -> Bool {
        role == .client ? serverNoContextTakeover : clientNoContextTakeover
    }

    /// The window `role` compresses with: the negotiated maximum, 15 without one.
    ///
    /// zlib refuses a 256-byte window (8) for raw deflate streams and uses 9
    /// instead (zlib 1.2.9 and later; deflateInit2 in zlib.h). That still keeps
    /// the limit an 8 promises: zlib's deflate never emits a match distance
    /// beyond the window size minus MIN_LOOKAHEAD (262 bytes), which for a
    /// 512-byte window is 250 bytes, within the 256 bytes an 8-bit
    /// decompressor keeps. So 8 is compressed with 9, as other
    /// implementations of RFC 7692 do.
    func sendWindowBits(_ role: Role) -> Int {
        max(9, (role == .client ? clientMaxWindowBits : serverMaxWindowBits) ?? 15)
    }
}
