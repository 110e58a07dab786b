import WSTransport

/// When each step of the request that got the 101 was done (monotonic
/// nanoseconds): what -w/--write-out reports as time_namelookup,
/// time_connect, time_appconnect and time_upgrade (wspipe(1): OPTIONS,
/// Diagnostics). After redirects, the steps are the last request's, and
/// `requestStarted` says when it began (time_redirect).
package struct HandshakeTimings: Equatable {
    package var requestStarted: Int64 = 0
    package var resolved: Int64 = 0
    package var connected: Int64 = 0
    /// nil without TLS.
    package var tlsDone: Int64?
    package var upgraded: Int64 = 0
    /// The first hop's address: the server's, or the proxy's.
    package var remoteHost = ""
    package var remotePort = 0
}
