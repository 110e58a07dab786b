#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4 or IPv6 socket address (a copy of what getaddrinfo, accept or
/// getsockname returned), printable as "127.0.0.1:9" or "[::1]:9".
struct SocketAddress: CustomStringConvertible {
    private var storage = sockaddr_storage()
    private(set) var length: socklen_t = 0

    init(_ address: UnsafePointer<sockaddr>, length: socklen_t) {
        let n = min(Int(length), MemoryLayout<sockaddr_storage>.size)
        withUnsafeMutableBytes(of: &storage) { dst in
            dst.copyMemory(from: UnsafeRawBufferPointer(start: address, count: n))
        }
        self.length = socklen_t(n)
    }

    /// Fills the address with `body` (accept, getsockname); nil when it fails.
    init?(filling body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Bool) {
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, &len) }
        }
        guard ok else { return nil }
        length = len
    }

    var family: Int32 { Int32(storage.ss_family) }

    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    var port: UInt16 {
        withSockAddr { sa, _ in
            if sa.pointee.sa_family == sa_family_t(AF_INET6) {
                return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// The numeric host; IPv4-mapped IPv6 addresses (peers on a dual-stack
    /// listener) print as plain IPv4 because that is what the user connected from.
    var host: String {
        withSockAddr { sa, _ in
            if sa.pointee.sa_family == sa_family_t(AF_INET) {
                return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                    var a = p.pointee.sin_addr
                    return SocketAddress.ntop(AF_INET, &a)
                }
            }
            return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                var a = p.pointee.sin6_addr
                let text = SocketAddress.ntop(AF_INET6, &a)
                return text.hasPrefix("::ffff:") && text.contains(".") ? String(text.dropFirst(7)) : text
            }
        }
    }

    /// "host:port", with brackets around IPv6 hosts (RFC 3986 §3.2.2 style).
    var description: String {
        let h = host
        return h.contains(":") ? "[\(h)]:\(port)" : "\(h):\(port)"
    }

    private static func ntop(_ family: Int32, _ addr: UnsafeRawPointer) -> String {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, addr, &buf, socklen_t(buf.count)) != nil else { return "?" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
