import WSCore
import WSMessages

/// Messages waiting for a connection (wspipe(1): RECONNECT AND REPLAY "Queue"): stdin lines read while
/// disconnected, and messages recovered from a dropped connection. FIFO, with
/// a byte count the session compares with --queue-limit to stop reading stdin.
///
/// New messages go into one byte buffer, one after another, each behind a
/// header of its tag and length: a line read while connecting costs one
/// copy and no allocation of its own (an array per line cost about 1,000
/// instructions of a 100-byte upload's). The rare recovered messages, which
/// go before them, stay a list.
struct OutboundQueue {
    struct Message {
        var isBinary: Bool
        var bytes: [UInt8]
        /// The tag it is sent with: its stdin line (`MessageTag`), with
        /// `MessageTag.writtenBefore` when an earlier connection wrote it.
        var line: Int
    }

    /// Recovered messages, before `fresh`, from `head` on.
    private var recovered: [Message] = []
    private var head = 0
    /// Appended messages: each a `Header` then its bytes.
    private var fresh = ByteBuffer()
    private var freshCount = 0
    private(set) var byteCount = 0

    /// What precedes each message in `fresh`.
    private struct Header {
        var tag: Int
        /// The length, shifted left once, with the low bit set for a binary message.
        var lengthAndKind: Int
        static let size = MemoryLayout<Int>.size * 2
    }

    var isEmpty: Bool { head == recovered.count && freshCount == 0 }
    var count: Int { recovered.count - head + freshCount }

    mutating func append(_ message: OutgoingMessage, line: Int) {
        let (bytes, kind) = Self.parts(message)
        let length = bytes.count
        fresh.writeWithUnsafeMutableBytes(minimumWritableBytes: Header.size + length) { space in
            let base = space.baseAddress!
            base.storeBytes(of: line, as: Int.self)
            base.storeBytes(of: length << 1 | kind, toByteOffset: MemoryLayout<Int>.size, as: Int.self)
            if length > 0 { (base + Header.size).copyMemory(from: bytes.baseAddress!, byteCount: length) }
            return Header.size + length
        }
        freshCount += 1
        byteCount += length
    }

    /// Recovered messages go before everything queued so far, in their order.
    mutating func prepend(_ messages: [Message]) {
        guard !messages.isEmpty else { return }
        recovered.replaceSubrange(0..<head, with: [])
        head = 0
        recovered.insert(contentsOf: messages, at: 0)
        byteCount += messages.reduce(0) { $0 + $1.bytes.count }
    }

    /// The first message, handed to `body` (its bytes valid only there) and
    /// taken off the queue; nil when the queue is empty.
    mutating func popFirst<R>(_ body: (OutgoingMessage, _ line: Int) -> R) -> R? {
        if head < recovered.count {
            let message = recovered[head]
            recovered[head].bytes = []
            head += 1
            byteCount -= message.bytes.count
            if head == recovered.count { recovered.removeAll(keepingCapacity: true); head = 0 }
            else if head > 1024 && head * 2 > recovered.count { recovered.removeFirst(head); head = 0 }
            return message.withOutgoing { body($0, message.line) }
        }
        guard freshCount > 0 else { return nil }
        let (result, used, length) = fresh.withReadableBytes { all -> (R, Int, Int) in
            let base = all.baseAddress!
            let line = base.loadUnaligned(as: Int.self)
            let lengthAndKind = base.loadUnaligned(fromByteOffset: MemoryLayout<Int>.size, as: Int.self)
            let length = lengthAndKind >> 1
            let bytes = UnsafeRawBufferPointer(start: base + Header.size, count: length)
            let message: OutgoingMessage = lengthAndKind & 1 != 0 ? .binary(bytes) : .text(bytes)
            return (body(message, line), Header.size + length, length)
        }
        fresh.consume(used)
        freshCount -= 1
        byteCount -= length
        return result
    }

    /// The first message as a copy, taken off the queue.
    mutating func popFirst() -> Message? {
        popFirst { message, line in Self.copy(message, line: line) }
    }

    /// The messages waiting, as not sent (never written) and unconfirmed
    /// (written to a connection that dropped before its peer acknowledged them).
    func tallies() -> (notSent: LineTally, unconfirmed: LineTally) {
        var notSent = LineTally(), unconfirmed = LineTally()
        func count(_ line: Int) {
            if line >= 0 && line & MessageTag.writtenBefore != 0 {
                unconfirmed.add(tag: line)
            } else {
                notSent.add(tag: line)
            }
        }
        for message in recovered[head...] { count(message.line) }
        fresh.withReadableBytes { all in
            var offset = 0
            for _ in 0..<freshCount {
                count(all.loadUnaligned(fromByteOffset: offset, as: Int.self))
                let lengthAndKind = all.loadUnaligned(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int.self)
                offset += Header.size + lengthAndKind >> 1
            }
        }
        return (notSent, unconfirmed)
    }

    private static func parts(_ message: OutgoingMessage) -> (UnsafeRawBufferPointer, Int) {
        switch message {
        case .text(let b): return (b, 0)
        case .binary(let b): return (b, 1)
        }
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
