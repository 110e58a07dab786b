#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `|COMMAND` route's child: `sh -c COMMAND` started with posix_spawn, its
/// stdin the read end of a pipe whose write end we keep, its stdout and stderr
/// wspipe's own. The same spawn serves `--exec` (its stdout a pipe we read,
/// CGI variables added to its environment) and `--header-command` (stdin
/// /dev/null, stdout a pipe we read): see `Wiring`.
///
/// posix_spawn rather than fork: the child shares nothing it could corrupt
/// (no Swift runtime running between fork and exec) and it is cheap with a
/// large heap. The write end is non-blocking (a slow command must not stall
/// the loop) and close-on-exec (a second command must not inherit it, or the
/// first would never see EOF).
public final class Subprocess {
    public let command: String
    public let pid: pid_t
    /// Write end of the child's stdin pipe; -1 once closed (or never a pipe).
    public private(set) var inputFD: Int32
    /// Read end of the child's stdout pipe (non-blocking) when spawned with
    /// `Wiring.capturesOutput`; -1 otherwise or once closed.
    public private(set) var outputFD: Int32
    /// Raw waitpid status once reaped.
    public private(set) var waitStatus: Int32?

    /// How the child's stdio and environment are set up.
    public struct Wiring {
        /// stdin: a pipe we write (`inputFD`), else /dev/null.
        public var feedsInput = true
        /// stdout: a pipe we read (`outputFD`), else wspipe's stdout.
        public var capturesOutput = false
        /// "NAME=value" entries added to wspipe's environment (replacing
        /// variables of the same name).
        public var environment: [String] = []
        /// A process group of its own, which `send(signal:)` signals whole:
        /// a pipeline or a command the shell did not exec is stopped with it.
        public var ownProcessGroup = false

        public init(feedsInput: Bool = true, capturesOutput: Bool = false, environment: [String] = [],
                    ownProcessGroup: Bool = false) {
            self.feedsInput = feedsInput
            self.capturesOutput = capturesOutput
            self.environment = environment
            self.ownProcessGroup = ownProcessGroup
        }
    }

    private let signalsGroup: Bool

    /// Why a child could not be started: the command and the call that failed.
    public struct SpawnError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private init(command: String, pid: pid_t, inputFD: Int32, outputFD: Int32, signalsGroup: Bool) {
        self.command = command
        self.pid = pid
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.signalsGroup = signalsGroup
    }

    /// Never waits: an unreaped child is a zombie until wspipe exits, which is
    /// better than blocking in a deinit. RouteTable.finish() reaps.
    deinit {
        closeInput()
        closeOutput()
    }

    /// Starts `sh -c command` for a route. Errors name the command and the failed call.
    public static func spawn(_ command: String) throws(SpawnError) -> Subprocess {
        try spawn(command, Wiring())
    }

