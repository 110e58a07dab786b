#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raw fd I/O for everything above the transport: stdin, stdout, routes,
/// stderr, small files. Every call that a signal can interrupt goes through
/// `retryingEINTR`, the one place that retries EINTR.
///
/// On a blocking fd (tty, regular file) read/write simply block, which is what
/// we want there: poll(2) reports such fds as always ready.
public enum FD {
    /// One read(2). `into` must not be empty (a zero-byte read would look like EOF).
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        let (n, e) = retryingEINTR { sysRead(fd, buffer.baseAddress, buffer.count) }
        if n > 0 { return .bytes(n) }
        if n == 0 { return .eof }
        return failure("read", e)
    }

    /// One write(2); may write less than `bytes.count`.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        if bytes.isEmpty { return .bytes(0) }
        let (n, e) = retryingEINTR { sysWrite(fd, bytes.baseAddress, bytes.count) }
        if n >= 0 { return .bytes(n) }
        return failure("write", e)
    }

    /// One writev(2) of two pieces, `first` then `second`; may write less.
    public static func write(_ fd: Int32, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> IOResult {
        var vectors = (iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count),
                       iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count))
        let (n, e) = withUnsafeBytes(of: &vectors) { v in
            retryingEINTR { sysWritev(fd, v.baseAddress!.assumingMemoryBound(to: iovec.self), 2) }
        }
        if n >= 0 { return .bytes(n) }
        return failure("writev", e)
    }

    /// Blocking: writes every byte, waiting in poll(2) while a non-blocking
    /// fd (a pipe made so for the loop) is full. Nil when all was written.
    @discardableResult
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOError? {
        var done = 0
        while done < bytes.count {
            switch write(fd, UnsafeRawBufferPointer(rebasing: bytes[done...])) {
            case .bytes(let n): done += n
            case .wouldBlock: waitUntilReady(fd, .write)
            case .eof: return IOError(call: "write", errno: EPIPE)   // write never reports EOF
            case .error(let error): return error
            }
        }
        return nil
    }

    /// Blocking: reads until EOF, waiting in poll(2) while a non-blocking fd
    /// is empty. With `limit`, stops as soon as more than `limit` bytes were
    /// read (the caller sees `count > limit` and refuses the file).
    public static func readAll(_ fd: Int32, limit: Int = Int.max) -> Result<[UInt8], IOError> {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count <= limit {
            switch chunk.withUnsafeMutableBytes({ read(fd, into: $0) }) {
            case .bytes(let n): bytes.append(contentsOf: chunk[0..<n])
            case .wouldBlock: waitUntilReady(fd, .read)
            case .eof: return .success(bytes)
            case .error(let error): return .failure(error)
            }
        }
        return .success(bytes)
    }

    /// How a file is opened by `open(_:_:)`.
    public enum Access: Sendable {
        /// Read only.
        case read
        /// Write only, every write at the end (O_APPEND: lines of several
        /// writers never overwrite each other); created with `mode` (less
        /// the umask) when missing.
        case append(creatingWithMode: UInt32)
        /// Write only, emptied first; created with `mode` (less the umask).
        case replace(creatingWithMode: UInt32)
    }

    /// Opens `path` close-on-exec (no child inherits it).
    public static func open(_ path: String, _ access: Access) -> Result<Int32, IOError> {
        switch access {
        case .read: return open(path, O_RDONLY)
        case .append(let mode): return open(path, O_WRONLY | O_APPEND | O_CREAT, mode: mode_t(mode))
        case .replace(let mode): return open(path, O_WRONLY | O_TRUNC | O_CREAT, mode: mode_t(mode))
        }
    }

    /// Opens, reads whole and closes a file; nil content with the error when
    /// it cannot be opened or read.
    public static func readFile(_ path: String, limit: Int = Int.max) -> Result<[UInt8], IOError> {
        let fd: Int32
        switch open(path, .read) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(error)
        }
        defer { close(fd) }
        return readAll(fd, limit: limit)
    }

    /// What fstat(2) says about an open file.
    public struct Status: Sendable {
        public enum Kind: Sendable { case regular, directory, fifo, socket, characterDevice, other }
        public var kind: Kind
        /// Device and inode: two paths to one file have the same.
        public var device: UInt64
        public var inode: UInt64
        public var size: Int
        /// The permission bits (0o777).
        public var permissions: UInt32
    }

    public static func status(_ fd: Int32) -> Status? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let kind: Status.Kind
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFSOCK: kind = .socket
        case S_IFCHR: kind = .characterDevice
        default: kind = .other
        }
        return Status(kind: kind, device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int(st.st_size),
                      permissions: UInt32(st.st_mode & 0o777))
    }

    /// fchmod(2): sets the permission bits.
    @discardableResult
    public static func setPermissions(_ fd: Int32, _ permissions: UInt32) -> IOError? {
        fchmod(fd, mode_t(permissions)) == 0 ? nil : IOError(call: "chmod", errno: currentErrno())
    }

    /// Cuts the file to `size` bytes (ftruncate(2)).
    public static func truncate(_ fd: Int32, to size: Int) -> IOError? {
        ftruncate(fd, off_t(size)) == 0 ? nil : IOError(call: "ftruncate", errno: currentErrno())
    }

    /// Moves the file offset to `count` bytes before the end (lseek(2)).
    public static func seek(_ fd: Int32, toBeforeEnd count: Int) -> IOError? {
        lseek(fd, off_t(-count), SEEK_END) >= 0 ? nil : IOError(call: "lseek", errno: currentErrno())
    }

    /// The fd is open in this process.
    public static func isOpen(_ fd: Int32) -> Bool {
        fcntl(fd, F_GETFD) >= 0
    }

    /// O_NONBLOCK on (an fd that poll(2) must not let block the loop).
    public static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 && flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// O_NONBLOCK is set on the fd's open file description.
    public static func isNonBlocking(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFL)
        return flags >= 0 && flags & O_NONBLOCK != 0
    }

    /// Blocks in poll(2) until fd is ready in `direction`, or reports an
    /// error or hang-up (which the next read or write then turns into its result).
    public static func waitUntilReady(_ fd: Int32, _ direction: EventLoop.Interest) {
        var p = pollfd(fd: fd, events: direction.contains(.write) ? Int16(POLLOUT) : Int16(POLLIN), revents: 0)
        _ = retryingEINTR { Int(poll(&p, 1, -1)) }
    }

    /// Blocks in poll(2) until one of `fds` is readable (or at EOF, or
    /// failed), at most `timeoutMillis`; returns those that are.
    public static func waitUntilReadable(_ fds: [Int32], timeoutMillis: Int32) -> [Int32] {
        var polled = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = retryingEINTR { Int(poll(&polled, nfds_t(polled.count), timeoutMillis)) }.result
        guard n > 0 else { return [] }
        return polled.filter { $0.revents != 0 }.map(\.fd)
    }

    /// open(2) with O_CLOEXEC added, so no command route inherits the fd.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) -> Result<Int32, IOError> {
        let (fd, e) = retryingEINTR { Int(sysOpen(path, flags | O_CLOEXEC, mode)) }
        if fd >= 0 { return .success(Int32(fd)) }
        return .failure(IOError(call: "open", errno: e))
    }

    public static func close(_ fd: Int32) {
        sysClose(fd)
    }

    /// Maps a failed call's errno to an IOResult; shared with the socket streams
    /// so every byte stream reports would-block and EPIPE the same way.
    static func failure(_ call: String, _ e: Int32) -> IOResult {
        if e == EAGAIN || e == EWOULDBLOCK { return .wouldBlock }
        return .error(IOError(call: call, errno: e))
    }

    /// Runs `call` again while a signal interrupts it (EINTR; SignalWatcher
    /// installs its handlers with SA_RESTART, but poll(2) and non-restartable
    /// calls still see it). Returns the result and, when negative, errno.
    @inline(__always)
    static func retryingEINTR(_ call: () -> Int) -> (result: Int, errno: Int32) {
        while true {
            let n = call()
            if n >= 0 { return (n, 0) }
            let e = currentErrno()
            if e != EINTR { return (n, e) }
        }
    }
}
