import COpenSSL
import Foundation
import XCTest
@testable import WSTransport

/// TLSStream against a plain OpenSSL peer over a socketpair, all in this
/// thread: every write lands in the peer's receive buffer at once, so what
/// the peer can read after each step is exact, not a matter of timing.
final class TLSStreamTests: XCTestCase {
    /// A throwaway self-signed key and certificate for "localhost", made with the openssl CLI.
    nonisolated(unsafe) private static var identity: (cert: String, key: String)?

    override class func setUp() {
        super.setUp()
        ignoreSIGPIPE()
        let dir = NSTemporaryDirectory() + "wspipe-tls-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let cert = dir + "/cert.pem", key = dir + "/key.pem"
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                             "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
                             "-addext", "subjectAltName=DNS:localhost"]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        if (try? openssl.run()) != nil {
            openssl.waitUntilExit()
            if openssl.terminationStatus == 0 { identity = (cert, key) }
        }
    }

    override class func tearDown() {
        if let identity { try? FileManager.default.removeItem(atPath: (identity.cert as NSString).deletingLastPathComponent) }
        super.tearDown()
    }

    private var server: TLSStream!
    private var peer: RawTLSClient!

    override func setUpWithError() throws {
        guard let identity = Self.identity else { throw XCTSkip("the openssl CLI could not make a test certificate") }
        var fds: [Int32] = [-1, -1]
        XCTAssertEqual(socketpair(AF_UNIX, sockStream, 0, &fds), 0)
        XCTAssertTrue(makeNonBlockingCloexec(fds[0]))
        XCTAssertTrue(makeNonBlockingCloexec(fds[1]))
        let context = try TLSContext.server(certFile: identity.cert, keyFile: identity.key)
        server = try TLSStream(fd: fds[0], context: context, serverName: nil)
        peer = try RawTLSClient(fd: fds[1])
    }

    override func tearDown() {
        server?.close()
        peer?.close()
    }

    /// Alternates the two handshakes until both are done.
    private func handshake() throws {
        var serverDone = false, peerDone = false
        for _ in 0..<100 where !(serverDone && peerDone) {
            if !peerDone { peerDone = try peer.stepHandshake() }
            if !serverDone {
                switch server.handshake() {
                case .done: serverDone = true
                case .wantRead, .wantWrite: break
                case .failed(let text): throw TransportError(text)
                }
            }
        }
        XCTAssertTrue(serverDone && peerDone, "handshake did not finish")
    }

    func testRoundTripBothWays() throws {
        try handshake()
        XCTAssertEqual(write(server, "GET / HTTP/1.1\r\n\r\n"), .bytes(18))
        XCTAssertEqual(peer.readAll(), Array("GET / HTTP/1.1\r\n\r\n".utf8))
        peer.write("ping")
        var buf = [UInt8](repeating: 0, count: 64)
        XCTAssertEqual(buf.withUnsafeMutableBytes { server.read(into: $0) }, .bytes(4))
        XCTAssertEqual(Array(buf[0..<4]), Array("ping".utf8))
        XCTAssertEqual(buf.withUnsafeMutableBytes { server.read(into: $0) }, .wouldBlock)
        XCTAssertEqual(server.wants, .read)
    }

    /// Once the handshake is done the server says nothing until it answers:
    /// a TLS 1.3 ticket sent at that moment reaches clients while they write
    /// their request, which thread-per-direction clients cannot survive.
    func testServerSendsNothingBetweenHandshakeAndItsFirstWrite() throws {
        try handshake()
        XCTAssertEqual(peer.pendingBytesOnSocket(), 0, "the server wrote after the handshake, before any request")
        XCTAssertEqual(peer.protocolVersion, TLS1_3_VERSION)
    }

    /// The deferred ticket still arrives, in front of the first data.
    func testTicketArrivesWithTheFirstWrite() throws {
        try handshake()
        XCTAssertFalse(peer.hasTicket)
        XCTAssertEqual(write(server, "HTTP/1.1 101 Switching Protocols\r\n\r\n"), .bytes(36))
        XCTAssertEqual(peer.readAll(), Array("HTTP/1.1 101 Switching Protocols\r\n\r\n".utf8))
        XCTAssertTrue(peer.hasTicket)
        // Only once.
        XCTAssertEqual(write(server, "more"), .bytes(4))
        let before = peer.sessionIdentity
        XCTAssertEqual(peer.readAll(), Array("more".utf8))
        XCTAssertEqual(peer.sessionIdentity, before)
    }

    /// shutdownWrite: the peer reads close_notify (a clean TLS end, not a
    /// truncation), then EOF from the socket itself.
    func testShutdownSendsCloseNotifyThenFIN() throws {
        try handshake()
        XCTAssertEqual(write(server, "bye"), .bytes(3))
        server.shutdownWrite()
        XCTAssertEqual(peer.readAll(), Array("bye".utf8))
        XCTAssertEqual(peer.lastError, SSL_ERROR_ZERO_RETURN, "no close_notify before the end of the stream")
        XCTAssertTrue(peer.receivedShutdown)
        XCTAssertEqual(peer.rawRead(), 0, "no FIN after the close_notify")
        // The server can still read what the peer sends after our shutdown.
        peer.write("late")
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(buf.withUnsafeMutableBytes { server.read(into: $0) }, .bytes(4))
    }

    /// The peer's close_notify reads as EOF; writing afterwards is a broken pipe.
    func testPeerCloseNotifyIsEOF() throws {
        try handshake()
        peer.shutdown()
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(buf.withUnsafeMutableBytes { server.read(into: $0) }, .eof)
    }

    /// A peer that vanishes without close_notify: EOF on read, EPIPE on write.
    func testTruncatedPeerIsEOFAndWriteIsBrokenPipe() throws {
        try handshake()
        peer.close()
        var buf = [UInt8](repeating: 0, count: 16)
        XCTAssertEqual(buf.withUnsafeMutableBytes { server.read(into: $0) }, .eof)
        guard case .error(let error) = write(server, "x") else { return XCTFail("write to a closed peer succeeded") }
        XCTAssertTrue(error.isBrokenPipe, "\(error)")
        XCTAssertEqual(error.description, "EPIPE")
    }

    /// Plain HTTP where a ClientHello belongs fails the handshake with OpenSSL's reason.
    func testPlainHTTPFailsTheHandshake() throws {
        peer.rawWrite("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        guard case .failed(let text) = server.handshake() else { return XCTFail("handshake accepted plain HTTP") }
        XCTAssertEqual(text, "TLS handshake failed: http request")
    }

    private func write(_ stream: TLSStream, _ text: String) -> IOResult {
        Array(text.utf8).withUnsafeBytes { stream.write($0) }
    }
}

