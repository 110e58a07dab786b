#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An IPv4, IPv6 or Unix-domain socket address (a copy of what getaddrinfo,
/// accept or getsockname returned), printable as "127.0.0.1:9", "[::1]:9"
/// or "unix:/run/app.sock".
public struct SocketAddress: CustomStringConvertible, Sendable {
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

    /// A Unix-domain address; nil when the path does not fit sun_path.
    init?(unixPath path: String) {
        var address = sockaddr_un()
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count < capacity else { return nil }
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + 1
        self.init(filling: { sa, len in
            withUnsafeBytes(of: &address) { UnsafeMutableRawPointer(sa).copyMemory(from: $0.baseAddress!, byteCount: length) }
            len.pointee = socklen_t(length)
            return true
        })
    }

    var family: Int32 { Int32(storage.ss_family) }

    /// The raw address in network order: 4 bytes for IPv4, 16 for IPv6, none for Unix.
    public var addressBytes: [UInt8] {
        withSockAddr { sa, _ in
            switch Int32(sa.pointee.sa_family) {
            case AF_INET:
                return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                    withUnsafeBytes(of: p.pointee.sin_addr) { Array($0) }
                }
            case AF_INET6:
                return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                    withUnsafeBytes(of: p.pointee.sin6_addr) { Array($0) }
                }
            default:
                return []
            }
        }
    }

    /// The path of a Unix-domain address ("" for an unnamed peer).
    var unixPath: String {
        withSockAddr { sa, length in
            let offset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
            guard Int(length) > offset else { return "" }
            let raw = UnsafeRawPointer(sa) + offset
            let bytes = UnsafeRawBufferPointer(start: raw, count: Int(length) - offset)
            return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }

    public var port: UInt16 {
        withSockAddr { sa, _ in
            if sa.pointee.sa_family == sa_family_t(AF_INET6) {
                return sa.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return sa.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
    }

    /// The numeric host; IPv4-mapped IPv6 addresses (peers on a dual-stack
    /// listener) print as plain IPv4 because that is what the user connected from.
    public var host: String {
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

    /// "host:port", with brackets around IPv6 hosts (RFC 3986 §3.2.2 style);
    /// "unix:PATH" for a Unix-domain socket ("unix" for an unnamed client).
    public var description: String {
        if family == AF_UNIX {
            let path = unixPath
            return path.isEmpty ? "unix" : "unix:" + path
        }
        let h = host
        return h.contains(":") ? "[\(h)]:\(port)" : "\(h):\(port)"
    }

    private static func ntop(_ family: Int32, _ addr: UnsafeRawPointer) -> String {
        var buf = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(family, addr, &buf, socklen_t(buf.count)) != nil else { return "?" }
        return String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
