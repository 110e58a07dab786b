#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child wspipe starts: `sh -c COMMAND` with posix_spawn, for a `|COMMAND`
/// route (its stdin a pipe wspipe writes), an `--exec` program (stdin and
/// stdout pipes, CGI variables added to its environment) or a
/// `--header-command` (stdin /dev/null, stdout a pipe wspipe reads).
///
/// posix_spawn rather than fork: the child shares nothing it could corrupt
/// (no Swift runtime running between fork and exec) and it is cheap with a
/// large heap. wspipe's ends of the pipes are non-blocking (a slow child
/// must not stall the loop) and close-on-exec (a second child must not
/// inherit them, or the first would never see EOF).
///
/// No child gets a non-blocking descriptor. O_NONBLOCK belongs to the open
/// file description, which a child shares with wspipe when it inherits one,
/// and most programs treat the EAGAIN it causes as fatal. So a child inherits
/// wspipe's stdout or stderr only when that is a terminal, a file or a
/// device, which wspipe never makes non-blocking; when it is a pipe or a
/// socket the child gets a pipe of its own, whose read end wspipe copies to
/// its stdout or stderr (`outputFD`, `errorFD`).
///
/// Each child leads a process group of its own, and is signalled as a group:
/// a pipeline or a command the shell did not exec is stopped with it, and
/// what is left of the group when the child has been reaped is killed (a
/// program's background processes end with it; daemons leave the group
/// with setsid). `OrphanGuard` kills the groups still alive when wspipe is
/// gone, however it went.
public final class Subprocess {
    public let command: String
    public let pid: Int32
    /// Write end of the child's stdin pipe; -1 once closed (or never a pipe).
    public private(set) var inputFD: Int32
    /// Read end of the child's stdout pipe, non-blocking: the data of
    /// `Output.pipe`, or what `Output.shared` could not share. -1 when there
    /// is none, or once closed.
    public private(set) var outputFD: Int32
    /// Read end of the child's stderr pipe when wspipe's stderr could not be
    /// shared (see the type's comment); -1 otherwise, or once closed.
    public private(set) var errorFD: Int32
    /// Raw waitpid status once reaped.
    public private(set) var waitStatus: Int32?

    /// What the child's stdin is.
    public enum Input: Sendable {
        /// A pipe wspipe writes (`inputFD`).
        case pipe
        /// /dev/null.
        case null
    }

    /// What the child's stdout (or stderr) is.
    public enum Output: Sendable {
        /// A pipe wspipe reads (`outputFD`).
        case pipe
        /// wspipe's own, when it can be shared without O_NONBLOCK; else a
        /// pipe whose bytes wspipe copies there (`outputFD` or `errorFD`).
        case shared
    }

    /// How the child's stdio and environment are set up.
    public struct Wiring: Sendable {
        public var input: Input
        public var output: Output
        /// "NAME=value" entries added to wspipe's environment (replacing
        /// variables of the same name).
        public var environment: [String]

        public init(input: Input = .pipe, output: Output = .shared, environment: [String] = []) {
            self.input = input
            self.output = output
            self.environment = environment
        }
    }

    /// Why a child could not be started: the command and the call that failed.
    public struct SpawnError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    private init(command: String, pid: pid_t, inputFD: Int32, outputFD: Int32, errorFD: Int32) {
        self.command = command
        self.pid = pid
        self.inputFD = inputFD
        self.outputFD = outputFD
        self.errorFD = errorFD
    }

    /// Never waits: an unreaped child is a zombie until wspipe exits, which is
    /// better than blocking in a deinit. Its owner reaps it.
    deinit {
        closeInput()
        closeOutput()
        closeErrors()
    }

