#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolve + non-blocking connect, with IPv6 and IPv4 raced (Happy
/// Eyeballs, RFC 8305: `ConnectionRace` decides the order and the timing),
/// within a deadline enforced by the caller via the loop. Completion is
/// reported once.
///
/// Resolution runs on a helper thread (NameLookup), so the loop keeps serving
/// stdin, signals and the caller's deadline meanwhile. Everything else happens
/// inside loop callbacks, so the completion never runs re-entrantly from
/// start(). The connector keeps itself alive (the loop holds its closures)
/// until it completes or is cancelled.
public final class TCPConnector {
    private let host: String
    private let port: UInt16
    private let family: AddressFamily
    private let loop: EventLoop
    private var completion: ((Result<Int32, TransportError>) -> Void)?
    /// The addresses in the order the race tries them.
    private var addresses: [SocketAddress] = []
    /// The race, fed by the driver (which queues the event an attempt's
    /// immediate outcome raises while the race's actions are performed).
    private var racer: PhaseDriver<ConnectionRace>?
    /// The sockets still connecting, by their position in `addresses` (-1:
    /// none). An array, not a dictionary: the first Dictionary a run makes
    /// costs its start-up ~130,000 instructions (metadata and a seeded hasher).
    private var attempts: [Int32] = []
    private var delay: EventLoop.TimerID?
    private var lookup: NameLookup?
    private var lastError: TransportError?

    private var unixPath: String?
    private var kickoff: EventLoop.TimerID?

    /// When the name was resolved (monotonic), for -w's time_namelookup.
    public private(set) var resolvedAt: Int64?
    /// The address that connected (for -w's remote_ip and remote_port).
    public private(set) var connectedAddress: SocketAddress?

    public init(host: String, port: UInt16, family: AddressFamily = .any, loop: EventLoop) {
        self.host = host
        self.port = port
        self.family = family
        self.loop = loop
    }

    /// Connects to a Unix-domain stream socket instead (no lookup).
    public init(unixSocketPath path: String, loop: EventLoop) {
        self.host = "unix:" + path
        self.port = 0
        self.family = .any
        self.loop = loop
        self.unixPath = path
    }

    /// Calls `completion` exactly once with the connected non-blocking fd (TCP_NODELAY on)
    /// or an error naming the last address that failed ("connect to [::1]:9: Connection refused";
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
                self.race([address])
            }
            return
        }
        let lookup = NameLookup(host: host, port: port, family: family, loop: loop)
        self.lookup = lookup
        lookup.start { result in
            self.lookup = nil
            self.resolvedAt = self.loop.nowNanos
            switch result {
            case .success(let addresses): self.race(addresses)
            case .failure(let error): self.finish(.failure(error))
            }
        }
    }

    /// Closes every pending socket and stops waiting for the name;
    /// completion is not called afterwards.
    public func cancel() {
        if let k = kickoff { loop.cancel(k); kickoff = nil }
        lookup?.cancel()
        lookup = nil
        abandonAll()
        completion = nil
    }

    private func race(_ resolved: [SocketAddress]) {
        addresses = ConnectionRace.order(resolved.map { $0.family }).map { resolved[$0] }
        attempts = Array(repeating: -1, count: addresses.count)
        let racer = PhaseDriver(ConnectionRace(count: addresses.count), clock: loop) { .delayElapsed }
        racer.perform = { [unowned self] action in self.perform(action) }
        self.racer = racer
        racer.handle(.start)
    }

    private func handle(_ event: ConnectionRace.Event) {
        racer?.handle(event)
    }

    private func perform(_ action: ConnectionRace.Action) {
        switch action {
        case .startAttempt(let position):
            startAttempt(position)
        case .armDelay(let nanos):
            if let delay { loop.cancel(delay) }
            delay = loop.schedule(afterNanos: nanos) { [weak self] in
                self?.delay = nil
                self?.handle(.delayElapsed)
            }
        case .cancelDelay:
            if let delay { loop.cancel(delay); self.delay = nil }
        case .abandon(let position):
            guard let fd = take(position) else { return }
            loop.unwatch(fd)
            sysClose(fd)
        case .won(let position):
            guard let fd = take(position) else { return }
            connectedAddress = addresses[position]
            succeed(fd)
        case .lost:
            finish(.failure(lastError ?? TransportError("connect to \(host): no addresses")))
        }
    }

    /// The socket of the attempt at `position`, no longer the attempt's.
    private func take(_ position: Int) -> Int32? {
        let fd = attempts[position]
        attempts[position] = -1
        return fd >= 0 ? fd : nil
    }

    /// Opens a socket and starts connecting; an immediate outcome is fed
    /// back to the race as an event.
    private func startAttempt(_ position: Int) {
        let address = addresses[position]
        let name = "connect to \(address)"
        let fd = socket(address.family, sockStream, 0)
        guard fd >= 0 else { return failed(position, .posix("\(name): socket")) }
        guard makeNonBlockingCloexec(fd) else {
            let e = TransportError.posix("\(name): fcntl")
            sysClose(fd)
            return failed(position, e)
        }
        attempts[position] = fd
        SocketKernel.turnOnArrivalStamps(fd)
        let rc = address.withSockAddr { connect(fd, $0, $1) }
        if rc == 0 { return handle(.attemptConnected(position)) }
        let e = currentErrno()
        // EINTR on a non-blocking connect also means "still in progress".
        // (A Unix socket answers at once: connected, or refused.)
        guard e == EINPROGRESS || e == EINTR else {
            attempts[position] = -1
            sysClose(fd)
            return failed(position, .posix(name, errno: e))
        }
        loop.watch(fd, .write) { _ in self.connectFinished(position) }
    }

    private func failed(_ position: Int, _ error: TransportError) {
        lastError = error
        handle(.attemptFailed(position))
    }

    /// Writable (or error/hangup) after a non-blocking connect: SO_ERROR holds
    /// the outcome (connect(2), "EINPROGRESS").
    private func connectFinished(_ position: Int) {
        let fd = attempts[position]
        guard fd >= 0 else { return }
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 { err = currentErrno() }
        loop.unwatch(fd)
        if err == 0 { return handle(.attemptConnected(position)) }
        attempts[position] = -1
        sysClose(fd)
        failed(position, .posix("connect to \(addresses[position])", errno: err))
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

    private func abandonAll() {
        if let delay { loop.cancel(delay); self.delay = nil }
        for fd in attempts where fd >= 0 {
            loop.unwatch(fd)
            sysClose(fd)
        }
        attempts = []
    }
}
