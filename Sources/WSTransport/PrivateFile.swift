#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way wspipe creates and writes the files that hold what is the
/// user's alone (the cookie jar, the interactive history, --record, the
/// saved messages): tokens and session cookies must not reach another local
/// user, and a name another user planted must not redirect the write.
///
/// - A file made anew is created with O_EXCL|O_NOFOLLOW, mode 0600 exactly
///   (fchmod after the umask), so a name that already exists, a symbolic
///   link included, is never opened in its place.
/// - A whole file is replaced through a temporary file of a random name in
///   the same folder, renamed over it (rename(2) is atomic within a file
///   system, so a reader never sees half of it; a predictable name could be
///   planted by whoever may write in the folder, such as /tmp).
/// - A file appended to is opened without following a symbolic link, must
///   be this user's, and is put back to 0600 when its mode was wider.
/// - What is not a regular file (/dev/null, a terminal, a pipe, reached by
///   its own name or through a link such as /dev/stdout) is written as it
///   is: it has no content to expose and no mode that matters.
public enum PrivateFile {
    public static let mode: mode_t = 0o600

    // MARK: replacing a whole file

    /// Writes `bytes` as the new content of `path`. Nil on success, else what failed.
    public static func replace(_ path: String, with bytes: [UInt8]) -> IOError? {
        switch existingKind(path) {
        case .special, .link:
            // Not a file of ours to replace: write into what it is, when
            // that is no regular file (a link to one is refused).
            let fd: Int32
            switch openExisting(path, O_WRONLY) {
            case .success(let opened): fd = opened
            case .failure(let error): return error
            }
            defer { FD.close(fd) }
            return bytes.withUnsafeBytes { FD.writeAll(fd, $0) }
        case .regularOrMissing:
            return replaceThroughTemporary(path, bytes)
        }
    }

    private static func replaceThroughTemporary(_ path: String, _ bytes: [UInt8]) -> IOError? {
        let temporary: String
        let fd: Int32
        switch createTemporary(nextTo: path) {
        case .success(let created): (temporary, fd) = created
        case .failure(let error): return error
        }
        if let error = bytes.withUnsafeBytes({ FD.writeAll(fd, $0) }) {
            FD.close(fd)
            unlink(temporary)
            return error
        }
        FD.close(fd)
        guard systemRename(temporary, path) == 0 else {
            let error = IOError(call: "rename", errno: currentErrno())
            unlink(temporary)
            return error
        }
        return nil
    }

    /// `PATH.wspipe-` and 16 random hex digits, created O_EXCL|O_NOFOLLOW
    /// with mode 0600 (a name that exists is tried again with another).
    static func createTemporary(nextTo path: String) -> Result<(String, Int32), IOError> {
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            let name = path + ".wspipe-" + hex(generator.next())
            switch createNew(name) {
            case .success(let fd): return .success((name, fd))
            case .failure(let error) where error.errno == EEXIST && attempt < 8: attempt += 1
            case .failure(let error): return .failure(error)
            }
        }
    }

    /// A new file at `path` (none may be there, not even a link), mode 0600.
    public static func createNew(_ path: String) -> Result<Int32, IOError> {
        switch FD.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: mode) {
        case .success(let fd):
            // The umask may have taken bits off: 0600 exactly.
            if let error = FD.setPermissions(fd, UInt32(mode)) {
                FD.close(fd)
                unlink(path)
                return .failure(error)
            }
            return .success(fd)
        case .failure(let error): return .failure(error)
        }
    }

    // MARK: appending

    /// Opens `path` for appending (O_APPEND: each write at the end),
    /// creating it with mode 0600 when missing. An existing file must be a
    /// regular file of this user's, not reached through a symbolic link;
    /// its mode is put back to 0600. Something that is not a regular file
    /// (a terminal, a pipe, /dev/null, /dev/stderr) is opened as it is.
    public static func openForAppending(_ path: String) -> Result<Int32, IOError> {
        let fd: Int32
        switch FD.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW, mode: mode) {
        case .success(let opened): fd = opened
        case .failure(let error) where error.errno == ELOOP:
            return openExisting(path, O_WRONLY | O_APPEND)
        case .failure(let error): return .failure(error)
        }
        if let error = makePrivate(fd) {
            FD.close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// A regular file open as `fd` made the user's alone: refused when it
    /// belongs to another user (who could read what is appended, whatever
    /// its mode: an owner may change it back), else chmod 0600.
    private static func makePrivate(_ fd: Int32) -> IOError? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return IOError(call: "fstat", errno: currentErrno()) }
        guard st.st_mode & S_IFMT == S_IFREG else { return nil }
        guard st.st_uid == geteuid() else {
            return IOError(call: "open", message: "the file belongs to another user (uid \(st.st_uid)); "
                + "wspipe writes only to a file of its user's")
        }
        guard st.st_mode & 0o777 != mode else { return nil }
        return FD.setPermissions(fd, UInt32(mode))
    }

    // MARK: what is there

    private enum ExistingKind { case regularOrMissing, link, special }

    private static func existingKind(_ path: String) -> ExistingKind {
        var st = stat()
        guard lstat(path, &st) == 0 else { return .regularOrMissing }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .regularOrMissing
        case S_IFLNK: return .link
        default: return .special
        }
    }

    /// Opens what `path` names now, following a link, creating nothing;
    /// refused when that is a regular file reached through a link (a planted
    /// link must not send the write to another file).
    private static func openExisting(_ path: String, _ flags: Int32) -> Result<Int32, IOError> {
        var link = stat()
        let isLink = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
        let fd: Int32
        switch FD.open(path, flags | O_NOCTTY) {
        case .success(let opened): fd = opened
        case .failure(let error):
            if isLink && error.isNotFound { return .failure(refusedLink) }
            return .failure(error)
        }
        var st = stat()
        if isLink && fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG {
            FD.close(fd)
            return .failure(refusedLink)
        }
        return .success(fd)
    }

    private static let refusedLink = IOError(
        call: "open", message: "it is a symbolic link; wspipe writes private files only by their own name")

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}

/// Seconds since the Unix epoch, by the wall clock: cookie expiry dates
/// (RFC 6265 §5.3) are wall-clock times.
public func wallClockSeconds() -> Int64 {
    var ts = timespec()
    _ = clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec)
}
