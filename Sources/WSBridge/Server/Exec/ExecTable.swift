import WSCore
import WSTransport

/// The --exec pairs of a server (wspipe(1): OPTIONS, Server mode): one
/// program per client, started before the client gets its 101 (so that a
/// program that cannot start, or one too many, is a 503, not a connection
/// opened and closed at once) and kept until the program has been reaped,
/// which may be after its client left.
final class ExecTable {
    private let command: String
    private let shell: SessionShell
    private let serverPort: () -> UInt16
    private let tls: Bool
    /// --max-programs: programs at once, running or still winding down.
    private let maxPrograms: Int
    private var pairs: [Int: ExecClient] = [:]
    /// Programs started for clients whose 101 is being sent, by client id.
    private var starting: [Int: Subprocess] = [:]
    /// A pair was released (its client gone, its program reaped).
    var onReleased: () -> Void = {}
    /// Program lines that were not sent, all programs together: the first
    /// report says how to send them (a program that prints plain text is
    /// the commonest case: websocketd's scripts do).
    private(set) var rejectedLines = 0
    /// A refusal at --max-programs was said on stderr since there was last room.
    private var saidFull = false
    /// Programs that could not start: said at most once a second (each
    /// client refused is still named with -v and in its event).
    private var startFailures = ReportThrottle(intervalNanos: 1_000_000_000)

    init(command: String, shell: SessionShell, tls: Bool, maxPrograms: Int, serverPort: @escaping () -> UInt16) {
        self.command = command
        self.shell = shell
        self.tls = tls
        self.maxPrograms = maxPrograms
        self.serverPort = serverPort
    }

    var ids: Dictionary<Int, ExecClient>.Keys { pairs.keys }

    /// Programs that are ours now: each is a process until it is reaped.
    var programCount: Int { pairs.count + starting.count }

    func pair(of client: ServerClient) -> ExecClient? { pairs[client.id] }

    /// Starts the program of client `id`, whose upgrade request was just
    /// admitted; the refusal (503) when --max-programs are running or the
    /// program cannot be started (no process, no pipe: EAGAIN, EMFILE).
    /// The refusal says why, to the client and the operator (who is told
    /// once each time the limit is reached: a crowd of clients is one line).
    func prepare(id: Int, peer: String, request: UpgradeRequest) -> ServerClient.HTTPRefusal? {
        guard programCount < maxPrograms else {
            defer { saidFull = true }
            return .init(status: 503, reason: "Service Unavailable",
                         detail: "\(programCount) program\(programCount == 1 ? "" : "s") running, the --max-programs limit",
                         warning: saidFull ? nil : " (so are the next clients until a program ends; -v names them)")
        }
        saidFull = false
        let environment = CGIEnvironment.variables(for: request, id: id, peer: peer, serverPort: serverPort(), tls: tls)
        let dropped = CGIEnvironment.droppedHeaderNames(request.headers)
        if !dropped.isEmpty {
            shell.log.info("client \(id) (\(peer)): \(dropped.count) request header(s) left out of the program's environment (a name with other than letters, digits and '-'): \(dropped.joined(separator: ", "))")
        }
        do {
            starting[id] = try Subprocess.spawn(command, .init(input: .pipe, output: .pipe, environment: environment))
            return nil
        } catch {
            let warning = startFailures.take(now: shell.loop.nowNanos).map { held in
                held == 0 ? "" : " (and \(held) client(s) refused so since the last report; -v names them)"
            }
            return .init(status: 503, reason: "Service Unavailable", detail: "cannot start the program (\(error.message))",
                         warning: warning)
        }
    }

    /// Pairs the program started by `prepare` with its client, now upgraded.
    func start(for client: ServerClient) {
        guard let process = starting.removeValue(forKey: client.id) else { return }
        let pair = ExecClient(client: client, process: process, shell: shell, graceNanos: shell.bridge.closeTimeoutNanos)
        pair.onRejected = { [unowned self] in
            self.rejectedLines += 1
            return self.rejectedLines == 1
        }
        pair.onReleased = { [unowned self] pair in
            self.pairs[pair.client.id] = nil
            self.onReleased()
        }
        pairs[client.id] = pair
        client.channel?.onDrained = { [weak pair] in pair?.clientDrained() }
    }

    /// SIGCHLD: each pair reaps its own program if it exited.
    func childrenExited() {
        for pair in Array(pairs.values) { pair.childrenExited() }
    }

    /// After the loop: no program outlives wspipe or stays a zombie.
    func reapAll() {
        for pair in pairs.values { pair.reapBlocking() }
        pairs.removeAll()
        for process in starting.values { ExecClient.reapBlocking(process) }
        starting.removeAll()
    }
}
