import WSCore
import WSTransport
import WSMessages

/// The server's upgraded clients (wspipe(1): OPTIONS, Server mode) in the
/// order they arrived, which is the broadcast order, and by id for lines
/// addressed with --tag; and the back-pressure that keeps a slow client from
/// losing messages: once its unsent output passes the high water (whatever
/// filled it: broadcasts, --relay, answers to its pings), stdin waits until
/// it has drained. With --send-timeout a client that makes no progress for
/// that long is disconnected instead, and the others go on. The clients'
/// buffers together stay within a `MemoryBudget`.
///
/// --relay gives each member a queue of its own (its connection's output):
/// the room never waits for a member, and one that falls more than
/// `relayLimit` behind is disconnected (`fellBehind`). Only with
/// --send-timeout 0 does the room wait for its slowest member instead
/// (`roomWaitsForEveryone`), losing nothing.
final class ClientRegistry {
    static let highWater = 4 << 20
    /// --relay: how far behind a member may fall, at most (`MemoryBudget.relayLimit`).
    static let relayLimit = 16 << 20

    private let shell: SessionShell
    private let sendTimeoutNanos: Int64?
    private(set) var clients: [ServerClient] = []
    private var byID: [Int: ServerClient] = [:]
    /// Clients that take messages (open), and those of them above the high
    /// water: counters keep the flow check free of allocations.
    private var openCount = 0
    private var stalledCount = 0
    private var budget: MemoryBudget
    /// enforceBudget is running (see there).
    private var enforcingBudget = false
    /// The high water for the clients open now (`MemoryBudget.stallThreshold`).
    private var stallThreshold = highWater
    /// --relay: how far a member may fall behind with the clients open now;
    /// nil without --relay, and with --send-timeout 0 (the room waits).
    private var memberLimit: Int?
    private let relayQueues: Bool
    /// Whether stdin may run changed.
    var flowChanged: () -> Void = {}
    /// --record: every message queued for a client, with what made it
    /// (`recording` is the one check a message pays without --record).
    var onSent: ((OutgoingMessage, ServerClient, MessageSource) -> Void)?
    private let recording: Bool
    /// What makes the messages `send` queues now (the scripted peer sets its own).
    var source = MessageSource.input

    init(shell: SessionShell, sendTimeoutNanos: Int64?, relay: Bool) {
        self.shell = shell
        self.sendTimeoutNanos = sendTimeoutNanos
        recording = shell.bridge.script.recordPath != nil
        budget = MemoryBudget(maxMessageSize: shell.bridge.maxMessageSize)
        relayQueues = relay && sendTimeoutNanos != nil
        roomWaitsForEveryone = relay && sendTimeoutNanos == nil
        openClientsChanged()
    }

    /// --relay --send-timeout 0: the clients are not read while a member is
    /// behind, so that every member gets every message.
    let roomWaitsForEveryone: Bool

    private func openClientsChanged() {
        stallThreshold = budget.stallThreshold(openClients: openCount)
        memberLimit = relayQueues ? budget.relayLimit(openClients: openCount) : nil
    }

    var isEmpty: Bool { clients.isEmpty }
    var count: Int { clients.count }
    /// stdin may be read: some client takes messages and none is behind.
    var acceptsInput: Bool { openCount > 0 && stalledCount == 0 }
    /// Some client's unsent output is above the high water.
    var hasStalledClient: Bool { stalledCount > 0 }

    func add(_ client: ServerClient) {
        clients.append(client)
        byID[client.id] = client
        client.phase = .open
        openCount += 1
        openClientsChanged()
        flowChanged()
    }

    /// The client takes no more messages (it closed, failed or timed out):
    /// it no longer counts for the broadcast or for back-pressure.
    func retire(_ client: ServerClient) {
        guard client.phase == .open else { return }
        client.phase = .closing
        openCount -= 1
        openClientsChanged()
        unstall(client)
        flowChanged()
    }

    /// The client's transport ended.
    func remove(_ client: ServerClient) {
        retire(client)
        client.phase = .ended
        budget.changed(from: client.heldBytes, to: 0)
        client.heldBytes = 0
        if let index = clients.firstIndex(where: { $0 === client }) { clients.remove(at: index) }
        byID[client.id] = nil
    }

    /// The client with this id, if it takes messages.
    func openClient(id: Int) -> ServerClient? {
        guard let client = byID[id], client.phase == .open else { return nil }
        return client
    }

