import WSMessages
/// Messages waiting for a connection (wspipe(1): RECONNECT AND REPLAY "Queue"): stdin lines read while
/// disconnected, and messages recovered from a dropped connection. FIFO, with
/// a byte count the session compares with --queue-limit to stop reading stdin.
struct OutboundQueue {
    struct Message {
        var isBinary: Bool
        var bytes: [UInt8]
        /// The tag it is sent with: its stdin line (`MessageTag`), with
        /// `MessageTag.writtenBefore` when an earlier connection wrote it.
        var line: Int
    }

    private var items: [Message] = []
    private var head = 0
    private(set) var byteCount = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }

    mutating func append(_ message: OutgoingMessage, line: Int) {
        items.append(Self.copy(message, line: line))
        byteCount += items[items.count - 1].bytes.count
    }

    /// Recovered messages go before everything queued so far, in their order.
    mutating func prepend(_ messages: [Message]) {
        guard !messages.isEmpty else { return }
        items.replaceSubrange(0..<head, with: [])
        head = 0
        items.insert(contentsOf: messages, at: 0)
        byteCount += messages.reduce(0) { $0 + $1.bytes.count }
    }

    mutating func popFirst() -> Message? {
        guard head < items.count else { return nil }
        let message = items[head]
        items[head].bytes = []
        head += 1
        byteCount -= message.bytes.count
        if head == items.count { items.removeAll(keepingCapacity: true); head = 0 }
        else if head > 1024 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        return message
    }

    /// The messages waiting, as not sent (never written) and unconfirmed
    /// (written to a connection that dropped before its peer acknowledged them).
    func tallies() -> (notSent: LineTally, unconfirmed: LineTally) {
        var notSent = LineTally(), unconfirmed = LineTally()
        for message in items[head...] {
            if message.line >= 0 && message.line & MessageTag.writtenBefore != 0 {
                unconfirmed.add(tag: message.line)
            } else {
                notSent.add(tag: message.line)
            }
        }
        return (notSent, unconfirmed)
    }

    static func copy(_ message: OutgoingMessage, line: Int) -> Message {
        switch message {
        case .text(let b): return Message(isBinary: false, bytes: Array(b), line: line)
        case .binary(let b): return Message(isBinary: true, bytes: Array(b), line: line)
        }
    }
}

extension OutboundQueue.Message {
    func withOutgoing<R>(_ body: (OutgoingMessage) -> R) -> R {
        bytes.withUnsafeBytes { isBinary ? body(.binary($0)) : body(.text($0)) }
    }
}
