#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL

/// TLS over a connected non-blocking fd. SNI and hostname verification
/// (X509_VERIFY_PARAM_set1_host / SSL_set1_host) for clients unless insecure.
///
/// Owns the fd. Drive `handshake()` until `.done`, waiting for the direction it
/// asks for. Then call `read` in a loop until it returns `.wouldBlock` (or
/// `.eof`/`.error`): OpenSSL may hold decrypted bytes (SSL_pending) that poll(2)
/// cannot see, and only reading until wouldBlock drains them. After `.wouldBlock`
/// from `write`, retry with the same bytes at the front (more may follow).
public final class TLSStream: ByteStream {
    public enum HandshakeStep { case done, wantRead, wantWrite, failed(String) }

    public private(set) var fd: Int32
    public private(set) var wants: EventLoop.Interest = .read
    private var ssl: OpaquePointer?
    private let context: TLSContext
    private let peerName: String?
    /// After a fatal error OpenSSL forbids SSL_shutdown (SSL_shutdown(3)).
    private var failed = false
    private var established = false
    private var closeNotifySent = false
    /// Server side: the TLS 1.3 session ticket still to send, ahead of our
    /// first application data (TLSContext.server says why not earlier).
    private var ticketDue = false
    /// What OpenSSL reads and writes through (`SocketBIO`): the socket, its
    /// kernel, and the bytes it wrote.
    private let io: SocketBIO.Socket

    /// serverName nil for server side (a client context without a name skips
    /// SNI and hostname verification but still checks the chain). Takes
    /// ownership of fd on success; on a throw the caller still owns it.
    public init(fd: Int32, context: TLSContext, serverName: String?) throws {
        guard let ssl = SSL_new(context.ctx) else {
            throw TransportError("TLS: cannot create session: \(OpenSSLError.take() ?? "unknown error")")
        }
        self.fd = fd
        self.ssl = ssl
        self.context = context
        self.peerName = serverName
        self.io = SocketBIO.Socket(fd: fd)
        do {
            guard let bio = SocketBIO.make(io) else {
                throw TransportError("TLS: cannot attach socket: \(OpenSSLError.take() ?? "unknown error")")
            }
            SSL_set_bio(ssl, bio, bio)
            if context.isClient { try configureClient(ssl) }
        } catch {
            self.fd = -1   // deinit frees the SSL but must leave the caller's fd open
            throw error
        }
    }

    deinit { close() }

    /// SNI (RFC 6066 §3 forbids IP literals in it) and the name the
    /// certificate must carry (RFC 6125): DNS SAN for names, IP SAN for literals.
    private func configureClient(_ ssl: OpaquePointer) throws {
        guard let name = peerName else { return }
        let isIP = Resolver.isIPLiteral(name)
        if !isIP && wspipe_SSL_set_tlsext_host_name(ssl, name) != 1 {
            throw TransportError("TLS: cannot set server name \(name): \(OpenSSLError.take() ?? "invalid name")")
        }
        guard context.verifiesPeer else { return }
        let ok = isIP ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 : SSL_set1_host(ssl, name) == 1
        if !ok { throw TransportError("TLS: cannot verify against name \(name): \(OpenSSLError.take() ?? "invalid name")") }
    }

    /// Drive the handshake; failed(...) carries a clear message, e.g.
    /// "TLS handshake with example.com failed: certificate verify failed (self-signed certificate)".
    public func handshake() -> HandshakeStep {
        guard let ssl = ssl, !failed else { return .failed(handshakeMessage("connection already failed")) }
        if established { return .done }
        ERR_clear_error()   // SSL_get_error only works with an empty queue
        io.errno = 0
        let rc = context.isClient ? SSL_connect(ssl) : SSL_accept(ssl)
        let savedErrno = io.errno
        if rc == 1 {
            established = true
            ticketDue = !context.isClient
            return .done
        }
        switch SSL_get_error(ssl, rc) {
        case SSL_ERROR_WANT_READ: wants = .read; return .wantRead
        case SSL_ERROR_WANT_WRITE: wants = .write; return .wantWrite
        case let code:
            failed = true
            return .failed(handshakeMessage(handshakeFailure(code, savedErrno)))
        }
    }

    private func handshakeMessage(_ reason: String) -> String {
        if let name = peerName { return "TLS handshake with \(name) failed: \(reason)" }
        return "TLS handshake failed: \(reason)"
    }

    /// A failed chain or name check shows as a generic SSL error; the
    /// verify result says which check failed.
    private func handshakeFailure(_ code: Int32, _ savedErrno: Int32) -> String {
        let queued = OpenSSLError.take()
        // A server verifies its peer only with mutual TLS (a client certificate required).
        if let ssl = ssl, context.verifiesPeer {
            let result = SSL_get_verify_result(ssl)
            if result != Int(X509_V_OK) {
                return "certificate verify failed (\(String(cString: X509_verify_cert_error_string(result))))"
            }
        }
        if code == SSL_ERROR_SYSCALL && savedErrno != 0 { return errnoText(savedErrno) }
        if code == SSL_ERROR_SYSCALL || code == SSL_ERROR_ZERO_RETURN { return "connection closed by peer" }
        return queued ?? "protocol error"
    }