    /// Queues `message`, stdin `line`, for every open client; false if none took it.
    func broadcast(_ message: OutgoingMessage, line: Int) -> Bool {
        var sent = false
        for client in clients where send(message, to: client, line: line) { sent = true }
        return sent
    }

    /// --relay: queues `message` for every open client but `sender` (not
    /// counted in their accounts: it is not one of the user's lines). A
    /// member already more than its limit behind is disconnected instead.
    func relay(_ message: OutgoingMessage, from sender: ServerClient) {
        for client in clients where client !== sender && client.phase == .open {
            if let limit = memberLimit, isBehind(client, limit: limit) {
                fellBehind(client, limit: limit)
                continue
            }
            _ = send(message, to: client, line: MessageTag.uncounted)
        }
    }

    /// Its unsent output is above the high water: what it is sent waits
    /// (answers, heartbeats).
    func isBehind(_ client: ServerClient) -> Bool {
        (client.channel?.outputBytes ?? 0) > stallThreshold
    }

    /// Its unsent output is past `limit`, even after a write (it may have
    /// read since the last one).
    private func isBehind(_ client: ServerClient, limit: Int) -> Bool {
        guard let channel = client.channel, channel.outputBytes > limit else { return false }
        channel.flush()   // may end the channel, which retires the client
        return client.phase == .open && channel.outputBytes > limit
    }

    /// Queues `message` for `client`, counted by its stdin `line` in the
    /// client's account; false if it takes no messages now.
    func send(_ message: OutgoingMessage, to client: ServerClient, line: Int) -> Bool {
        guard client.phase == .open, let channel = client.channel, channel.isOpen else { return false }
        channel.send(message, tag: line)
        switch message {
        case .text(let bytes), .binary(let bytes): shell.sent(bytes: bytes.count)
        }
        if recording { onSent?(message, client, source) }
        checkStall(client, channel)
        return true
    }

    /// A client whose output passed the high water holds stdin up.
    private func checkStall(_ client: ServerClient, _ channel: WebSocketChannel) {
        guard client.stall == nil && channel.outputBytes > stallThreshold else { return }
        channel.flush()   // may end the channel, which retires the client
        if client.phase == .open && channel.outputBytes > stallThreshold { stall(client) }
    }

    /// After a read from `client`: what answering it queued may put it
    /// behind, and what it holds counts against the budget.
    func processed(_ client: ServerClient) {
        guard let channel = client.channel else { return }
        if client.phase == .open { checkStall(client, channel) }
        account(client)
    }

    /// After a batch of stdin: everything queued is flushed and counted.
    func flushAll() {
        for client in clients {
            client.channel?.flush()
            account(client)
        }
    }

    /// Output fully written: the client no longer holds stdin up.
    func drained(_ client: ServerClient) {
        unstall(client)
        account(client)
        flowChanged()
    }

    /// Pauses or resumes reading each client, as `paused` says for it.
    func setReadPaused(_ paused: (ServerClient) -> Bool) {
        for client in clients { client.channel?.setReadPaused(paused(client)) }
    }

    func closeAll(_ code: CloseCode, reason: String = "") {
        for client in clients { client.channel?.close(code: code, reason: reason) }
    }

    /// Did any client take or send anything since the last look? (The
    /// stopping phase's --close-timeout counts from the last progress.)
    func takeProgress() -> Bool {
        var moved = false
        for client in clients where client.channel?.takeProgress() == true { moved = true }
        return moved
    }

    /// Iterates a copy: each terminate removes its client.
    func terminateAll() {
        for client in clients { client.channel?.terminate() }
    }

    // MARK: the memory budget

    /// Brings `client`'s part of the total up to date; past the budget, the
    /// clients holding the most are disconnected until it fits again.
    private func account(_ client: ServerClient) {
        guard client.phase != .ended, let channel = client.channel else { return }
        let held = channel.bufferedBytes + channel.accountBytes + client.heldBesidesChannel
        budget.changed(from: client.heldBytes, to: held)
        client.heldBytes = held
        if budget.isExceeded { enforceBudget() }
    }

