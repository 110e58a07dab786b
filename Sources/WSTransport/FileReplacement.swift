#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole small files written so that a reader never sees half of one
/// (the cookie jar): the bytes go to a temporary file next to it, which is
/// then renamed over it (rename(2) is atomic within a file system).
public enum FileReplacement {
    /// Writes `bytes` as the new content of `path`, created with `mode`
    /// (the umask applies). Nil on success, else what failed.
    public static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) -> IOError? {
        let temporary = path + ".wspipe-\(getpid())"
        let fd: Int32
        switch FD.open(temporary, O_WRONLY | O_CREAT | O_TRUNC, mode: mode) {
        case .success(let opened): fd = opened
        case .failure(let error): return error
        }
        if let error = bytes.withUnsafeBytes({ FD.writeAll(fd, $0) }) {
            FD.close(fd)
            unlink(temporary)
            return error
        }
        FD.close(fd)
        guard rename(temporary, path) == 0 else {
            let error = IOError(call: "rename", errno: currentErrno())
            unlink(temporary)
            return error
        }
        return nil
    }

    /// True when `path` names nothing (ENOENT): a cookie file that does not
    /// exist yet is an empty one, as curl reads it.
    public static func isMissing(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) != 0 && currentErrno() == ENOENT
    }
}

/// Seconds since the Unix epoch, by the wall clock: cookie expiry dates
/// (RFC 6265 §5.3) are wall-clock times.
public func wallClockSeconds() -> Int64 {
    var ts = timespec()
    _ = clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec)
}
