#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Original file status flags of every fd we made non-blocking. A global
/// because restoreAll() runs from exit paths with no context to carry it.
nonisolated(unsafe) private var savedFlags: [(fd: Int32, flags: Int32)] = []

/// stdin/stdout helpers: make a pipe/socket fd non-blocking (not ttys, not regular
/// files), remembering the original flags to restore at exit.
///
/// O_NONBLOCK lives on the open file description, which is shared with the
/// processes on the other side of our stdio (the shell, `cat`, ...): leaving
/// it set would make their reads fail with EAGAIN after we exit. Ttys are left
/// alone for the same reason; regular files ignore it.
public enum StdioMode {
    /// Makes fd non-blocking if it is a pipe or a socket. Idempotent.
    public static func prepare(_ fd: Int32) {
        guard fileType(fd) == S_IFIFO || fileType(fd) == S_IFSOCK else { return }
        guard !savedFlags.contains(where: { $0.fd == fd }) else { return }
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0 else { return }
        savedFlags.append((fd, flags))
        if flags & O_NONBLOCK == 0 { _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Puts back the flags prepare() changed (call at exit and on SIGINT),
    /// and the terminal's settings if the interactive mode changed them.
    public static func restoreAll() {
        TerminalMode.restore()
        for entry in savedFlags { _ = fcntl(entry.fd, F_SETFL, entry.flags) }
        savedFlags.removeAll()
    }

    public static func isTerminal(_ fd: Int32) -> Bool {
        isatty(fd) == 1
    }

    /// The S_IFMT bits of fd's mode (S_ISFIFO and friends are macros Swift
    /// cannot import); 0 when fstat fails.
    private static func fileType(_ fd: Int32) -> mode_t {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return 0 }
        return st.st_mode & S_IFMT
    }
}
