import COpenSSL

/// An OpenSSL SSL_CTX configured for our client or server side; TLSStreams
/// made from it share its trust store and certificate.
public final class TLSContext {
    let ctx: OpaquePointer
    let isClient: Bool
    /// False with -k: TLSStream then skips hostname checks too.
    let verifiesPeer: Bool

    private init(method: OpaquePointer?, isClient: Bool, verifiesPeer: Bool) throws {
        guard let ctx = SSL_CTX_new(method) else {
            throw TransportError("TLS: cannot create context: \(OpenSSLError.take() ?? "unknown error")")
        }
        self.ctx = ctx
        self.isClient = isClient
        self.verifiesPeer = verifiesPeer
        applyCommonSettings()
    }

    deinit { SSL_CTX_free(ctx) }

    public static func client(_ options: TLSClientOptions) throws -> TLSContext {
        let c = try TLSContext(method: TLS_client_method(), isClient: true, verifiesPeer: !options.insecure)
        if options.insecure {
            SSL_CTX_set_verify(c.ctx, SSL_VERIFY_NONE, nil)
        } else {
            SSL_CTX_set_verify(c.ctx, SSL_VERIFY_PEER, nil)
            try c.loadTrustStore(options.caFile)
        }
        if let key = options.keyFile, options.certFile == nil {
            throw TransportError("--key \(key): needs --cert")
        }
        if let cert = options.certFile {
            try c.loadIdentity(certFile: cert, keyFile: options.keyFile ?? cert)
        }
        try c.logKeys(to: options.keyLogFile)
        return c
    }

    /// No TLS 1.3 session tickets when the handshake completes: TLSStream
    /// sends one with the server's first write (the 101) instead. Tickets
    /// that arrive while a client writes its upgrade request are what
    /// clients reading and writing one TLS session from two threads (Python
    /// websockets' sync client) lose that request to: OpenSSL does not
    /// allow SSL_write while SSL_read is processing a handshake message.
    /// `clientCAFile`: mutual TLS, every client must present a certificate
    /// issued by a CA in this file (PEM), or its handshake fails.
    /// `keyLogFile`: --keylog or SSLKEYLOGFILE (`TLSKeyLog`).
    public static func server(certFile: String, keyFile: String, clientCAFile: String? = nil,
                              keyLogFile: String? = nil) throws -> TLSContext {
        let c = try TLSContext(method: TLS_server_method(), isClient: false, verifiesPeer: clientCAFile != nil)
        try c.loadIdentity(certFile: certFile, keyFile: keyFile)
        _ = SSL_CTX_set_num_tickets(c.ctx, 0)
        if let clientCAFile { try c.requireClientCertificates(caFile: clientCAFile) }
        try c.logKeys(to: keyLogFile)
        return c
    }

    /// The connections' secrets go to the key log (opened by the run at its
    /// start, which also says so on stderr; opened here when it was not).
    private func logKeys(to path: String?) throws {
        guard let path else { return }
        if let error = TLSKeyLog.open(path) { throw TransportError("--keylog \(path): \(error.reason)") }
        TLSKeyLog.install(on: ctx)
    }

    /// TLS 1.2 minimum (RFC 8996 deprecates 1.0/1.1). Partial writes so one
    /// SSL_write maps to what the socket took, like write(2); a moving buffer
    /// because our output buffer may compact between a WANT_WRITE and the retry.
    ///
    /// Read-ahead: one read(2) fetches a whole record and the start of the
    /// next instead of two per record (its 5-byte header, then its body);
    /// what OpenSSL holds beyond the record being returned is what
    /// `TLSStream.holdsUnreadInput` asks SSL_has_pending about. The buffer
    /// stays OpenSSL's default (one record and a little): OpenSSL 3.0 moves
    /// what is left in it to its front before each record, so a 64 KiB
    /// buffer copied every record about 1.5 times more (+110 instructions a
    /// 100-byte message, callgrind) and saved few reads: the socket seldom
    /// holds more than a record when it is read as fast as it fills.
    /// Released buffers: OpenSSL frees a session's read buffer whenever it
    /// holds nothing and its write buffer once a record is out, so an idle
    /// connection (a server's thousands of quiet clients) keeps none; a busy
    /// one gets them back from malloc, below its trim threshold, each time.
    private func applyCommonSettings() {
        _ = wspipe_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        _ = wspipe_SSL_CTX_set_mode(ctx, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER
                                             | SSL_MODE_RELEASE_BUFFERS))
        wspipe_SSL_CTX_set_read_ahead(ctx, 1)
        // SSL_OP_IGNORE_UNEXPECTED_EOF (SSL_OP_BIT(7), a macro Swift cannot
        // import): many servers drop TCP without close_notify; WebSocket has
        // its own Close handshake, so truncation is detected a layer up.
        _ = SSL_CTX_set_options(ctx, UInt64(1) << 7)
    }

    /// --cacert replaces the system store rather than adding to it, like curl.
    private func loadTrustStore(_ caFile: String?) throws {
        if let file = caFile {
            guard SSL_CTX_load_verify_locations(ctx, file, nil) == 1 else {
                throw TransportError("--cacert \(file): cannot load: \(OpenSSLError.take() ?? "no certificates found")")
            }
        } else if SSL_CTX_set_default_verify_paths(ctx) != 1 {
            throw TransportError("cannot load the system CA store: \(OpenSSLError.take() ?? "unknown error")")
        }
    }

    /// Mutual TLS on the server (RFC 8446 §4.3.2, RFC 5246 §7.4.4): ask every
    /// client for a certificate, name the acceptable CAs in the request so it
    /// can pick the right one, and fail the handshake without one
    /// (SSL_VERIFY_FAIL_IF_NO_PEER_CERT) or with one the CAs did not issue.
    private func requireClientCertificates(caFile: String) throws {
        guard SSL_CTX_load_verify_locations(ctx, caFile, nil) == 1 else {
            throw TransportError("--cacert \(caFile): cannot load: \(OpenSSLError.take() ?? "no certificates found")")
        }
        if let names = SSL_load_client_CA_file(caFile) { SSL_CTX_set_client_CA_list(ctx, names) }
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
    }

    private func loadIdentity(certFile: String, keyFile: String) throws {
        guard SSL_CTX_use_certificate_chain_file(ctx, certFile) == 1 else {
            throw TransportError("--cert \(certFile): cannot load: \(OpenSSLError.take() ?? "no certificate found")")
        }
        // use_PrivateKey_file already compares the key with the certificate and
        // reports a mismatch as its own failure: tell that apart from "cannot load".
        guard SSL_CTX_use_PrivateKey_file(ctx, keyFile, SSL_FILETYPE_PEM) == 1 else {
            let error = OpenSSLError.takeFirst()
            if let e = error, ERR_GET_REASON(e.code) == X509_R_KEY_VALUES_MISMATCH {
                throw TransportError("--key \(keyFile): does not match --cert \(certFile) (\(e.text))")
            }
            throw TransportError("--key \(keyFile): cannot load: \(error?.text ?? "no private key found")")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            let why = OpenSSLError.take() ?? "key values mismatch"
            throw TransportError("--key \(keyFile): does not match --cert \(certFile) (\(why))")
        }
    }
}
