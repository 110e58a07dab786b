#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain TCP over a connected non-blocking socket. Owns the fd.
public final class TCPStream: ByteStream {
    public private(set) var fd: Int32
    public private(set) var wants: EventLoop.Interest = .read
    private var kernel: SocketKernel
    /// Bytes sent since `start` (KernelQueue).
    public private(set) var bytesWritten = 0

    public init(fd: Int32) {
        self.fd = fd
        self.kernel = SocketKernel(fd: fd)
    }

    deinit { close() }

    public func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        wants = .read
        return kernel.read(into: buffer)
    }

    public var holdsUnreadInput: Bool { SocketQueue.unreadBytes(fd).map { $0 > 0 } ?? true }

    /// The kernel takes what it takes: nothing is held half written.
    public var heldBytes: Int { 0 }

    // MARK: KernelQueue

    public func start(stamps: Bool) -> Bool {
        bytesWritten = 0
        return kernel.start(stamps: stamps)
    }

    public func unacknowledgedBytes() -> Int? { SocketQueue.unacknowledgedBytes(fd) }

    @discardableResult
    public func takeAcknowledgements(_ body: (Int, Int64) -> Void) -> Int {
        kernel.takeAcknowledgements(written: bytesWritten, body)
    }

    public var lastArrival: Int64? { kernel.lastArrival }

    public func receiveWindow() -> (acknowledged: Int, window: Int)? { kernel.receiveWindow() }

    public func roundTripNanos() -> Int64? { kernel.roundTripNanos() }

    /// send(2) rather than write(2): MSG_NOSIGNAL turns a reset peer into EPIPE.
    public func write(_ bytes: UnsafeRawBufferPointer) -> IOResult {
        wants = .write
        if bytes.isEmpty { return .bytes(0) }
        let (n, e) = FD.retryingEINTR { sysSend(fd, bytes.baseAddress, bytes.count) }
        if n >= 0 { bytesWritten += n; return .bytes(n) }
        return FD.failure("send", e)
    }

    /// Sends FIN; the peer sees EOF, we can still read its remaining bytes.
    public func shutdownWrite() {
        guard fd >= 0 else { return }
        #if os(Linux)
        _ = shutdown(fd, Int32(SHUT_WR))
        #else
        _ = shutdown(fd, SHUT_WR)
        #endif
    }

    /// Gives up the fd without closing it (a proxy tunnel handed on to TLS
    /// or the WebSocket handshake).
    public func releaseFD() -> Int32 {
        let owned = fd
        fd = -1
        return owned
    }

    public func close() {
        guard fd >= 0 else { return }
        sysClose(fd)
        fd = -1
    }
}
