/// TLS settings for a wss:// client (the -k/--cacert/--cert/--key flags).
public struct TLSClientOptions {
    public var insecure = false           // -k: no certificate or hostname verification
    public var caFile: String? = nil      // --cacert: trust these CAs instead of the system store
    public var certFile: String? = nil    // --cert: client certificate (PEM)
    public var keyFile: String? = nil     // --key: its private key (PEM); defaults to certFile
    public var keyLogFile: String? = nil  // --keylog or SSLKEYLOGFILE: TLS secrets for Wireshark (TLSKeyLog)
    public init() {}
}
