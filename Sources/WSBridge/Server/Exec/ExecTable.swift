/// The --exec pairs of a server (wspipe(1): OPTIONS, Server mode): one
/// program per client, started when the client is upgraded and kept until
/// the program has been reaped, which may be after its client left.
final class ExecTable {
    private let command: String
    private let shell: SessionShell
    private let serverPort: () -> UInt16
    private let tls: Bool
    private var pairs: [Int: ExecClient] = [:]
    /// A pair was released (its client gone, its program reaped).
    var onReleased: () -> Void = {}
    /// Program lines that were not sent, all programs together: the first
    /// report says how to send them (a program that prints plain text is
    /// the commonest case: websocketd's scripts do).
    private(set) var rejectedLines = 0

    init(command: String, shell: SessionShell, tls: Bool, serverPort: @escaping () -> UInt16) {
        self.command = command
        self.shell = shell
        self.tls = tls
        self.serverPort = serverPort
    }

    var ids: Dictionary<Int, ExecClient>.Keys { pairs.keys }

    func pair(of client: ServerClient) -> ExecClient? { pairs[client.id] }

    /// Starts the program of a client that was just upgraded; false (and
    /// reported) when it cannot be started.
    func start(for client: ServerClient) -> Bool {
        guard let request = client.request else { return false }
        let environment = CGIEnvironment.variables(for: request, id: client.id, peer: client.peer,
                                                   serverPort: serverPort(), tls: tls)
        do {
            let pair = try ExecClient(client: client, command: command, environment: environment, shell: shell,
                                      graceNanos: shell.bridge.closeTimeoutNanos)
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
            return true
        } catch {
            shell.log.warning("client \(client.id): \(error.message)")
            return false
        }
    }

    /// SIGCHLD: each pair reaps its own program if it exited.
    func childrenExited() {
        for pair in Array(pairs.values) { pair.childrenExited() }
    }

    /// After the loop: no program outlives wspipe or stays a zombie.
    func reapAll() {
        for pair in pairs.values { pair.reapBlocking() }
        pairs.removeAll()
    }
}
