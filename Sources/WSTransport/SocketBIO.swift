#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL

/// The BIO a `TLSStream` reads and writes its records through, in place of
/// OpenSSL's socket BIO, so that the stream knows what OpenSSL cannot tell
/// it: how many bytes of records went to the socket (the offsets the kernel's
/// acknowledgements count in), and when the last segment read arrived (its
/// stamp comes with recvmsg(2), which the socket BIO does not call). It
/// writes with send(2) and MSG_NOSIGNAL, so a reset peer is EPIPE, never a
/// signal.
enum SocketBIO {
    /// What the BIO holds: the socket, its kernel and what was written.
    final class Socket {
        let fd: Int32
        var kernel: SocketKernel
        /// Transport bytes written (since `KernelQueue.start`).
        var written = 0
        /// errno of the last call that failed (OpenSSL reports
        /// SSL_ERROR_SYSCALL; the errno is read from here, not after it).
        var errno: Int32 = 0

        init(fd: Int32) {
            self.fd = fd
            self.kernel = SocketKernel(fd: fd)
        }
    }

    /// A BIO over `socket`, which it keeps alive until OpenSSL frees it.
    static func make(_ socket: Socket) -> OpaquePointer? {
        guard let method, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passRetained(socket).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "wspipe socket") else { return nil }
        _ = BIO_meth_set_write(method, write)
        _ = BIO_meth_set_read(method, read)
        _ = BIO_meth_set_ctrl(method, control)
        _ = BIO_meth_set_destroy(method, destroy)
        return method
    }()

    private static func socket(_ bio: OpaquePointer?) -> Socket? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<Socket>.fromOpaque(data).takeUnretainedValue()
    }

    private static let write: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, bytes, count in
        guard let socket = socket(bio) else { return -1 }
        BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        let (n, e) = FD.retryingEINTR { sysSend(socket.fd, bytes, Int(count)) }
        if n >= 0 {
            socket.written += n
            return Int32(n)
        }
        socket.errno = e
        if e == EAGAIN || e == EWOULDBLOCK { BIO_set_flags(bio, BIO_FLAGS_WRITE | BIO_FLAGS_SHOULD_RETRY) }
        return -1
    }

    private static let read: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, bytes, count in
        guard let socket = socket(bio) else { return -1 }
        BIO_clear_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_WRITE | BIO_FLAGS_IO_SPECIAL | BIO_FLAGS_SHOULD_RETRY)
        guard let bytes, count > 0 else { return 0 }
        let (n, e) = socket.kernel.receive(into: UnsafeMutableRawBufferPointer(start: bytes, count: Int(count)))
        if n >= 0 { return Int32(n) }
        socket.errno = e
        if e == EAGAIN || e == EWOULDBLOCK { BIO_set_flags(bio, BIO_FLAGS_READ | BIO_FLAGS_SHOULD_RETRY) }
        return -1
    }

    /// Only a flush (nothing is buffered here) and the descriptor are asked for.
    private static let control: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = {
        bio, command, _, pointer in
        switch command {
        case BIO_CTRL_FLUSH:
            return 1
        case BIO_C_GET_FD:
            guard let socket = socket(bio) else { return -1 }
            pointer?.storeBytes(of: socket.fd, as: Int32.self)
            return Int(socket.fd)
        default:
            return 0
        }
    }

    private static let destroy: @convention(c) (OpaquePointer?) -> Int32 = { bio in
        guard let bio, let data = BIO_get_data(bio) else { return 1 }
        Unmanaged<Socket>.fromOpaque(data).release()
        BIO_set_data(bio, nil)
        return 1
    }
}
