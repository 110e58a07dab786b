import WSCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the connection to the WebSocket server is made.
public enum DialRoute: Equatable, Sendable {
    /// TCP to the server itself.
    case direct
    /// A Unix-domain socket (`--unix-socket`); the URL only names the server.
    case unixSocket(String)
    /// A tunnel through a proxy (`--proxy` or the environment).
    case proxy(ProxyURL)
}

/// Gives a connected stream socket that leads to host:port, the first hop
/// chosen by the route; the proxy handshakes are WSCore's sans-I/O codecs,
/// driven here by the loop. TLS and the WebSocket handshake then run over the
/// socket as if it were direct, so wss:// through a proxy is TLS end to end
/// with the target's name. One attempt: the caller's deadline covers it all
/// and `cancel()` stops it at any step.
public final class Dialer {
    private let host: String
    private let port: UInt16
    private let route: DialRoute
    private let family: AddressFamily
    private let loop: EventLoop
    private var completion: ((Result<Int32, TransportError>) -> Void)?
    private var connector: TCPConnector?
    private var lookup: NameLookup?
    private var tunnel: TCPStream?
    private var output: [UInt8] = []
    private var handle: ((UnsafeRawBufferPointer) -> TunnelStep)?
    /// The proxy as messages name it ("http://127.0.0.1:3128").
    private var proxyName = ""
    /// When the first hop's name was resolved and its TCP connection made
    /// (monotonic), and to which address: the server's, or the proxy's
    /// (-w's time_namelookup, time_connect, remote_ip, as curl counts them).
    public private(set) var resolvedAt: Int64?
    public private(set) var connectedAt: Int64?
    public private(set) var connectedAddress: SocketAddress?

    /// `family`: `-4`/`-6`, for the server's name and the proxy's.
    public init(host: String, port: UInt16, route: DialRoute, family: AddressFamily = .any, loop: EventLoop) {
        self.host = host
        self.port = port
        self.route = route
        self.family = family
        self.loop = loop
    }

    /// Calls `completion` once, never from inside start(), with a connected
    /// non-blocking fd the caller then owns, or an error for the user.
    public func start(_ completion: @escaping (Result<Int32, TransportError>) -> Void) {
        precondition(self.completion == nil, "Dialer.start called twice")
        self.completion = completion
        switch route {
        case .direct:
            connect(TCPConnector(host: host, port: port, family: family, loop: loop), describe: { $0 }) { self.finish(.success($0)) }
        case .unixSocket(let path):
            connect(TCPConnector(unixSocketPath: path, loop: loop), describe: { $0 }) { self.finish(.success($0)) }
        case .proxy(let proxy):
            startTunnel(through: proxy)
        }
    }

    /// Closes whatever is open; completion is not called afterwards.
    public func cancel() {
        completion = nil
        connector?.cancel()
        connector = nil
        lookup?.cancel()
        lookup = nil
        closeTunnel()
    }

    private func startTunnel(through proxy: ProxyURL) {
        switch proxy.kind {
        case .http:
            let codec = HTTPConnectHandshake(host: host, port: port, credentials: proxy.credentials)
            reachProxy(proxy) { fd in self.openHTTPTunnel(fd, proxy, codec) }
        case .socks5h:
            openSOCKSTunnel(proxy, target: literalTarget() ?? .domain(host))
        case .socks5:
            if let target = literalTarget() { return openSOCKSTunnel(proxy, target: target) }
            // socks5://: the name is ours to resolve (RFC 1928 §5 ATYP 1 or 4).
            let lookup = NameLookup(host: host, port: port, family: family, loop: loop)
            self.lookup = lookup
            lookup.start { result in
                self.lookup = nil
                switch result {
                case .success(let addresses):
                    let bytes = addresses[0].addressBytes
                    self.openSOCKSTunnel(proxy, target: bytes.count == 4 ? .ipv4(bytes) : .ipv6(bytes))
                case .failure(let error):
                    self.finish(.failure(error))
                }
            }
        }
    }

