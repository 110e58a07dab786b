/// The permessage-deflate handshake (RFC 7692 §5, §7.1): the client's offer,
/// the client's strict check of the server's answer, and the server's choice
/// among the client's offers.
public enum DeflateNegotiation {
    /// What `--compress` offers: permessage-deflate with every default, and
    /// client_max_window_bits without a value (§7.1.2.2: "the client supports
    /// the client_max_window_bits extension parameter in an extension
    /// negotiation response"), so a server may ask for a smaller window.
    public static let clientOffer = DeflateParameters.extensionName + "; client_max_window_bits"

    /// The client's check of the elements of a response's
    /// Sec-WebSocket-Extensions. §7.1: "A client MUST _Fail the WebSocket
    /// Connection_ if the peer server accepted an extension negotiation offer
    /// for this extension with an extension negotiation response meeting any
    /// of the following conditions": a parameter not defined for a response,
    /// an invalid value, the same parameter twice, or a configuration the
    /// client does not support. nil parameters: the server declined.
    public static func acceptedByServer(_ elements: [ExtensionElement]) -> Result<DeflateParameters?, Refusal> {
        let accepted = elements.filter { ASCII.equalsIgnoringCase($0.name, DeflateParameters.extensionName) }
        guard let response = accepted.first else { return .success(nil) }
        if accepted.count > 1 { return .failure(Refusal("permessage-deflate accepted more than once")) }
        var parameters = DeflateParameters()
        var seen: [String] = []
        for parameter in response.parameters {
            let name = parameter.name.lowercased()
            if seen.contains(name) { return .failure(Refusal("permessage-deflate parameter \(name) given twice")) }
            seen.append(name)
            switch (name, parameter.value) {
            case ("server_no_context_takeover", nil): parameters.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): parameters.clientNoContextTakeover = true
            // §7.1.2.1 and §7.1.2.2: in a response both have a value, 8 to 15.
            case ("server_max_window_bits", let value?) where windowBits(value) != nil:
                parameters.serverMaxWindowBits = windowBits(value)
            case ("client_max_window_bits", let value?) where windowBits(value) != nil:
                parameters.clientMaxWindowBits = windowBits(value)
            default:
                return .failure(Refusal("permessage-deflate response parameter '\(describe(parameter))' is not valid"))
            }
        }
        return .success(parameters)
    }

    /// The server's choice: the first permessage-deflate offer among the
    /// values of the request's Sec-WebSocket-Extensions that it can accept,
    /// and the parameters of its response (`headerValue`). nil: none (a
    /// malformed header is no offer at all; the upgrade goes on uncompressed).
    ///
    /// §7.1: "A server MUST decline an extension negotiation offer for this
    /// extension if any of the following conditions are met": a parameter not
    /// defined for an offer, an invalid value, the same parameter twice, or a
    /// configuration the server does not support (we support every one). The
    /// response repeats the offer's no_context_takeover parameters and its
    /// server_max_window_bits (§7.1.2.1: "the same or smaller value as the
    /// offer"); it leaves out client_max_window_bits, which §7.1.2.2 makes
    /// optional: our decompressor always keeps a 32 KiB window.
    public static func serverChoice(offers values: [String]) -> DeflateParameters? {
        guard let elements = ExtensionElement.parseList(values) else { return nil }
        for offer in elements where ASCII.equalsIgnoringCase(offer.name, DeflateParameters.extensionName) {
            if let parameters = acceptable(offer) { return parameters }
        }
        return nil
    }

    /// One offer's parameters as the server's response would confirm them,
    /// or nil if the offer must be declined.
    private static func acceptable(_ offer: ExtensionElement) -> DeflateParameters? {
        var parameters = DeflateParameters()
        var seen: [String] = []
        for parameter in offer.parameters {
            let name = parameter.name.lowercased()
            if seen.contains(name) { return nil }
            seen.append(name)
            switch (name, parameter.value) {
            case ("server_no_context_takeover", nil): parameters.serverNoContextTakeover = true
            case ("client_no_context_takeover", nil): parameters.clientNoContextTakeover = true
            case ("server_max_window_bits", let value?) where windowBits(value) != nil:
                parameters.serverMaxWindowBits = windowBits(value)
            // In an offer the value is optional (a hint we do not need).
            case ("client_max_window_bits", nil): break
            case ("client_max_window_bits", let value?) where windowBits(value) != nil: break
            default: return nil
            }
        }
        return parameters
    }

    /// §7.1.2.1: "a decimal integer value without leading zeros between 8 to
    /// 15, inclusive".
    static func windowBits(_ text: String) -> Int? {
        guard let first = text.utf8.first, first != UInt8(ascii: "0"), text.utf8.count <= 2,
              text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = Int(text), (8...15).contains(value) else { return nil }
        return value
    }

    private static func describe(_ parameter: ExtensionElement.Parameter) -> String {
        parameter.value.map { parameter.name + "=" + $0 } ?? parameter.name
    }

    /// Why a response's permessage-deflate parameters fail the handshake.
    public struct Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
