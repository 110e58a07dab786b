/// A connected byte stream over a non-blocking socket: plain TCP or TLS.
///
/// The stream owns its fd: `close()` (or deinit) closes it. Read in a loop
/// until `.wouldBlock`, `.eof` or `.error`: a TLS stream may hold decrypted
/// bytes that poll(2) cannot see, and only such a loop drains them.
public protocol ByteStream: AnyObject {
    var fd: Int32 { get }
    /// Direction the stream must wait for after .wouldBlock (TLS may need the other one).
    var wants: EventLoop.Interest { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult
    /// Something the peer sent is waiting to be read: in the kernel, or for
    /// TLS in OpenSSL's buffers (a record or part of one). True when it
    /// cannot be told.
    var holdsUnreadInput: Bool { get }
    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult
    /// Half-close our side (TCP shutdown(SHUT_WR); TLS close_notify then shutdown).
    func shutdownWrite()
    func close()
}
