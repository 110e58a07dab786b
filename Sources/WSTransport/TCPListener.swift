#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listening socket on [HOST:]PORT: host nil = all interfaces (IPv6 dual-stack "::"
/// falling back to 0.0.0.0); "localhost"/names resolved with getaddrinfo.
///
/// A name binds one address only (one fd): IPv4 addresses are tried first,
/// because "localhost" then serves clients that dial 127.0.0.1 as well as
/// clients that try every address of "localhost" (browsers, curl, wspipe).
public final class TCPListener {
    public private(set) var fd: Int32 = -1
    /// The bound port (useful with port 0).
    public private(set) var port: UInt16 = 0
    /// Why the last accept() returned nil, if not simply "nothing pending"
    /// (e.g. EMFILE: out of file descriptors).
    public private(set) var lastAcceptError: TransportError?

    public init(host: String?, port: UInt16) throws {
        let candidates = try TCPListener.bindAddresses(host: host, port: port)
        var lastError = TransportError("listen on port \(port): no addresses")
        for (k, address) in candidates.enumerated() {
            do {
                try open(address)
                return
            } catch let error as TransportError {
                lastError = error
                // All-interfaces: only a missing IPv6 stack justifies trying 0.0.0.0;
                // "address in use" on [::] would be the same on 0.0.0.0.
                if host == nil && k == 0 && !TCPListener.isFamilyProblem(error.errno) { throw error }
            }
        }
        throw lastError
    }

    /// A Unix-domain stream socket at `path` (`--listen unix:PATH`), removed
    /// again by close(). A socket file left by a listener that died is
    /// replaced; any other existing file is an error ("Address already in use").
    public init(unixPath path: String) throws {
        guard let address = SocketAddress(unixPath: path) else {
            throw TransportError("listen on unix:\(path): path too long for a socket")
        }
        do {
            try open(address)
        } catch let error as TransportError where error.errno == EADDRINUSE && TCPListener.isStaleSocket(address) {
            _ = unlink(path)
            try open(address)
        }
        var st = stat()
        if lstat(path, &st) == 0 { unixSocket = (path, UInt64(st.st_ino)) }
    }

    /// The socket file we created, removed at close if it is still ours.
    private var unixSocket: (path: String, inode: UInt64)?

    deinit { close() }

    /// Non-blocking accept: nil when no connection is pending. fd is non-blocking, TCP_NODELAY.
    public func accept() -> (fd: Int32, peer: String)? {
        while true {
            var client: Int32 = -1
            var e: Int32 = 0
            let peer = SocketAddress { sa, len in
                client = sysAccept(fd, sa, len)
                e = client < 0 ? currentErrno() : 0
                return client >= 0
            }
            if let peer = peer, makeNonBlockingCloexec(client) {
                setIntOption(client, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
                SocketKernel.turnOnArrivalStamps(client)
                lastAcceptError = nil
                return (client, peer.description)
            }
            if client >= 0 { lastAcceptError = .posix("accept: fcntl"); sysClose(client); return nil }
            // A connection reset while queued is the client's problem: take the next.
            if e == EINTR || e == ECONNABORTED || e == EPROTO { continue }
            lastAcceptError = (e == EAGAIN || e == EWOULDBLOCK) ? nil : .posix("accept", errno: e)
            return nil
        }
    }

    public func close() {
        guard fd >= 0 else { return }
        sysClose(fd)
        fd = -1
        if let (path, inode) = unixSocket {
            var st = stat()
            if lstat(path, &st) == 0 && UInt64(st.st_ino) == inode { _ = unlink(path) }
            unixSocket = nil
        }
    }

    /// A socket file nobody listens on: connecting to it is refused.
    private static func isStaleSocket(_ address: SocketAddress) -> Bool {
        var st = stat()
        guard lstat(address.unixPath, &st) == 0, st.st_mode & S_IFMT == S_IFSOCK else { return false }
        let probe = socket(AF_UNIX, sockStream, 0)
        guard probe >= 0 else { return false }
        defer { sysClose(probe) }
        // Non-blocking: a live listener with a full backlog says EAGAIN, not "refused".
        guard makeNonBlockingCloexec(probe) else { return false }
        let rc = address.withSockAddr { connect(probe, $0, $1) }
        return rc != 0 && currentErrno() == ECONNREFUSED
    }

    /// [::] then 0.0.0.0 for all interfaces; otherwise what getaddrinfo says, IPv4 first.
    private static func bindAddresses(host: String?, port: UInt16) throws -> [SocketAddress] {
        guard let host = host else {
            return try Resolver.resolve(host: "::", port: port, passive: true)
                + Resolver.resolve(host: "0.0.0.0", port: port, passive: true)
        }
        let all = try Resolver.resolve(host: host, port: port, passive: true)
        return all.filter { $0.family == AF_INET } + all.filter { $0.family != AF_INET }
    }

    private static func isFamilyProblem(_ e: Int32?) -> Bool {
        e == EAFNOSUPPORT || e == EADDRNOTAVAIL || e == EPROTONOSUPPORT || e == EINVAL
    }

    /// socket, SO_REUSEADDR (restart at once while old connections sit in
    /// TIME_WAIT), dual-stack for IPv6, bind, listen, then read back the port.
    private func open(_ address: SocketAddress) throws {
        let name = "listen on \(address)"
        let s = socket(address.family, sockStream, 0)
        guard s >= 0 else { throw TransportError.posix("\(name): socket") }
        do {
            guard makeNonBlockingCloexec(s) else { throw TransportError.posix("\(name): fcntl") }
            setIntOption(s, SOL_SOCKET, SO_REUSEADDR, 1)
            if address.family == AF_INET6 { setIntOption(s, Int32(IPPROTO_IPV6), IPV6_V6ONLY, 0) }
            guard address.withSockAddr({ bind(s, $0, $1) }) == 0 else { throw TransportError.posix(name) }
            guard listen(s, SOMAXCONN) == 0 else { throw TransportError.posix("\(name): listen") }
            guard let bound = SocketAddress(filling: { getsockname(s, $0, $1) == 0 }) else {
                throw TransportError.posix("\(name): getsockname")
            }
            fd = s
            port = address.family == AF_UNIX ? 0 : bound.port
        } catch {
            sysClose(s)
            throw error
        }
    }
}