    /// Starts `sh -c command` wired as `wiring` says. Errors name the
    /// command and the failed call.
    public static func spawn(_ command: String, _ wiring: Wiring = Wiring()) throws(SpawnError) -> Subprocess {
        var ends = ChildEnds()
        do throws(SpawnError) {
            try ends.makeInput(wiring.input, command)
            ends.output = try ChildEnds.outputEnds(wiring.output, sharing: 1, command)
            ends.errors = try ChildEnds.outputEnds(.shared, sharing: 2, command)
        } catch {
            ends.closeAll()
            throw error
        }
        var pid: pid_t = 0
        let rc = withSpawnSetup(stdin: ends.input.child, stdout: ends.output.child, stderr: ends.errors.child,
                                newGroup: true) { actions, attributes in
            withCStrings(["sh", "-c", command]) { argv in
                withEnvironment(adding: wiring.environment) { env in
                    posix_spawn(&pid, "/bin/sh", actions, attributes, argv, env)
                }
            }
        }
        ends.closeChildEnds()
        guard rc == 0 else {
            ends.closeAll()
            throw failure("posix_spawn", command, rc)
        }
        OrphanGuard.shared.adopt(group: pid)
        return Subprocess(command: command, pid: pid, inputFD: ends.input.ours, outputFD: ends.output.ours,
                          errorFD: ends.errors.ours)
    }

    /// Closes the pipe: the child reads EOF and (normally) exits.
    public func closeInput() {
        guard inputFD >= 0 else { return }
        close(inputFD)
        inputFD = -1
    }

    /// Closes wspipe's end of the child's stdout pipe.
    public func closeOutput() {
        guard outputFD >= 0 else { return }
        close(outputFD)
        outputFD = -1
    }

    /// Closes wspipe's end of the child's stderr pipe.
    public func closeErrors() {
        guard errorFD >= 0 else { return }
        close(errorFD)
        errorFD = -1
    }

    /// Sends `signal` to the child's process group unless the child has
    /// been reaped (the group is gone then: see `reaped`).
    public func send(_ signal: Signal) {
        guard waitStatus == nil else { return }
        _ = kill(-pid, signal.rawValue)
    }

    /// Reaps the child if it has exited, without waiting (SIGCHLD, or a
    /// poll); true once reaped.
    @discardableResult
    public func reapIfExited() -> Bool {
        if waitStatus != nil { return true }
        var status: Int32 = 0
        let rc = FD.retryingEINTR { Int(waitpid(pid, &status, WNOHANG)) }.result
        if rc == Int(pid) { reaped(status); return true }
        // ECHILD: reaped elsewhere; nothing left to wait for (and the pid may
        // be another process's by now: no signal to its group).
        if rc < 0 { waitStatus = -1; OrphanGuard.shared.release(group: pid); return true }
        return false
    }

    /// Closes the stdin pipe if still open and blocks until the child has
    /// exited, so everything it wrote is out. Returns the raw wait status.
    @discardableResult
    public func wait() -> Int32 {
        closeInput()
        if let waitStatus { return waitStatus }
        var status: Int32 = 0
        guard FD.retryingEINTR({ Int(waitpid(pid, &status, 0)) }).result >= 0 else {
            waitStatus = -1   // ECHILD, as in reapIfExited
            OrphanGuard.shared.release(group: pid)
            return -1
        }
        reaped(status)
        return status
    }

    /// Blocks until the child has exited: SIGTERM to its group, up to
    /// `graceNanos` for it to exit, then SIGKILL. Never leaves a zombie.
    public func terminate(graceNanos: Int64) {
        guard waitStatus == nil else { return }
        send(.terminate)
        let deadline = monotonicNanos() + graceNanos
        while !reapIfExited() && monotonicNanos() < deadline { usleep(10_000) }
        send(.kill)
        wait()
    }

    /// The leader is gone: what is left of its group goes with it, and the
    /// guard forgets the group.
    private func reaped(_ status: Int32) {
        waitStatus = status
        _ = kill(-pid, SIGKILL)
        OrphanGuard.shared.release(group: pid)
    }

    /// Exit code when the child exited normally (WIFEXITED), else nil.
    public var exitCode: Int32? {
        guard let status = waitStatus, status >= 0, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
    }

    /// "exited with status N", "was killed by SIGTERM", "ended" (reaped
    /// elsewhere), or "is running".
    public var exitDescription: String {
        if let exitCode { return "exited with status \(exitCode)" }
        guard let status = waitStatus else { return "is running" }
        guard status >= 0 else { return "ended" }
        return "was killed by \(Signal(rawValue: status & 0x7f))"
    }

    fileprivate static func failure(_ call: String, _ command: String, _ code: Int32) -> SpawnError {
        SpawnError(message: "cannot start command '\(command)': \(call): \(errnoText(code))")
    }
}