    private func enforceBudget() {
        // Disconnecting a client retires it and flushes, which can account
        // again from inside this loop; a nested round saw the victim still
        // counted but no longer open, and dropped open clients that held
        // nothing.
        guard !enforcingBudget else { return }
        enforcingBudget = true
        defer { enforcingBudget = false }
        // The other parts may be stale (their output shrank since): exact figures first.
        for client in clients {
            let held = client.channel.map { $0.bufferedBytes + $0.accountBytes + client.heldBesidesChannel } ?? 0
            budget.changed(from: client.heldBytes, to: held)
            client.heldBytes = held
        }
        // Closing clients count too: one still writing out a large buffer
        // holds it as much as an open one.
        while budget.isExceeded {
            let candidates = clients.filter { $0.phase != .ended && $0.channel != nil }
            guard let index = MemoryBudget.victim(candidates.map(\.heldBytes)) else { return }
            let client = candidates[index]
            overBudget(client)
            // Its part is gone with its transport (already, when the channel's
            // end removed it): never counted twice, never left behind.
            if client.heldBytes > 0 {
                budget.changed(from: client.heldBytes, to: 0)
                client.heldBytes = 0
            }
        }
    }

    /// The client holding the most when the budget is exceeded: disconnected
    /// with 1008 so that the others go on.
    private func overBudget(_ client: ServerClient) {
        guard let channel = client.channel else { return }
        shell.log.warning("client \(client.id) (\(client.peer)): holds \(client.heldBytes) bytes, the most when the clients' buffers passed \(budget.limitBytes) bytes; disconnecting")
        shell.events.emit(ServerEvents.memoryBudget(id: client.id, bytes: client.heldBytes, budget: budget.limitBytes))
        client.closeInfo = (.policyViolation, "memory budget exceeded", false)
        retire(client)
        channel.close(code: .policyViolation, reason: "memory budget exceeded")
        channel.terminate()   // removes the client, and its part of the total
    }

    // MARK: --relay members that fall behind

    /// A member more than `limit` behind is disconnected with 1008 (its
    /// Close goes behind what it is not reading, so the transport is dropped
    /// right after), so that its queue stays bounded and the room never
    /// waits for it (wspipe(1): OPTIONS, Server mode).
    private func fellBehind(_ client: ServerClient, limit: Int) {
        guard let channel = client.channel else { return }
        let bytes = channel.outputBytes
        shell.log.warning("client \(client.id) (\(client.peer)): \(bytes) bytes unsent, more than the \(limit) a --relay member may fall behind; disconnecting")
        shell.events.emit(ServerEvents.relayBehind(id: client.id, bytes: bytes, limit: limit))
        client.closeInfo = (.policyViolation, "fell behind the relay", false)
        retire(client)
        channel.close(code: .policyViolation, reason: "fell behind the relay")
        channel.terminate()
    }

    // MARK: stalls and --send-timeout

    private func stall(_ client: ServerClient) {
        stalledCount += 1
        client.stall = ServerClient.Stall()
        flowChanged()
        guard let timeout = sendTimeoutNanos, let channel = client.channel else { return }
        let watch = SendStall(timeoutNanos: timeout, output: channel.outputBytes, now: shell.loop.nowNanos)
        client.stall?.watch = watch
        scheduleCheck(client, afterNanos: watch.firstIntervalNanos)
    }

    private func unstall(_ client: ServerClient) {
        guard let stall = client.stall else { return }
        stalledCount -= 1
        client.stall = nil
        if let timer = stall.timer { shell.loop.cancel(timer) }
    }

    private func scheduleCheck(_ client: ServerClient, afterNanos delay: Int64) {
        client.stall?.timer = shell.loop.schedule(afterNanos: delay) { [unowned self, weak client] in
            guard let client, client.stall != nil else { return }
            client.stall?.timer = nil
            self.check(client)
        }
    }

    private func check(_ client: ServerClient) {
        guard client.phase == .open, let channel = client.channel, var watch = client.stall?.watch else { return }
        if let next = watch.check(output: channel.outputBytes, now: shell.loop.nowNanos) {
            client.stall?.watch = watch
            scheduleCheck(client, afterNanos: next)
        } else {
            sendTimedOut(client, channel)
        }
    }

    /// --send-timeout ran out: disconnect the client so the others go on. The
    /// Close goes behind the output it is not reading, so it rarely arrives;
    /// the transport is dropped right after.
    private func sendTimedOut(_ client: ServerClient, _ channel: WebSocketChannel) {
        shell.log.warning("client \(client.id) (\(client.peer)): \(channel.outputBytes) bytes unsent and no progress for the --send-timeout; disconnecting")
        shell.events.emit(ServerEvents.sendTimeout(id: client.id))
        client.closeInfo = (.policyViolation, "send timeout", false)
        retire(client)
        channel.close(code: .policyViolation, reason: "send timeout")
        channel.terminate()
    }
}
