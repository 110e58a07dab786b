/// What a connected socket's kernel can say about the bytes wspipe wrote to
/// it and the bytes waiting for wspipe (wspipe(1): RECONNECT AND REPLAY):
/// the one door through which the delivery account (`DeliveryMonitor` in the
/// bridge) learns what the peer's TCP acknowledged and when. Both byte
/// streams implement it; the bridge's unit tests script it.
///
/// Offsets count the transport's bytes (TLS records whole, with their
/// overhead) from `start()`: what was written before (the upgrade, the TLS
/// handshake) is not counted.
public protocol KernelQueue: AnyObject {
    /// Called once when the connection starts carrying frames: the offsets
    /// count from here. True when the kernel stamps acknowledgements and
    /// arrivals (Linux SO_TIMESTAMPING; `stamps`: wanted), false where it
    /// cannot (another system, a Unix socket, WSPIPE_KERNEL_TIMESTAMPS=0).
    func start(stamps: Bool) -> Bool
    /// Transport bytes written since `start`.
    var bytesWritten: Int { get }
    /// Bytes written that the peer's TCP has not acknowledged (SIOCOUTQ;
    /// SO_NWRITE on macOS); nil where it cannot be told.
    func unacknowledgedBytes() -> Int?
    /// Something the peer sent waits to be read: in the kernel, or for TLS
    /// in OpenSSL's buffers. True when it cannot be told.
    var holdsUnreadInput: Bool { get }
    /// The acknowledgements the kernel stamped since the last call, oldest
    /// first: everything up to transport offset `offset` was acknowledged at
    /// wall-clock `nanos`. Returns how many there were.
    @discardableResult
    func takeAcknowledgements(_ body: (_ offset: Int, _ nanos: Int64) -> Void) -> Int
    /// When the last byte the last read returned arrived (wall clock, the
    /// kernel's stamp); nil when not known.
    var lastArrival: Int64? { get }
    /// TCP_INFO: transport bytes the peer's TCP acknowledged since `start`,
    /// and the receive window it advertises now; nil where not known.
    func receiveWindow() -> (acknowledged: Int, window: Int)?
    /// TCP_INFO: the kernel's smoothed round trip to the peer (tcpi_rtt),
    /// measured on its segments, so a busy peer's slow answers do not
    /// lengthen it; nil where not known.
    func roundTripNanos() -> Int64?
}