/// The pipes of one spawn: the child's ends (dup'ed onto 0-2 and closed
/// here after the spawn) and ours. -1 where there is none.
private struct ChildEnds {
    var input: (child: Int32, ours: Int32) = (-1, -1)
    var output: (child: Int32, ours: Int32) = (-1, -1)
    var errors: (child: Int32, ours: Int32) = (-1, -1)

    mutating func makeInput(_ input: Subprocess.Input, _ command: String) throws(Subprocess.SpawnError) {
        switch input {
        case .pipe:
            guard let ends = pipeAboveStdio() else { throw Subprocess.failure("pipe", command, errno) }
            self.input = (ends.read, ends.write)
            FD.setNonBlocking(ends.write)
        case .null:
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw Subprocess.failure("open /dev/null", command, errno) }
            self.input.child = movedAboveStdio(fd)
        }
    }

    /// A pipe for `.pipe`, and for `.shared` when wspipe's `fd` cannot be
    /// shared; none (the child inherits `fd`) when it can.
    static func outputEnds(_ output: Subprocess.Output, sharing fd: Int32,
                           _ command: String) throws(Subprocess.SpawnError) -> (child: Int32, ours: Int32) {
        if output == .shared && canShare(fd) { return (-1, -1) }
        guard let pipe = pipeAboveStdio() else { throw Subprocess.failure("pipe", command, errno) }
        FD.setNonBlocking(pipe.read)
        return (pipe.write, pipe.read)
    }

    /// wspipe makes pipes and sockets non-blocking (StdioMode), now or
    /// later in the run, so only other kinds of fd are shared, and only
    /// while they block. A closed fd is "shared" too: the child gets none.
    static func canShare(_ fd: Int32) -> Bool {
        guard let status = FD.status(fd) else { return true }
        return status.kind != .fifo && status.kind != .socket && !FD.isNonBlocking(fd)
    }

    func closeChildEnds() {
        for fd in [input.child, output.child, errors.child] where fd >= 0 { close(fd) }
    }

    func closeAll() {
        closeChildEnds()
        for fd in [input.ours, output.ours, errors.ours] where fd >= 0 { close(fd) }
    }
}

/// A pipe with both ends above stdio and close-on-exec.
func pipeAboveStdio() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    // Neither end may sit on 0-2, where the child's dup2 would clobber it.
    let readEnd = movedAboveStdio(ends[0])
    let writeEnd = movedAboveStdio(ends[1])
    _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
    _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
    return (readEnd, writeEnd)
}

/// fd itself when > 2, else a close-on-exec duplicate above 2 (the
/// original is closed).
private func movedAboveStdio(_ fd: Int32) -> Int32 {
    guard fd <= 2 else { return fd }
    let moved = fcntl(fd, F_DUPFD_CLOEXEC, 3)
    guard moved >= 0 else { return fd }
    close(fd)
    return moved
}

#if os(Linux)
typealias FileActions = posix_spawn_file_actions_t
typealias SpawnAttributes = posix_spawnattr_t
#else
typealias FileActions = posix_spawn_file_actions_t?
typealias SpawnAttributes = posix_spawnattr_t?
#endif

/// File actions (the pipes and /dev/null on 0-2; -1 leaves wspipe's fd) and
/// attributes (default SIGPIPE, empty signal mask, a new process group)
/// for one spawn.
///
/// wspipe ignores SIGPIPE, and ignored signals stay ignored across exec: without
/// POSIX_SPAWN_SETSIGDEF a `|yes | head` route would spin on EPIPE instead of dying.
func withSpawnSetup(
    stdin: Int32, stdout: Int32, stderr: Int32, newGroup: Bool,
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
    for (fd, target) in [(stdin, Int32(0)), (stdout, 1), (stderr, 2)] where fd >= 0 {
        posix_spawn_file_actions_adddup2(&actions, fd, target)
    }

    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attributes, &mask)
    var flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
    if newGroup {
        posix_spawnattr_setpgroup(&attributes, 0)   // a new group, led by the child
        flags |= POSIX_SPAWN_SETPGROUP
    }
    posix_spawnattr_setflags(&attributes, Int16(flags))
    return body(&actions, &attributes)
}

/// A NULL-terminated argv of C strings, valid during `body`.
func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
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
func withEnvironment<R>(adding added: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>?) -> R) -> R {
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
