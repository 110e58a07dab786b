#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written only at its end, a whole line at a time (--record). Each
/// `append` is one write(2) with O_APPEND, so a line is never split by
/// another writer of the same file, and a line is in the file (in the
/// kernel's page cache) as soon as `append` returns: nothing is buffered in
/// wspipe, so nothing is lost when it is killed.
public final class AppendFile {
    public let path: String
    private var fd: Int32

    /// Opens `path` for appending as a `PrivateFile`: a recording holds
    /// every message, tokens included (like the history file and the cookie
    /// jar, it is the user's alone).
    public init(path: String) throws(IOError) {
        self.path = path
        switch PrivateFile.openForAppending(path) {
        case .success(let fd): self.fd = fd
        case .failure(let error): throw error
        }
    }

    deinit { close() }

    /// Writes all of `bytes` (a regular file takes a write whole; a pipe may
    /// need several). Nil when it was written.
    public func append(_ bytes: UnsafeRawBufferPointer) -> IOError? {
        guard fd >= 0 else { return IOError(call: "write", errno: EBADF) }
        return FD.writeAll(fd, bytes)
    }

    public func close() {
        guard fd >= 0 else { return }
        FD.close(fd)
        fd = -1
    }
}
