import WSJSON
/// --ack KEYPATH: sent messages with a value at KEYPATH are held until an
/// incoming message carries the same value (raw JSON bytes, after trimming) there.
///
/// wspipe(1): RECONNECT AND REPLAY: held messages are re-sent, in their original order, after a
/// reconnect, and whatever is still held at the end is reported (exit 6).
///
/// Keys compare as the raw JSON bytes of the value with surrounding whitespace
/// removed, and nothing more: `"seq": 5` and `"seq":5` match, but `5` and
/// `5.0`, `"a"` and `"\u0061"`, or objects with members in another order do
/// not. That is what a server echoing the value back produces, and it costs no
/// parsing.
///
/// Storage: the held messages sit in `slots` in first-sent order; a released
/// one leaves a tombstone, and the tombstones are squeezed out once they
/// outnumber the live slots (amortised O(1)). Slots held under the same key form
/// a FIFO chain through `Slot.next`, and `chains` maps a key to the ends of its
/// chain, so an ack finds the oldest message with its key in O(1) and releases it.
public struct AckLedger {
    private struct Slot {
        var message: [UInt8]
        var key: [UInt8]
        /// Index in `slots` of the next message held under the same key, or -1.
        var next: Int
        var isHeld: Bool
        /// Sent order: 1 for the first message ever held, and so on.
        var serial: Int
    }

    /// Oldest and newest slot held under one key.
    private struct Chain {
        var first: Int
        var last: Int
    }

    private let path: [[UInt8]]
    private var slots: [Slot] = []
    private var chains: [[UInt8]: Chain] = [:]
    /// Slots before this index are all tombstones.
    private var firstHeld = 0
    /// Scratch key for lookups of incoming values, reused so an incoming message
    /// costs no allocation.
    private var probe: [UInt8] = []

    /// Number of held messages.
    public private(set) var count = 0
    /// Total size of the held messages, in bytes.
    public private(set) var heldBytes = 0
    /// The serial of the newest message ever held (0 before the first).
    public private(set) var lastSerial = 0

    /// `path`: object keys from the top level, e.g. ["meta", "seq"]. An empty
    /// path keys on the whole message.
    public init(path: [String]) {
        self.path = path.map { Array($0.utf8) }
    }

    public var isEmpty: Bool { count == 0 }

    /// For each sent text message: holds a copy if it has a value at the path; returns that key.
    ///
    /// `payload` may be any text (raw mode, --lenient): it is validated first,
    /// and text that is not valid JSON is never held. Re-sending held messages
    /// after a reconnect must not call this again (they are still held).
    @discardableResult public mutating func sent(_ payload: UnsafeRawBufferPointer) -> [UInt8]? {
        guard case .valid = JSONScanner.validate(payload),
              let base = payload.baseAddress,
              let found = JSONScanner.valueRange(atPath: path, in: payload) else { return nil }
        let range = JSONSkipper.trimmingWhitespace(found, in: payload)
        let key = Array(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
        let index = slots.count
        // The key array is shared (copy on write) by the slot and the dictionary.
        lastSerial += 1
        slots.append(Slot(message: Array(payload), key: key, next: -1, isHeld: true, serial: lastSerial))
        if let last = chains[key]?.last {
            slots[last].next = index
            chains[key]!.last = index
        } else {
            chains[key] = Chain(first: index, last: index)
        }
        count += 1
        heldBytes += payload.count
        return key
    }

    /// For each incoming text message: releases the oldest held message with the same key; returns it.
    ///
    /// The caller guarantees `payload` is valid JSON (JSONScanner.validate
    /// accepted it); other incoming messages must not be passed in.
    public mutating func received(_ payload: UnsafeRawBufferPointer) -> [UInt8]? {
        receivedAck(payload)?.message
    }

    /// Like `received`, and also returns the key, for the `acked` event (wspipe(1): OPTIONS, Diagnostics).
    public mutating func receivedAck(_ payload: UnsafeRawBufferPointer) -> (key: [UInt8], message: [UInt8])? {
        guard count > 0, let base = payload.baseAddress,
              let found = JSONScanner.valueRange(atPath: path, in: payload) else { return nil }
        let range = JSONSkipper.trimmingWhitespace(found, in: payload)
        probe.removeAll(keepingCapacity: true)
        probe.append(contentsOf: UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
        guard let chain = chains[probe] else { return nil }
        let index = chain.first
        let next = slots[index].next
        if next < 0 {
            chains.removeValue(forKey: probe)
        } else {
            chains[probe]!.first = next
        }
        return release(index)
    }

    /// Calls `body` with each held message, in first-sent order (for the resume).
    public func forEachHeld(_ body: (UnsafeRawBufferPointer) -> Void) {
        for index in firstHeld ..< slots.count where slots[index].isHeld {
            slots[index].message.withUnsafeBytes(body)
        }
    }

    /// Calls `body` with each message still held whose serial is at least
    /// `serial`, in first-sent order, with its serial, until `body` returns
    /// false: a resume sent a little at a time, which acks may interrupt.
    public func forEachHeld(from serial: Int, _ body: (Int, UnsafeRawBufferPointer) -> Bool) {
        // Slots stay in serial order (compaction keeps the order): find the first by bisection.
        var low = firstHeld
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle].serial < serial { low = middle + 1 } else { high = middle }
        }
        for index in low ..< slots.count where slots[index].isHeld {
            guard slots[index].message.withUnsafeBytes({ body(slots[index].serial, $0) }) else { return }
        }
    }

