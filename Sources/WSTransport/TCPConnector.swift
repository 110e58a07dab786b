#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolve + non-blocking connect, trying each getaddrinfo address in order
/// (IPv6 and IPv4) until one connects, within a deadline enforced by the caller
/// via the loop. Completion is reported once.
///
/// Resolution runs on a helper thread (NameLookup), so the loop keeps serving
/// stdin, signals and the caller's deadline meanwhile. Everything else happens
/// inside loop callbacks, so the completion never runs re-entrantly from
/// start(). The connector keeps itself alive (the loop holds its closures)
/// until it completes or is cancelled.
public final class TCPConnector {
    private let host: String
    private let port: UInt16
    private let loop: EventLoop
    private var completion: ((Result<Int32, TransportError>) -> Void)?
    private var addresses: [SocketAddress] = []
    private var next = 0
    private var pendingFD: Int32 = -1
    private var pendingAddress = ""
    private var lookup: NameLookup?
    private var lastError: TransportError?

    private var unixPath: String?
    private var kickoff: EventLoop.TimerID?

    public init(host: String, port: UInt16, loop: EventLoop) {
        self.host = host
        self.port = port
        self.loop = loop
    }

    /// Connects to a Unix-domain stream socket instead (no lookup).
    public init(unixSocketPath path: String, loop: EventLoop) {
        self.host = "unix:" + path
        self.port = 0
        self.loop = loop
        self.unixPath = path
    }

    /// Calls `completion` exactly once with the connected non-blocking fd (TCP_NODELAY on)
    /// or an error naming the last address tried ("connect to [::1]:9: Connection refused";
    /// "resolve no.such.host: Name or service not known").
    public func start(_ completion: @escaping (Result<Int32, TransportError>) -> Void) {
        precondition(self.completion == nil, "TCPConnector.start called twice")
        self.completion = completion
        if let path = unixPath {
            kickoff = loop.schedule(afterNanos: 0) {
                self.kickoff = nil
                guard let address = SocketAddress(unixPath: path) else {
                    return self.finish(.failure(TransportError("connect to unix:\(path): path too long for a socket")))
                }
                self.addresses = [address]
                self.tryNext()
            }
            return
        }
        let lookup = NameLookup(host: host, port: port, loop: loop)
        self.lookup = lookup
        lookup.start { result in
            self.lookup = nil
            switch result {
            case .success(let addresses): self.addresses = addresses; self.tryNext()
            case .failure(let error): self.finish(.failure(error))
            }
        }
    }

    /// Closes any pending fd and stops waiting for the name; completion is
    /// not called afterwards.
    public func cancel() {
        if let k = kickoff { loop.cancel(k); kickoff = nil }
        lookup?.cancel()
        lookup = nil
        abandonPending()
        completion = nil
    }

    /// Starts connecting to the next address; on an immediate failure moves on,
    /// after the last one reports the last error.
    private func tryNext() {
        while next < addresses.count {
            let address = addresses[next]
            next += 1
            switch attempt(address) {
            case .connected(let fd): return succeed(fd)
            case .inProgress: return
            case .failed(let error): lastError = error
            }
        }
        finish(.failure(lastError ?? TransportError("connect to \(host): no addresses")))
    }

    private enum Attempt { case connected(Int32), inProgress, failed(TransportError) }

    private func attempt(_ address: SocketAddress) -> Attempt {
        let name = "connect to \(address)"
        let fd = socket(address.family, sockStream, 0)
        guard fd >= 0 else { return .failed(.posix("\(name): socket")) }
        guard makeNonBlockingCloexec(fd) else {
            let e = TransportError.posix("\(name): fcntl")
            sysClose(fd)
            return .failed(e)
        }
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc == 0 { return .connected(fd) }
        let e = currentErrno()
        // EINTR on a non-blocking connect also means "still in progress".
        // (A Unix socket answers at once: connected, or refused.)
        guard e == EINPROGRESS || e == EINTR else {
            sysClose(fd)
            return .failed(.posix(name, errno: e))
        }
        pendingFD = fd
        pendingAddress = name
        loop.watch(fd, .write) { _ in self.connectFinished() }
        return .inProgress
    }

    /// Writable (or error/hangup) after a non-blocking connect: SO_ERROR holds
    /// the outcome (connect(2), "EINPROGRESS").
    private func connectFinished() {
        let fd = pendingFD
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 { err = currentErrno() }
        loop.unwatch(fd)
        pendingFD = -1
        if err == 0 { return succeed(fd) }
        sysClose(fd)
        lastError = .posix(pendingAddress, errno: err)
        tryNext()
    }

    /// Small WebSocket frames must not wait for Nagle's algorithm.
    private func succeed(_ fd: Int32) {
        if unixPath == nil { setIntOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1) }
        finish(.success(fd))
    }

    private func finish(_ result: Result<Int32, TransportError>) {
        guard let c = completion else {
            if case .success(let fd) = result { sysClose(fd) }
            return
        }
        completion = nil
        c(result)
    }

    private func abandonPending() {
        guard pendingFD >= 0 else { return }
        loop.unwatch(pendingFD)
        sysClose(pendingFD)
        pendingFD = -1
    }
}
