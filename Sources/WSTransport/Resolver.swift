#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Name resolution with getaddrinfo(3). It blocks: the listener calls it at
/// start-up, and connections go through NameLookup, which calls it on a
/// helper thread (or directly for numeric literals, which need no lookup).
enum Resolver {
    /// Every TCP address for host:port (IPv6 and IPv4) in getaddrinfo's
    /// preference order. Numeric literals ("127.0.0.1", "::1") need no lookup.
    /// `passive` asks for addresses to bind rather than connect to; `family`
    /// keeps one family only (`-4`, `-6`).
    static func resolve(host: String, port: UInt16, passive: Bool = false,
                        family: AddressFamily = .any) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = family.addrinfoFamily
        hints.ai_socktype = sockStream
        // No AI_ADDRCONFIG: it hides ::1 on hosts whose only IPv6 is loopback.
        hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0 else {
            if family != .any, let other = otherFamilyAnswers(host, port, family) { throw other }
            throw resolveError(host, rc)
        }
        defer { freeaddrinfo(list) }
        var out: [SocketAddress] = []
        var cur = list
        while let ai = cur {
            if let sa = ai.pointee.ai_addr { out.append(SocketAddress(sa, length: ai.pointee.ai_addrlen)) }
            cur = ai.pointee.ai_next
        }
        if out.isEmpty { throw TransportError("resolve \(host): no addresses") }
        return out
    }

    /// -4 or -6 and the name has no address of that family: when it has
    /// some of the other, that is what to say ("Name or service not known"
    /// would send the user looking for a typo).
    private static func otherFamilyAnswers(_ host: String, _ port: UInt16, _ family: AddressFamily) -> TransportError? {
        let other: AddressFamily = family == .ipv4 ? .ipv6 : .ipv4
        guard (try? resolve(host: host, port: port, family: other)) != nil else { return nil }
        let (wanted, flag, found) = family == .ipv6 ? ("IPv6", "-6", "IPv4") : ("IPv4", "-4", "IPv6")
        return TransportError("resolve \(host): \(host) has no \(wanted) address, only \(found) ones (\(flag) keeps to \(wanted))")
    }

    /// "resolve no.such.host: Name or service not known"; EAI_SYSTEM carries errno.
    private static func resolveError(_ host: String, _ rc: Int32) -> TransportError {
        if rc == EAI_SYSTEM { return .posix("resolve \(host)") }
        return TransportError("resolve \(host): \(String(cString: gai_strerror(rc)))")
    }

    /// True for numeric IPv4/IPv6 literals (no brackets): they get no SNI and
    /// are verified against the certificate's IP SANs, not its DNS names.
    static func isIPLiteral(_ host: String) -> Bool {
        var buf = in6_addr()
        return inet_pton(AF_INET, host, &buf) == 1 || inet_pton(AF_INET6, host, &buf) == 1
    }
}
