#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import COpenSSL

/// The TLS key log (`--keylog FILE`, `SSLKEYLOGFILE`): the secrets of every
/// TLS connection, client and server side, in the NSS key log format that
/// Wireshark reads (`CLIENT_RANDOM ...` for TLS 1.2, the `*_TRAFFIC_SECRET_*`
/// lines for TLS 1.3). OpenSSL writes each line in that format already and
/// hands it to the callback (SSL_CTX_set_keylog_callback), which appends it
/// with one write(2): with O_APPEND, the lines of other programs sharing the
/// file (browsers, curl) are never interleaved with ours.
///
/// One file for the process, opened once when the run starts.
public enum TLSKeyLog {
    nonisolated(unsafe) private static var fd: Int32 = -1
    nonisolated(unsafe) public private(set) static var path: String? = nil

    /// Opens `path` for appending as every private file of wspipe's is
    /// (`PrivateFile`: created 0600, an existing file of this user's put back
    /// to 0600, another user's file or a link to one refused), since it may
    /// be shared with other programs, which go on appending. Nil on success,
    /// or when it is open already.
    public static func open(_ path: String) -> IOError? {
        if fd >= 0 { return nil }
        switch PrivateFile.openForAppending(path) {
        case .success(let opened):
            fd = opened
            self.path = path
            return nil
        case .failure(let error):
            return error
        }
    }

    /// Has every TLS connection made from `ctx` log its secrets, when the log is open.
    static func install(on ctx: OpaquePointer) {
        guard fd >= 0 else { return }
        SSL_CTX_set_keylog_callback(ctx) { _, line in
            guard let line else { return }
            TLSKeyLog.append(line)
        }
    }

    /// One line, with its newline, in one write.
    private static func append(_ line: UnsafePointer<CChar>) {
        let length = strlen(line)
        var bytes = [UInt8](repeating: 10, count: length + 1)
        bytes.withUnsafeMutableBytes { buffer in
            buffer.baseAddress!.copyMemory(from: line, byteCount: length)
        }
        _ = bytes.withUnsafeBytes { FD.writeAll(fd, $0) }
    }
}