/// The far end, written against OpenSSL directly so the test sees what a
/// client sees: a client context that trusts anything (the test is about
/// records, not certificates).
final class RawTLSClient {
    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer
    private var closed = false
    private(set) var lastError: Int32 = 0

    init(fd: Int32) throws {
        self.fd = fd
        guard let context = SSL_CTX_new(TLS_client_method()) else { throw TransportError("SSL_CTX_new") }
        self.context = context
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        guard let ssl = SSL_new(context) else { throw TransportError("SSL_new") }
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        _ = wspipe_SSL_set_tlsext_host_name(ssl, "localhost")
    }

    deinit { close() }

    /// True once the handshake is complete.
    func stepHandshake() throws -> Bool {
        let rc = SSL_connect(ssl)
        if rc == 1 { return true }
        let code = SSL_get_error(ssl, rc)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE { return false }
        throw TransportError("client handshake failed: \(code) \(OpenSSLError.take() ?? "")")
    }

    var protocolVersion: Int32 { SSL_version(ssl) }

    /// The newest session carries a ticket (a NewSessionTicket was processed).
    var hasTicket: Bool {
        guard let session = SSL_get_session(ssl) else { return false }
        return SSL_SESSION_has_ticket(session) == 1
    }

    /// Each NewSessionTicket replaces the client's session object (TLS 1.3
    /// sessions are single-use), so a new identity means a new ticket.
    var sessionIdentity: OpaquePointer? { SSL_get_session(ssl) }

    var receivedShutdown: Bool { SSL_get_shutdown(ssl) & SSL_RECEIVED_SHUTDOWN != 0 }

    /// Everything decrypted until the socket is empty or the stream ended.
    func readAll() -> [UInt8] {
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = SSL_read(ssl, &buf, Int32(buf.count))
            if n > 0 { out.append(contentsOf: buf[0..<Int(n)]); continue }
            lastError = SSL_get_error(ssl, n)
            return out
        }
    }

    func write(_ text: String) {
        let bytes = Array(text.utf8)
        XCTAssertEqual(SSL_write(ssl, bytes, Int32(bytes.count)), Int32(bytes.count))
    }

    func shutdown() {
        _ = SSL_shutdown(ssl)
    }

    /// Bytes the server sent that nobody has read yet.
    func pendingBytesOnSocket() -> Int {
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = recv(fd, &buf, buf.count, Int32(MSG_PEEK | MSG_DONTWAIT))
        return max(n, 0)
    }

    /// One read(2) under TLS: 0 at EOF.
    func rawRead() -> Int {
        var buf = [UInt8](repeating: 0, count: 64)
        return buf.withUnsafeMutableBytes { sysRead(fd, $0.baseAddress, $0.count) }
    }

    func rawWrite(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { FD.writeAll(fd, $0) }
    }

    func close() {
        guard !closed else { return }
        closed = true
        SSL_free(ssl)
        SSL_CTX_free(context)
        FD.close(fd)
    }
}
