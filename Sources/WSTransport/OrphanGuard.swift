#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Makes sure no child of wspipe outlives it, even when wspipe is killed
/// with SIGKILL and cannot clean up: a small `sh` started with the first
/// child, in a process group of its own (terminal signals do not reach it),
/// reads the process groups of wspipe's children from a pipe whose write end
/// only wspipe holds (close-on-exec, so no child holds it). When wspipe is
/// gone, however it went, the pipe reads EOF and the guard sends SIGTERM to
/// every group still listed, then SIGKILL a second later. The guard is not
/// wspipe's child (a shell starts it in the background and exits), so
/// wspipe's children are its programs only.
///
/// A group is listed from the spawn until its leader has been reaped and
/// the rest of the group killed (`Subprocess`), so at a normal exit the guard
/// usually has nothing to do. Portable where PR_SET_PDEATHSIG is not (and
/// that would reach the child only, not its own children).
final class OrphanGuard {
    nonisolated(unsafe) static let shared = OrphanGuard()

    private enum State {
        /// No child yet.
        case idle
        /// The write end of the guard's stdin.
        case guarding(Int32)
        /// The guard could not be started, or is gone (killed by hand): the
        /// children are unguarded; it is not started again.
        case unavailable
    }

    private var state = State.idle

    /// The guard's script: "+PGID" lists a group, "-PGID" forgets it; at EOF
    /// the groups left are terminated, then killed.
    private static let script = """
        trap '' HUP INT QUIT TERM
        groups=' '
        while read -r line; do
          case $line in
            +*) groups="$groups${line#+} " ;;
            -*) g=${line#-}
                case $groups in *" $g "*) groups="${groups%% $g *} ${groups#* $g }" ;; esac ;;
          esac
        done
        set -- $groups
        [ $# -gt 0 ] || exit 0
        for g do kill -s TERM -- "-$g" 2>/dev/null; done
        sleep 1
        for g do kill -s KILL -- "-$g" 2>/dev/null; done
        """

    /// Lists a new child's process group, starting the guard with the first.
    func adopt(group: Int32) {
        if case .idle = state { state = start() }
        tell("+\(group)\n")
    }

    /// The group is gone (its leader reaped, the rest killed).
    func release(group: Int32) {
        tell("-\(group)\n")
    }

    private func start() -> State {
        guard let ends = pipeAboveStdio() else { return .unavailable }
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        var pid: pid_t = 0
        // A background list's stdin is /dev/null unless redirected: the
        // pipe goes to it through fd 3.
        let launcher = #"exec 3<&0; sh -c "$0" <&3 3<&- &"#
        let rc = withSpawnSetup(stdin: ends.read, stdout: null, stderr: null, newGroup: true) { actions, attributes in
            withCStrings(["sh", "-c", launcher, Self.script]) { argv in
                withEnvironment(adding: []) { env in posix_spawn(&pid, "/bin/sh", actions, attributes, argv, env) }
            }
        }
        close(ends.read)
        if null >= 0 { close(null) }
        guard rc == 0 else { close(ends.write); return .unavailable }
        var status: Int32 = 0
        _ = FD.retryingEINTR { Int(waitpid(pid, &status, 0)) }
        return .guarding(ends.write)
    }

    /// One short blocking write; the guard reads at once. A guard that is
    /// gone (killed by hand) is not replaced.
    private func tell(_ line: String) {
        guard case .guarding(let fd) = state else { return }
        if Array(line.utf8).withUnsafeBytes({ FD.writeAll(fd, $0) }) != nil {
            close(fd)
            state = .unavailable
        }
    }
}
