#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel side of a connected socket, for `KernelQueue`: its queues,
/// and on Linux its timestamps (SO_TIMESTAMPING) and TCP_INFO. Shared by
/// the plain and the TLS stream, which count their own bytes written.
///
/// The timestamps (Documentation/networking/timestamping.rst):
/// SOF_TIMESTAMPING_TX_ACK stamps the moment the peer's TCP acknowledged
/// the last byte of each send(2), read from the socket's error queue with
/// OPT_ID's key (that byte's number, counted from `start`; OPT_ID_TCP makes
/// it count from the next byte written rather than the oldest unacknowledged
/// one, and is used where the kernel has it, 6.2 and later); RX_SOFTWARE
/// stamps each arriving segment, and a TCP read returns the stamp of the
/// last segment it took. Both are CLOCK_REALTIME. A queued stamp makes
/// poll(2) report POLLERR, so the owner drains them (`takeAcknowledgements`)
/// whenever it sees that.
struct SocketKernel {
    let fd: Int32
    private(set) var stamps = false
    /// The number (from `start`) of the byte a key counts from, less one.
    private var keyOrigin = 0
    /// TCP bytes written before `start` (TCP_INFO counts from the connection's first).
    private var writtenBefore = 0
    private(set) var lastArrival: Int64?

    init(fd: Int32) {
        self.fd = fd
    }

    /// WSPIPE_KERNEL_TIMESTAMPS=0 turns the stamps off (the bound is then
    /// used, as on systems without them: a test forces it so).
    static var stampsAllowed: Bool { ProcessEnvironment.variable("WSPIPE_KERNEL_TIMESTAMPS") != "0" }

    /// Arrival stamps asked for as soon as the socket exists: Linux turns
    /// them on for the whole system a moment after the first socket asks
    /// (a deferred work item), and until then segments arrive unstamped. By
    /// the time the connection carries frames (`start`), they are on.
    static func turnOnArrivalStamps(_ fd: Int32) {
        #if os(Linux)
        guard stampsAllowed else { return }
        setIntOption(fd, SOL_SOCKET, soTimestamping, rxSoftware | software)
        #endif
    }

    mutating func start(stamps wanted: Bool) -> Bool {
        #if os(Linux)
        let unacknowledged = SocketQueue.unacknowledgedBytes(fd) ?? 0
        if let info = Self.tcpInfo(fd) { writtenBefore = info.acknowledged + unacknowledged }
        guard wanted, Self.stampsAllowed, Self.isTCP(fd) else { return false }
        let flags = Self.txAck | Self.software | Self.optID | Self.tsOnly | Self.rxSoftware
        if setIntOption(fd, SOL_SOCKET, Self.soTimestamping, flags | Self.optIDTCP) {
            keyOrigin = 0
        } else if setIntOption(fd, SOL_SOCKET, Self.soTimestamping, flags) {
            // Keys count from the oldest byte not acknowledged.
            keyOrigin = -unacknowledged
        } else {
            return false
        }
        stamps = true
        return true
        #else
        return false
        #endif
    }

    // MARK: reading