    /// Starts `sh -c command` wired as `wiring` says. Our ends of the pipes
    /// are non-blocking and close-on-exec (no other child inherits them);
    /// the child's ends are blocking, as programs expect.
    public static func spawn(_ command: String, _ wiring: Wiring) throws(SpawnError) -> Subprocess {
        var input: (child: Int32, ours: Int32) = (-1, -1)
        var output: (child: Int32, ours: Int32) = (-1, -1)
        func closeAll() { for fd in [input.child, input.ours, output.child, output.ours] where fd >= 0 { close(fd) } }
        if wiring.feedsInput {
            guard let ends = pipeAboveStdio() else { throw failure("pipe", command, errno) }
            input = (ends.read, ends.write)
        } else {
            input.child = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard input.child >= 0 else { throw failure("open /dev/null", command, errno) }
            input.child = movedAboveStdio(input.child)
        }
        if wiring.capturesOutput {
            guard let ends = pipeAboveStdio() else { let e = errno; closeAll(); throw failure("pipe", command, e) }
            output = (ends.write, ends.read)
        }
        for fd in [input.ours, output.ours] where fd >= 0 { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let outputs = [wiring.capturesOutput ? -1 : blockingReopen(1), blockingReopen(2)]
        defer { for fd in outputs where fd >= 0 { close(fd) } }

        var pid: pid_t = 0
        let stdout = wiring.capturesOutput ? output.child : outputs[0]
        let rc = withSpawnSetup(stdin: input.child, stdout: stdout, stderr: outputs[1],
                                ownProcessGroup: wiring.ownProcessGroup) { actions, attributes in
            withCStrings(["sh", "-c", command]) { argv in
                withEnvironment(adding: wiring.environment) { env in
                    posix_spawn(&pid, "/bin/sh", actions, attributes, argv, env)
                }
            }
        }
        close(input.child)
        if output.child >= 0 { close(output.child) }
        guard rc == 0 else {
            for fd in [input.ours, output.ours] where fd >= 0 { close(fd) }
            throw failure("posix_spawn", command, rc)
        }
        return Subprocess(command: command, pid: pid, inputFD: input.ours, outputFD: output.ours,
                              signalsGroup: wiring.ownProcessGroup)
    }

    /// A pipe with both ends above stdio and close-on-exec.
    private static func pipeAboveStdio() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        // Neither end may sit on 0-2, where the child's dup2 would clobber it.
        let readEnd = movedAboveStdio(ends[0])
        let writeEnd = movedAboveStdio(ends[1])
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        return (readEnd, writeEnd)
    }

    /// Closes the pipe: the child reads EOF and (normally) exits.
    public func closeInput() {
        guard inputFD >= 0 else { return }
        close(inputFD)
        inputFD = -1
    }

    /// Closes our end of the child's stdout pipe.
    public func closeOutput() {
        guard outputFD >= 0 else { return }
        close(outputFD)
        outputFD = -1
    }

    /// Sends `signal` to the child (and its process group, when it has its
    /// own) unless it has been reaped: its pid may belong to another process
    /// by then. The group outlives a reaped leader only in its stragglers.
    public func send(signal: Int32) {
        guard waitStatus == nil else { return }
        _ = kill(signalsGroup ? -pid : pid, signal)
    }

    /// Reaps the child if it has exited, without waiting (SIGCHLD, or a
    /// poll); true once reaped.
    @discardableResult
    public func reapIfExited() -> Bool {
        if waitStatus != nil { return true }
        var status: Int32 = 0
        var rc: pid_t
        repeat { rc = waitpid(pid, &status, WNOHANG) } while rc < 0 && errno == EINTR
        if rc == pid { waitStatus = status; return true }
        if rc < 0 { waitStatus = -1; return true }   // ECHILD: reaped elsewhere; nothing left to wait for
        return false
    }

    /// Closes the pipe if still open and blocks until the child has exited,
    /// so everything it wrote is out. Returns the raw wait status.
    @discardableResult
    public func wait() -> Int32 {
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
    public var exitCode: Int32? {
        guard let status = waitStatus, status >= 0, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    private static func failure(_ call: String, _ command: String, _ code: Int32) -> SpawnError {
        SpawnError(message: "cannot start command '\(command)': \(call): \(String(cString: strerror(code)))")
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
    stdin: Int32, stdout: Int32, stderr: Int32, ownProcessGroup: Bool = false,
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
    var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
    if ownProcessGroup {
        posix_spawnattr_setpgroup(&attributes, 0)   // a new group, led by the child
        flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
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

/// The current environment with `added` ("NAME=value") entries replacing
/// those of the same name, valid during `body`.
private func withEnvironment<R>(adding added: [String],
                                _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
    guard !added.isEmpty else { return body(environment()) }
    let names = Set(added.map { $0.prefix { $0 != "=" } })
    var entries: [String] = []
    if var cursor = environment() {
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if !names.contains(text.prefix { $0 != "=" }) { entries.append(text) }
            cursor += 1
        }
    }
    return withCStrings(entries + added) { env in env.withUnsafeBufferPointer { body($0.baseAddress) } }
}
