#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which addresses of a name a client may connect to: both families, raced
/// (RFC 8305), or only one (`-4`, `-6`, curl's flags; wspipe(1): OPTIONS,
/// Connection).
public enum AddressFamily: Sendable, Equatable {
    case any, ipv4, ipv6

    /// The `ai_family` hint for getaddrinfo(3).
    var addrinfoFamily: Int32 {
        switch self {
        case .any: return AF_UNSPEC
        case .ipv4: return AF_INET
        case .ipv6: return AF_INET6
        }
    }
}
