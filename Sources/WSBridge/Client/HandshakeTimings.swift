import WSTransport

/// When each step of the request that got the 101 was done (monotonic
/// nanoseconds): what -w/--write-out reports as time_namelookup,
/// time_connect, time_appconnect and time_upgrade (wspipe(1): OPTIONS,
/// Diagnostics). After redirects, the steps are the last request's, and
/// `requestStarted` says when it began (time_redirect).
struct HandshakeTimings: Equatable {
    var requestStarted: Int64 = 0
    var resolved: Int64 = 0
    var connected: Int64 = 0
    /// nil without TLS.
    var tlsDone: Int64?
    var upgraded: Int64 = 0
    /// The first hop's address: the server's, or the proxy's.
    var remoteHost = ""
    var remotePort = 0
}
