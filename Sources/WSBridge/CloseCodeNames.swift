/// Human names for close codes in messages (RFC 6455 §7.4.1).
enum CloseCodeNames {
    static func name(_ code: UInt16) -> String {
        switch code {
        case 1000: return " (normal closure)"
        case 1001: return " (going away)"
        case 1002: return " (protocol error)"
        case 1003: return " (unsupported data)"
        case 1007: return " (invalid payload data)"
        case 1008: return " (policy violation)"
        case 1009: return " (message too big)"
        case 1010: return " (mandatory extension)"
        case 1011: return " (internal error)"
        case 1012: return " (service restart)"
        case 1013: return " (try again later)"
        default: return ""
        }
    }
}