    private func literalTarget() -> SOCKS5Handshake.Target? {
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return .ipv4(withUnsafeBytes(of: v4) { Array($0) }) }
        if inet_pton(AF_INET6, host, &v6) == 1 { return .ipv6(withUnsafeBytes(of: v6) { Array($0) }) }
        return nil
    }

    private func reachProxy(_ proxy: ProxyURL, then: @escaping (Int32) -> Void) {
        connect(TCPConnector(host: proxy.host, port: proxy.port, family: family, loop: loop),
                describe: { "cannot reach proxy \(proxy): \($0)" }, then: then)
    }

    private func connect(_ connector: TCPConnector, describe: @escaping (String) -> String,
                         then: @escaping (Int32) -> Void) {
        self.connector = connector
        connector.start { result in
            self.connector = nil
            self.resolvedAt = connector.resolvedAt ?? monotonicNanos()
            self.connectedAt = monotonicNanos()
            self.connectedAddress = connector.connectedAddress
            switch result {
            case .success(let fd): then(fd)
            case .failure(let error): self.finish(.failure(TransportError(describe(error.message), errno: error.errno)))
            }
        }
    }

    // MARK: tunnels

    private func openHTTPTunnel(_ fd: Int32, _ proxy: ProxyURL, _ start: HTTPConnectHandshake) {
        var codec = start
        let target = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        exchange(fd, proxy, first: codec.request) { bytes in
            switch codec.receive(bytes) {
            case .needMoreData: return .needMoreData
            case .established(let leftover): return leftover.isEmpty ? .done : .failed("\(proxy) sent data before the server did")
            case .refused(_, let statusLine): return .failed("proxy \(proxy) refused the tunnel to \(target): \(statusLine)")
            case .invalid(let reason): return .failed("proxy \(proxy): \(reason)")
            }
        }
    }

    private func openSOCKSTunnel(_ proxy: ProxyURL, target: SOCKS5Handshake.Target) {
        var codec: SOCKS5Handshake
        do {
            codec = try SOCKS5Handshake(target: target, port: port, credentials: proxy.credentials)
        } catch {
            return finishLater("proxy \(proxy): \(error)")
        }
        let name = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        reachProxy(proxy) { fd in
            self.exchange(fd, proxy, first: codec.greeting) { bytes in
                switch codec.receive(bytes) {
                case .needMoreData: return .needMoreData
                case .send(let reply): return .send(reply)
                case .established(let leftover): return leftover.isEmpty ? .done : .failed("\(proxy) sent data before the server did")
                case .failed(let failure): return .failed("proxy \(proxy) refused the tunnel to \(name): \(failure)")
                }
            }
        }
    }

    /// The codec's answer to the bytes read from the proxy.
    private enum TunnelStep { case needMoreData, send([UInt8]), done, failed(String) }

    /// Writes `first`, then feeds everything the proxy sends to `handle` and
    /// writes what it asks for, until the tunnel is open or refused.
    private func exchange(_ fd: Int32, _ proxy: ProxyURL, first: [UInt8],
                          _ handle: @escaping (UnsafeRawBufferPointer) -> TunnelStep) {
        let stream = TCPStream(fd: fd)
        tunnel = stream
        output = first
        self.handle = handle
        proxyName = "\(proxy)"
        loop.watch(fd, .write) { [weak self] _ in self?.tunnelReady() }
    }

    private func tunnelReady() {
        guard let stream = tunnel else { return }
        while !output.isEmpty {
            switch output.withUnsafeBytes({ stream.write($0) }) {
            case .bytes(let n): output.removeFirst(n)
            case .wouldBlock: loop.setInterest(stream.fd, .write); return
            case .eof: return failTunnel("proxy \(proxyName) closed the connection")
            case .error(let error): return failTunnel("proxy \(proxyName): \(error)")
            }
        }
        loop.setInterest(stream.fd, .read)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while tunnel != nil {
            switch chunk.withUnsafeMutableBytes({ stream.read(into: $0) }) {
            case .bytes(let n):
                guard let handle else { return }
                switch chunk.withUnsafeBytes({ handle(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }) {
                case .needMoreData: continue
                case .send(let bytes): output += bytes; return tunnelReady()
                case .done: return openedTunnel()
                case .failed(let text): return failTunnel(text)
                }
            case .wouldBlock: return
            case .eof: return failTunnel("proxy \(proxyName) closed the connection during its handshake")
            case .error(let error): return failTunnel("proxy \(proxyName): \(error)")
            }
        }
    }

    private func openedTunnel() {
        guard let stream = tunnel else { return }
        loop.unwatch(stream.fd)
        tunnel = nil
        handle = nil
        finish(.success(stream.releaseFD()))
    }

    private func failTunnel(_ text: String) {
        closeTunnel()
        finish(.failure(TransportError(text)))
    }

    private func closeTunnel() {
        handle = nil
        guard let stream = tunnel else { return }
        tunnel = nil
        loop.unwatch(stream.fd)
        stream.close()
    }

    private func finishLater(_ text: String) {
        loop.schedule(afterNanos: 0) { [weak self] in self?.finish(.failure(TransportError(text))) }
    }

    private func finish(_ result: Result<Int32, TransportError>) {
        guard let c = completion else {
            if case .success(let fd) = result { sysClose(fd) }
            return
        }
        completion = nil
        c(result)
    }
}
