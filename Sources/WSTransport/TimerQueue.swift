/// Pending timers ordered by deadline: a binary min-heap of (deadline, id)
/// with the callbacks kept in slots named by the id.
///
/// Cancelling only forgets the callback; the heap entry is skipped when it
/// surfaces. A timer re-armed on every message (ping timeouts) would grow the
/// heap without bound, so the heap is compacted once dead entries dominate.
struct TimerQueue {
    private struct Entry {
        var deadline: Int64
        var id: UInt64
        /// Ties break by id so equal deadlines fire in scheduling order.
        @inline(__always) func before(_ other: Entry) -> Bool {
            deadline < other.deadline || (deadline == other.deadline && id < other.id)
        }
    }

    /// The callbacks by slot; a slot's id is 0 while it is free. An id holds
    /// its slot in the low `slotBits` bits and a serial number above them,
    /// so ids grow with scheduling order and a cancelled id never matches a
    /// reused slot. (An array, not a dictionary keyed by id: no hashing per
    /// timer, and no generic dictionary to instantiate at start-up.)
    private struct Slot {
        var id: UInt64 = 0
        var callback: (() -> Void)?
    }

    private static let slotBits: UInt64 = 24

    private var heap: [Entry] = []
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var live = 0
    private var nextSerial: UInt64 = 1

    var isEmpty: Bool { live == 0 }

    mutating func schedule(deadline: Int64, _ callback: @escaping () -> Void) -> UInt64 {
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
        } else {
            slot = slots.count
            slots.append(Slot())
        }
        let id = nextSerial << Self.slotBits | UInt64(slot)
        nextSerial &+= 1
        slots[slot] = Slot(id: id, callback: callback)
        live += 1
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) {
        guard take(id) != nil else { return }
        if heap.count > 64 && heap.count > 2 * live { compact() }
    }

    /// Deadline of the earliest live timer.
    mutating func nextDeadline() -> Int64? {
        dropDeadTop()
        return heap.first?.deadline
    }

    /// Removes and returns the earliest live timer's callback if it is due.
    mutating func popDue(now: Int64) -> (() -> Void)? {
        dropDeadTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return take(top.id)
    }

    /// The callback of a live timer, which stops being live; nil for a
    /// timer fired or cancelled before.
    private mutating func take(_ id: UInt64) -> (() -> Void)? {
        guard isLive(id) else { return nil }
        let slot = Self.slot(of: id)
        let callback = slots[slot].callback
        slots[slot] = Slot()
        freeSlots.append(slot)
        live -= 1
        return callback
    }

    private func isLive(_ id: UInt64) -> Bool {
        Self.isLive(id, in: slots)
    }

    private static func isLive(_ id: UInt64, in slots: [Slot]) -> Bool {
        let slot = slot(of: id)
        return slot < slots.count && slots[slot].id == id
    }

    private static func slot(of id: UInt64) -> Int {
        Int(truncatingIfNeeded: id & (1 << slotBits - 1))
    }

    private mutating func dropDeadTop() {
        while let top = heap.first, !isLive(top.id) { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func compact() {
        let slots = self.slots
        heap.removeAll { !Self.isLive($0.id, in: slots) }
        var i = heap.count / 2
        while i > 0 { i -= 1; siftDown(i) }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].before(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var best = parent
            let left = 2 * parent + 1, right = left + 1
            if left < heap.count && heap[left].before(heap[best]) { best = left }
            if right < heap.count && heap[right].before(heap[best]) { best = right }
            if best == parent { return }
            heap.swapAt(parent, best)
            parent = best
        }
    }
}