    /// read(2), or with stamps recvmsg(2) keeping the arrival of the last
    /// byte read (nil when the kernel gave none: the first segments after
    /// the stamps are turned on may come without).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        guard stamps else { return FD.read(fd, into: buffer) }
        let (n, e) = receive(into: buffer)
        if n > 0 { return .bytes(n) }
        if n == 0 { return .eof }
        return FD.failure("read", e)
    }

    /// One read: the count (0 at EOF) or -1 and errno.
    mutating func receive(into buffer: UnsafeMutableRawBufferPointer) -> (Int, Int32) {
        #if os(Linux)
        guard stamps else { return FD.retryingEINTR { sysRead(fd, buffer.baseAddress, buffer.count) } }
        var control = Self.controlSpace
        var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
        var arrival: Int64?
        let result = withUnsafeMutableBytes(of: &control) { space -> (Int, Int32) in
            withUnsafeMutablePointer(to: &vector) { vectorPointer in
                var message = msghdr()
                message.msg_iov = vectorPointer
                message.msg_iovlen = 1
                message.msg_control = space.baseAddress
                message.msg_controllen = space.count
                let result = FD.retryingEINTR { recvmsg(fd, &message, 0) }
                if result.0 > 0 {
                    Self.forEachControl(space, length: Int(message.msg_controllen)) { level, type, data in
                        if level == SOL_SOCKET && type == Self.soTimestamping { arrival = Self.softwareStamp(data) }
                    }
                }
                return result
            }
        }
        if result.0 > 0 { lastArrival = arrival }
        return result
        #else
        return FD.retryingEINTR { sysRead(fd, buffer.baseAddress, buffer.count) }
        #endif
    }

    // MARK: acknowledgements

    /// Drains the error queue: each stamped acknowledgement as (transport
    /// offset acknowledged, wall-clock nanoseconds). `written`: the
    /// transport bytes written since `start` (keys are 32 bits and wrap).
    func takeAcknowledgements(written: Int, _ body: (Int, Int64) -> Void) -> Int {
        guard stamps else { return 0 }
        #if os(Linux)
        var count = 0
        var control = Self.errorSpace
        while true {
            var key: UInt32?
            var stamp: Int64?
            let n = withUnsafeMutableBytes(of: &control) { space -> Int in
                var message = msghdr()
                message.msg_control = space.baseAddress
                message.msg_controllen = space.count
                let n = recvmsg(fd, &message, Int32(MSG_ERRQUEUE) | Int32(MSG_DONTWAIT))
                guard n >= 0 else { return n }
                Self.forEachControl(space, length: Int(message.msg_controllen)) { level, type, data in
                    if level == SOL_SOCKET && type == Self.soTimestamping {
                        stamp = Self.softwareStamp(data)
                    } else if (level == IPPROTO_IP && type == IP_RECVERR) || (level == IPPROTO_IPV6 && type == IPV6_RECVERR) {
                        key = Self.acknowledgementKey(data)
                    }
                }
                return n
            }
            if n < 0 {
                if currentErrno() == EINTR { continue }
                return count
            }
            guard let key, let stamp else { continue }
            // The key numbers the last byte acknowledged; the offset is one past it.
            let number = Int(key) + 1 + keyOrigin
            body(written - ((written - number) & 0xFFFF_FFFF), stamp)
            count += 1
        }
        #else
        return 0
        #endif
    }

    // MARK: TCP_INFO

    /// Bytes the peer's TCP acknowledged since `start`, and the window it advertises.
    func receiveWindow() -> (acknowledged: Int, window: Int)? {
        guard let info = Self.tcpInfo(fd) else { return nil }
        return (max(0, info.acknowledged - writtenBefore), info.window)
    }

    /// The kernel's smoothed round trip, in nanoseconds.
    func roundTripNanos() -> Int64? {
        Self.tcpInfo(fd).map { Int64($0.roundTripMicros) * 1000 }
    }

    #if os(Linux)
    /// tcpi_bytes_acked, tcpi_snd_wnd (Linux 5.4) and tcpi_rtt (µs): offsets
    /// 120, 228 and 68 of struct tcp_info in linux/tcp.h, an ABI that only grows.
    private static func tcpInfo(_ fd: Int32) -> (acknowledged: Int, window: Int, roundTripMicros: UInt32)? {
        var info = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                    UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                    UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                    UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        return withUnsafeMutableBytes(of: &info) { bytes -> (Int, Int, UInt32)? in
            var length = socklen_t(bytes.count)
            guard getsockopt(fd, Int32(IPPROTO_TCP), TCP_INFO, bytes.baseAddress, &length) == 0, length >= 232 else {
                return nil
            }
            let acknowledged = bytes.loadUnaligned(fromByteOffset: 120, as: UInt64.self)
            let window = bytes.loadUnaligned(fromByteOffset: 228, as: UInt32.self)
            let roundTrip = bytes.loadUnaligned(fromByteOffset: 68, as: UInt32.self)
            return (Int(clamping: acknowledged), Int(window), roundTrip)
        }
    }

    private static func isTCP(_ fd: Int32) -> Bool {
        var domain: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 else { return false }
        return domain == AF_INET || domain == AF_INET6
    }

    // linux/net_tstamp.h, asm-generic/socket.h (SO_TIMESTAMPING_OLD: 64-bit time).
    private static let soTimestamping: Int32 = 37
    private static let rxSoftware: Int32 = 1 << 3
    private static let software: Int32 = 1 << 4
    private static let optID: Int32 = 1 << 7
    private static let txAck: Int32 = 1 << 9
    private static let tsOnly: Int32 = 1 << 11
    private static let optIDTCP: Int32 = 1 << 16
    // linux/errqueue.h
    private static let originTimestamping: UInt8 = 4
    private static let stampAck: UInt32 = 2

    /// Room for one struct scm_timestamping, or for it and a struct
    /// sock_extended_err with its address, each behind a cmsghdr.
    private static let controlSpace = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                                       UInt64(0), UInt64(0), UInt64(0))
    private static let errorSpace = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                                     UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0),
                                     UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))

    /// Each control message: level, type and data (CMSG_FIRSTHDR/CMSG_NXTHDR).
    private static func forEachControl(_ space: UnsafeMutableRawBufferPointer, length: Int,
                                       _ body: (Int32, Int32, UnsafeRawBufferPointer) -> Void) {
        let header = MemoryLayout<cmsghdr>.size
        var offset = 0
        let end = min(length, space.count)
        while offset + header <= end {
            let size = space.loadUnaligned(fromByteOffset: offset, as: Int.self)
            let level = space.loadUnaligned(fromByteOffset: offset + 8, as: Int32.self)
            let type = space.loadUnaligned(fromByteOffset: offset + 12, as: Int32.self)
            guard size >= header, offset + size <= end else { return }
            body(level, type, UnsafeRawBufferPointer(rebasing: space[(offset + header) ..< (offset + size)]))
            offset += (size + 7) & ~7
        }
    }

    /// ts[0] of struct scm_timestamping, the software stamp.
    private static func softwareStamp(_ data: UnsafeRawBufferPointer) -> Int64? {
        guard data.count >= 16 else { return nil }
        let seconds = data.loadUnaligned(fromByteOffset: 0, as: Int64.self)
        let nanos = data.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        guard seconds != 0 || nanos != 0 else { return nil }
        return seconds * 1_000_000_000 + nanos
    }

    /// ee_data of an acknowledgement's struct sock_extended_err.
    private static func acknowledgementKey(_ data: UnsafeRawBufferPointer) -> UInt32? {
        guard data.count >= 16 else { return nil }
        let errno = data.loadUnaligned(fromByteOffset: 0, as: UInt32.self)
        let origin = data[4]
        let info = data.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        guard errno == UInt32(ENOMSG), origin == originTimestamping, info == stampAck else { return nil }
        return data.loadUnaligned(fromByteOffset: 12, as: UInt32.self)
    }
    #else
    private static func tcpInfo(_ fd: Int32) -> (acknowledged: Int, window: Int, roundTripMicros: UInt32)? { nil }
    #endif
}