    /// The keys of the held messages, in first-sent order (for the `unacked` event).
    public var heldKeys: [[UInt8]] {
        var keys: [[UInt8]] = []
        keys.reserveCapacity(count)
        for index in firstHeld ..< slots.count where slots[index].isHeld {
            keys.append(slots[index].key)
        }
        return keys
    }

    /// Slots in storage, tombstones included (for tests of the compaction).
    var storedSlots: Int { slots.count }

    /// Is at least one message held under this key (raw JSON bytes, trimmed)?
    public func isHeld(key: [UInt8]) -> Bool {
        chains[key] != nil
    }

    /// Turns slot `index` (already unlinked from its chain) into a tombstone and
    /// hands back what it held.
    private mutating func release(_ index: Int) -> (key: [UInt8], message: [UInt8]) {
        // Moved out, not copied: the slot's references are dropped right after.
        let message = slots[index].message
        let key = slots[index].key
        slots[index].message = []
        slots[index].key = []
        slots[index].isHeld = false
        count -= 1
        heldBytes -= message.count
        while firstHeld < slots.count && !slots[firstHeld].isHeld { firstHeld += 1 }
        compactIfSparse()
        return (key, message)
    }

    /// Squeezes the tombstones out once they outnumber the held slots (and are
    /// more than a few), so the storage stays within twice the held count.
    private mutating func compactIfSparse() {
        if count == 0 {
            slots.removeAll(keepingCapacity: true)
            firstHeld = 0
            return
        }
        let tombstones = slots.count - count
        guard tombstones >= 32 && tombstones > count else { return }

        // Slide the held slots down in order, then relink every chain with the
        // new indices (order within a key is kept since the order overall is).
        var write = 0
        for read in firstHeld ..< slots.count where slots[read].isHeld {
            if read != write { slots.swapAt(read, write) }
            slots[write].next = -1
            write += 1
        }
        slots.removeLast(slots.count - write)
        firstHeld = 0
        for position in chains.values.indices {
            chains.values[position] = Chain(first: -1, last: -1)
        }
        for index in slots.indices {
            let key = slots[index].key
            let last = chains[key]!.last
            if last < 0 {
                chains[key] = Chain(first: index, last: index)
            } else {
                slots[last].next = index
                chains[key]!.last = index
            }
        }
    }
}
