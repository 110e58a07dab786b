/// Close codes (RFC 6455 §7.4).
public struct CloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    public let rawValue: UInt16

    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    public init(integerLiteral value: UInt16) {
        self.rawValue = value
    }

    /// 1000: the purpose for which the connection was established has been fulfilled.
    public static let normal = CloseCode(rawValue: 1000)
    /// 1001: an endpoint is "going away" (server down, browser left the page).
    public static let goingAway = CloseCode(rawValue: 1001)
    /// 1002: terminating the connection due to a protocol error.
    public static let protocolError = CloseCode(rawValue: 1002)
    /// 1003: received a type of data it cannot accept.
    public static let unsupportedData = CloseCode(rawValue: 1003)
    /// 1005: "no status code was actually present" — never sent on the wire.
    public static let noStatus = CloseCode(rawValue: 1005)
    /// 1006: closed abnormally, without a Close frame — never sent on the wire.
    public static let abnormal = CloseCode(rawValue: 1006)
    /// 1007: data within a message was not consistent with its type (e.g. non-UTF-8 text).
    public static let invalidPayload = CloseCode(rawValue: 1007)
    /// 1008: a message violates the endpoint's policy.
    public static let policyViolation = CloseCode(rawValue: 1008)
    /// 1009: a message is too big to process.
    public static let messageTooBig = CloseCode(rawValue: 1009)
    /// 1010: the client expected the server to negotiate an extension.
    public static let mandatoryExtension = CloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalError = CloseCode(rawValue: 1011)
    /// 1012: service restart (IANA "WebSocket Close Code Number Registry").
    public static let serviceRestart = CloseCode(rawValue: 1012)
    /// 1013: try again later (IANA registry).
    public static let tryAgainLater = CloseCode(rawValue: 1013)
    /// 1014: bad gateway (IANA registry).
    public static let badGateway = CloseCode(rawValue: 1014)

    /// May this code appear in a Close frame on the wire?
    ///
    /// RFC 6455 §7.4.1 defines 1000-1003 and 1007-1011; 1004 is reserved and
    /// 1005, 1006 and 1015 "MUST NOT be set as a status code in a Close control
    /// frame". §7.4.2: 0-999 are not used, 1000-2999 are reserved for the
    /// protocol and its registered extensions, 3000-4999 are for libraries,
    /// frameworks and applications. 1012-1014 were registered with IANA after
    /// the RFC and real servers send them (1012 on restarts), so they are
    /// accepted; every other 1xxx/2xxx code is not.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    public var description: String { String(rawValue) }

    /// The code's name for messages (RFC 6455 §7.4.1 and the IANA registry),
    /// nil for codes without one (4000-4999 belong to the application).
    public var name: String? {
        switch rawValue {
        case 1000: return "normal closure"
        case 1001: return "going away"
        case 1002: return "protocol error"
        case 1003: return "unsupported data"
        case 1005: return "no status code"
        case 1006: return "abnormal closure"
        case 1007: return "invalid payload data"
        case 1008: return "policy violation"
        case 1009: return "message too big"
        case 1010: return "mandatory extension"
        case 1011: return "internal error"
        case 1012: return "service restart"
        case 1013: return "try again later"
        case 1014: return "bad gateway"
        default: return nil
        }
    }
}
