/// Server mode: what the clients' buffers may hold together (wspipe(1):
/// OPTIONS, Server mode), so that many clients cannot do what one cannot:
/// output not yet written to them and messages still arriving from them
/// stay under `limitBytes`.
///
/// Back-pressure comes first: a client's output counts as behind (stdin and
/// --relay wait for it) at half the budget shared among the open clients,
/// at most `ClientRegistry.highWater`, so a broadcast to many slow clients
/// pauses before it fills the budget. What back-pressure cannot stop (a
/// message a client sends slowly, a large one queued to everyone) may pass
/// it: then the client holding the most is disconnected with 1008.
///
/// The session reports each client's holding when it changes (after a read,
/// a batch of stdin, a drain): the total costs nothing per message.
struct MemoryBudget {
    let limitBytes: Int
    private(set) var totalBytes = 0

    /// At least 64 MiB, and room for four messages of the largest size.
    init(maxMessageSize: Int) {
        let (four, overflow) = maxMessageSize.multipliedReportingOverflow(by: 4)
        limitBytes = overflow ? Int.max : max(64 << 20, four)
    }

    init(limitBytes: Int) {
        self.limitBytes = limitBytes
    }

    var isExceeded: Bool { totalBytes > limitBytes }

    /// One client's holding went from `old` to `new` bytes.
    mutating func changed(from old: Int, to new: Int) {
        totalBytes += new - old
    }

    /// The output above which a client counts as behind, with `openClients` open.
    func stallThreshold(openClients: Int) -> Int {
        min(ClientRegistry.highWater, max(64 << 10, limitBytes / 2 / max(1, openClients)))
    }

    /// --relay: how far a member may fall behind (its unsent output when a
    /// message is relayed to it), with `openClients` open: 16 MiB, or the
    /// budget shared among the clients when that is less, so that a room of
    /// members that all fell behind is stopped by this limit, not the budget.
    func relayLimit(openClients: Int) -> Int {
        min(ClientRegistry.relayLimit, max(256 << 10, limitBytes / max(1, openClients)))
    }

    /// The index of the holding to give up: the largest; none when nobody
    /// holds anything (dropping a client that holds nothing frees nothing).
    static func victim(_ holdings: [Int]) -> Int? {
        guard let index = holdings.indices.max(by: { holdings[$0] < holdings[$1] }), holdings[index] > 0 else { return nil }
        return index
    }
}
