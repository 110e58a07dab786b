#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `|COMMAND` route's child: `sh -c COMMAND` started with posix_spawn, its
/// stdin the read end of a pipe whose write end we keep, its stdout and stderr
/// wspipe's own.
///
/// posix_spawn rather than fork: the child shares nothing it could corrupt
/// (no Swift runtime running between fork and exec) and it is cheap with a
/// large heap. The write end is non-blocking (a slow command must not stall
/// the loop) and close-on-exec (a second command must not inherit it, or the
/// first would never see EOF).
final class CommandProcess {
    let command: String
    let pid: pid_t
    /// Write end of the child's stdin pipe; -1 once closed.
    private(set) var inputFD: Int32
    /// Raw waitpid status once reaped.
    private(set) var waitStatus: Int32?

    private init(command: String, pid: pid_t, inputFD: Int32) {
        self.command = command
        self.pid = pid
        self.inputFD = inputFD
    }

    /// Never waits: an unreaped child is a zombie until wspipe exits, which is
    /// better than blocking in a deinit. RouteTable.finish() reaps.
    deinit {
        closeInput()
    }

    /// Starts `sh -c command`. Errors name the command and the failed call.
    static func spawn(_ command: String) throws(RouteSpecError) -> CommandProcess {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw failure("pipe", command, errno) }
        // Neither end may sit on 0-2, where the child's dup2 would clobber it.
        let readEnd = movedAboveStdio(ends[0])
        let writeEnd = movedAboveStdio(ends[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        let outputs = [blockingReopen(1), blockingReopen(2)]
        defer { for fd in outputs where fd >= 0 { close(fd) } }

        var pid: pid_t = 0
        let rc = withSpawnSetup(stdin: readEnd, stdout: outputs[0], stderr: outputs[1]) { actions, attributes in
            withCStrings(["sh", "-c", command]) { argv in
                posix_spawn(&pid, "/bin/sh", actions, attributes, argv, environment())
            }
        }
        close(readEnd)
        guard rc == 0 else {
            close(writeEnd)
            throw failure("posix_spawn", command, rc)
        }
        return CommandProcess(command: command, pid: pid, inputFD: writeEnd)
    }

    /// Closes the pipe: the child reads EOF and (normally) exits.
    func closeInput() {
        guard inputFD >= 0 else { return }
        close(inputFD)
        inputFD = -1
    }

    /// Closes the pipe if still open and blocks until the child has exited,
    /// so everything it wrote is out. Returns the raw wait status.
    @discardableResult
    func wait() -> Int32 {
        closeInput()
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { status = -1; break }
        }
        waitStatus = status
        return status
    }

    /// Exit code when the child exited normally (WIFEXITED), else nil.
    var exitCode: Int32? {
        guard let status = waitStatus, status >= 0, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    private static func failure(_ call: String, _ command: String, _ code: Int32) -> RouteSpecError {
        RouteSpecError("cannot start command '\(command)': \(call): \(String(cString: strerror(code)))")
    }

    /// fd itself when > 2, else a close-on-exec duplicate above 2 (the
    /// original is closed).
    private static func movedAboveStdio(_ fd: Int32) -> Int32 {
        guard fd <= 2 else { return fd }
        let moved = fcntl(fd, F_DUPFD_CLOEXEC, 3)
        guard moved >= 0 else { return fd }
        close(fd)
        return moved
    }

    /// O_NONBLOCK lives on the open file description, so a child inheriting
    /// our non-blocking stdout pipe would get EAGAIN from its own writes (and
    /// most programs treat that as fatal). On Linux, opening /proc/self/fd/N of
    /// a pipe creates a fresh description of the same pipe, blocking, which
    /// the child gets instead. Returns -1 when N needs no help or the trick
    /// is unavailable (the child then inherits N unchanged).
    static func blockingReopen(_ fd: Int32) -> Int32 {
        #if os(Linux)
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, flags & O_NONBLOCK != 0 else { return -1 }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFIFO else { return -1 }
        // O_NONBLOCK on open: a FIFO open for writing would otherwise wait for
        // a reader forever when ours is gone (then ENXIO, and we fall back).
        let reopened = open("/proc/self/fd/\(fd)", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard reopened >= 0 else { return -1 }
        let moved = movedAboveStdio(reopened)
        _ = fcntl(moved, F_SETFL, fcntl(moved, F_GETFL) & ~O_NONBLOCK)
        return moved
        #else
        return -1
        #endif
    }
}

#if os(Linux)
private typealias FileActions = posix_spawn_file_actions_t
private typealias SpawnAttributes = posix_spawnattr_t
#else
private typealias FileActions = posix_spawn_file_actions_t?
private typealias SpawnAttributes = posix_spawnattr_t?
#endif

/// File actions (pipe on 0, reopened outputs on 1/2) and attributes (default
/// SIGPIPE, empty signal mask) for one spawn.
///
/// wspipe ignores SIGPIPE, and ignored signals stay ignored across exec: without
/// POSIX_SPAWN_SETSIGDEF a `|yes | head` route would spin on EPIPE instead of dying.
private func withSpawnSetup(
    stdin: Int32, stdout: Int32, stderr: Int32,
    _ body: (UnsafePointer<FileActions>, UnsafePointer<SpawnAttributes>) -> Int32
) -> Int32 {
    #if os(Linux)
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    #else
    var actions: posix_spawn_file_actions_t? = nil
    var attributes: posix_spawnattr_t? = nil
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    if stdout >= 0 { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
    if stderr >= 0 { posix_spawn_file_actions_adddup2(&actions, stderr, 2) }

    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    return body(&actions, &attributes)
}

/// A NULL-terminated argv of C strings, valid during `body`.
private func withCStrings<R>(_ strings: [String],
                             _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var argv: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    argv.append(nil)
    defer { for p in argv { free(p) } }
    return body(argv)
}

/// The current environment for the child (PATH and friends).
private func environment() -> UnsafePointer<UnsafeMutablePointer<CChar>?>? {
    #if os(Linux)
    return UnsafePointer(environ)
    #else
    return UnsafePointer(_NSGetEnviron().pointee)
    #endif
}
