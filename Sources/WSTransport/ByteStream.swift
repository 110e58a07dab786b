/// A connected byte stream over a non-blocking socket: plain TCP or TLS.
///
/// The stream owns its fd: `close()` (or deinit) closes it. Read in a loop
/// until `.wouldBlock`, `.eof` or `.error`: a TLS stream may hold decrypted
/// bytes that poll(2) cannot see, and only such a loop drains them.
public protocol ByteStream: KernelQueue {
    var fd: Int32 { get }
    /// Direction the stream must wait for after .wouldBlock (TLS may need the other one).
    var wants: EventLoop.Interest { get }
    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult
    func write(_ bytes: UnsafeRawBufferPointer) -> IOResult
    /// Bytes at the front of the next write that must be the ones the last
    /// write offered, which would block (TLS keeps a record of them half
    /// written); 0 for plain TCP, and after a write that went through.
    var heldBytes: Int { get }
    /// Half-close our side (TCP shutdown(SHUT_WR); TLS close_notify then shutdown).
    func shutdownWrite()
    func close()
}
