/// Pending timers ordered by deadline: a binary min-heap of (deadline, id)
/// with the callbacks kept by id.
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

    private var heap: [Entry] = []
    private var callbacks: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    var isEmpty: Bool { callbacks.isEmpty }

    mutating func schedule(deadline: Int64, _ callback: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID &+= 1
        callbacks[id] = callback
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) {
        guard callbacks.removeValue(forKey: id) != nil else { return }
        if heap.count > 64 && heap.count > 2 * callbacks.count { compact() }
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
        return callbacks.removeValue(forKey: top.id)
    }

    private mutating func dropDeadTop() {
        while let top = heap.first, callbacks[top.id] == nil { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func compact() {
        heap.removeAll { callbacks[$0.id] == nil }
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