    /// Fills `buffer` with as many records as are there (SSL_read returns one
    /// record at most), so a burst of small messages is handled, and written
    /// out, in a few large batches as on plain TCP rather than one per 16 KiB
    /// record. What ends the batch early (an error, the peer's EOF) is kept
    /// and answered by the next read, after the bytes before it.
    public func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        if let held = heldReadEnd {
            heldReadEnd = nil
            return held
        }
        guard let ssl = ssl, !failed else { return .error(IOError(call: "TLS read", message: "connection failed earlier")) }
        // The last batch ended where the socket would block, and OpenSSL
        // holds nothing: the read(2) a caller's next read would make can only
        // say EAGAIN (one per message in an echo's round trip). poll sees
        // whatever arrives now, as on plain TCP.
        if batchEndedEmpty {
            batchEndedEmpty = false
            if SSL_has_pending(ssl) == 0 {
                wants = .read
                return .wouldBlock
            }
        }
        var filled = 0
        while filled < buffer.count {
            ERR_clear_error()
            io.errno = 0
            let n = SSL_read(ssl, buffer.baseAddress! + filled, Int32(clamping: buffer.count - filled))
            if n > 0 {
                filled += Int(n)
                continue
            }
            let end = ioFailure(n, errno: io.errno, reading: true)
            if filled == 0 { return end }
            if case .wouldBlock = end { batchEndedEmpty = wants == .read } else { heldReadEnd = end }
            break
        }
        return .bytes(filled)
    }

    /// How a batch of records ended when it already held bytes: the next read's answer.
    private var heldReadEnd: IOResult?
    /// The last batch ended because the socket had nothing more (WANT_READ).
    private var batchEndedEmpty = false

    public var holdsUnreadInput: Bool {
        guard let ssl = ssl, !failed, heldReadEnd == nil else { return true }
        return SSL_has_pending(ssl) == 1 || SocketQueue.unreadBytes(fd).map { $0 > 0 } ?? true
    }

    // MARK: KernelQueue (the transport's bytes are the TLS records)

    public func start(stamps: Bool) -> Bool {
        io.written = 0
        return io.kernel.start(stamps: stamps)
    }

    public var bytesWritten: Int { io.written }

    public func unacknowledgedBytes() -> Int? { SocketQueue.unacknowledgedBytes(fd) }

    @discardableResult
    public func takeAcknowledgements(_ body: (Int, Int64) -> Void) -> Int {
        io.kernel.takeAcknowledgements(written: io.written, body)
    }

    /// The stamp of the last segment OpenSSL read, when nothing it read
    /// after the bytes returned waits in its buffer (else it arrived later
    /// than they did, and nil is the answer).
    public var lastArrival: Int64? {
        guard let ssl, SSL_has_pending(ssl) == 0 else { return nil }
        return io.kernel.lastArrival
    }

    public func receiveWindow() -> (acknowledged: Int, window: Int)? { io.kernel.receiveWindow() }

    public func roundTripNanos() -> Int64? { io.kernel.roundTripNanos() }

    public func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let ssl = ssl, !failed else { return .error(Self.peerGone) }
        if bytes.isEmpty { return .bytes(0) }   // SSL_write(0) is an error, not a no-op
        ERR_clear_error()
        if ticketDue {
            // RFC 8446 §4.6.1: a NewSessionTicket may follow the handshake at
            // any time; this one rides in front of the first record we write.
            // (A no-op returning 0 under TLS 1.2, whose tickets are in the handshake.)
            ticketDue = false
            _ = SSL_new_session_ticket(ssl)
        }
        io.errno = 0
        // One record at a time: what a write that would block leaves half
        // written, and must be offered again as it was, is one record.
        let count = min(bytes.count, Self.recordSize)
        let n = SSL_write(ssl, bytes.baseAddress, Int32(count))
        if n > 0 {
            heldBytes = 0
            return .bytes(Int(n))
        }
        let result = ioFailure(n, errno: io.errno, reading: false)
        if case .wouldBlock = result { heldBytes = count }
        return result
    }

    /// The largest plaintext of a TLS record (RFC 8446 §5.1).
    static let recordSize = 16 << 10

    /// The length of the last write that would block: OpenSSL holds a
    /// record of those bytes, which the next write must offer again.
    public private(set) var heldBytes = 0

    /// A write after the peer closed or the session failed: EPIPE, as for plain sockets.
    private static let peerGone = IOError(call: "TLS write", errno: EPIPE)

    /// close_notify and EOF without it both end reading (.eof); on the write
    /// side a vanished peer is EPIPE, as for plain sockets.
    private func ioFailure(_ rc: Int32, errno e: Int32, reading: Bool) -> IOResult {
        let code = SSL_get_error(ssl, rc)
        switch code {
        case SSL_ERROR_WANT_READ: wants = .read; return .wouldBlock
        case SSL_ERROR_WANT_WRITE: wants = .write; return .wouldBlock
        case SSL_ERROR_ZERO_RETURN: return reading ? .eof : .error(Self.peerGone)
        default: break
        }
        failed = true
        let queued = OpenSSLError.take()
        let call = reading ? "TLS read" : "TLS write"
        if code == SSL_ERROR_SYSCALL {
            if e == 0 { return reading ? .eof : .error(Self.peerGone) }
            return FD.failure(call, e)
        }
        if reading && queued == "unexpected eof while reading" { return .eof }
        return .error(IOError(call: call, message: queued ?? "protocol error"))
    }

    /// close_notify once (SSL_shutdown without waiting for the peer's), then
    /// FIN. If the socket buffer is full the close_notify is lost; the peer
    /// still sees EOF, which it must accept anyway.
    public func shutdownWrite() {
        guard fd >= 0 else { return }
        if let ssl = ssl, established && !failed && !closeNotifySent {
            closeNotifySent = true
            ERR_clear_error()
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
        }
        #if os(Linux)
        _ = shutdown(fd, Int32(SHUT_WR))
        #else
        _ = shutdown(fd, SHUT_WR)
        #endif
    }

    public func close() {
        if let ssl = ssl { SSL_free(ssl) }
        ssl = nil
        guard fd >= 0 else { return }
        sysClose(fd)
        fd = -1
    }
}
