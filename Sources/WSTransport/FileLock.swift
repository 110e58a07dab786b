#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A read-modify-write of a small file that several wspipe processes may
/// make at once (two interactive sessions saving a message): each holds an
/// exclusive flock(2) on the file itself from before it reads until after
/// it has renamed the new content over it (PrivateFile), so the second
/// reads what the first wrote instead of writing over it.
///
/// The lock is on the file, not on a lock file next to it (nothing more in
/// the user's directory). The file the lock was taken on may have been
/// replaced (renamed over) while waiting for it: the lock is then on a file
/// nobody reads any more, so it is taken again on the new one, until the
/// file locked is the one the path names. A process that dies lets go of
/// its lock with its file descriptors.
public enum FileLock {
    /// Runs `body` holding the lock on `path`, which is created (empty, with
    /// `mode` less the umask) when missing; the error when it cannot be
    /// opened or locked.
    ///
    /// The wait is bounded (`waitNanos`, 3 s): the caller runs the event
    /// loop, and a process that holds the lock for good (someone's `flock`
    /// by hand) must not freeze it; it then says who is in the way.
    public static func whileLocked<T>(_ path: String, creatingWithMode mode: UInt32, waitNanos: Int64 = 3_000_000_000,
                                      _ body: () -> T) -> Result<T, IOError> {
        while true {
            let fd: Int32
            // Not through a link: a planted one would have us create a file elsewhere.
            switch FD.open(path, O_RDONLY | O_CREAT | O_NOFOLLOW, mode: mode_t(mode)) {
            case .success(let opened): fd = opened
            case .failure(let error): return .failure(error)
            }
            if let error = lock(fd, waitingAtMost: waitNanos) {
                FD.close(fd)
                return .failure(error)
            }
            guard isSameFile(fd, path) else {
                FD.close(fd)   // replaced while we waited: lock the new one
                continue
            }
            let result = body()
            FD.close(fd)   // lets go of the lock
            return .success(result)
        }
    }

    /// Takes the exclusive lock, trying again every 10 ms until `waitNanos`
    /// have passed; the error then (EWOULDBLOCK: held by another process).
    private static func lock(_ fd: Int32, waitingAtMost waitNanos: Int64) -> IOError? {
        let deadline = monotonicNanos() + waitNanos
        while true {
            let (locked, e) = FD.retryingEINTR { Int(flock(fd, LOCK_EX | LOCK_NB)) }
            if locked == 0 { return nil }
            guard e == EWOULDBLOCK, monotonicNanos() < deadline else {
                return IOError(call: "flock", message: e == EWOULDBLOCK
                    ? "another process has held a lock on the file for \(waitNanos / 1_000_000_000) s" : errnoText(e))
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            _ = nanosleep(&pause, nil)
        }
    }

    /// The open file is the one `path` names now (false when the path
    /// names nothing any more: it is created again).
    private static func isSameFile(_ fd: Int32, _ path: String) -> Bool {
        var opened = stat()
        var named = stat()
        guard fstat(fd, &opened) == 0 else { return true }
        guard stat(path, &named) == 0 else { return currentErrno() != ENOENT }
        return opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }
}
