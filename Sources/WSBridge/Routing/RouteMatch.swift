/// What a route's VALUE selects (wspipe(1): ROUTING).
///
/// `.type` matches a JSON message whose type key holds exactly that string
/// (compared after unescaping, byte for byte). The special values cover the
/// messages that have no type: binary frames, text that is not JSON, and the
/// bridge's own lifecycle events; `*` is whatever nothing else matched.
public enum RouteMatch: Hashable, Sendable, CustomStringConvertible {
    case type(String)
    case binary     // "$binary"
    case text       // "$text"
    case event      // "$event"
    case fallback   // "*"

    /// The VALUE as written on the command line; nil for the empty string,
    /// which is never a useful type.
    public init?(value: String) {
        switch value {
        case "": return nil
        case "$binary": self = .binary
        case "$text": self = .text
        case "$event": self = .event
        case "*": self = .fallback
        default: self = .type(value)
        }
    }

    public var description: String {
        switch self {
        case .type(let value): return value
        case .binary: return "$binary"
        case .text: return "$text"
        case .event: return "$event"
        case .fallback: return "*"
        }
    }
}
