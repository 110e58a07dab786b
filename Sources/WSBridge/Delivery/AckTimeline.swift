/// When the peer's TCP acknowledged what, by the kernel's stamps: a short
/// list of (frame-stream offset acknowledged, wall-clock nanoseconds), so
/// that a sign of life is credited exactly with what was acknowledged
/// before it arrived (`DeliveryAccount`). Arrival times only grow along the
/// stream, so what was acknowledged before the last read's arrival is one
/// offset (`floor`); only the stamps after it are kept, at most `capacity`
/// of them. Dropping the oldest of those when more come is on the safe
/// side: a time between it and the next one is then credited with less.
struct AckTimeline {
    static let capacity = 64

    /// Acknowledged before any time still asked about.
    private(set) var floor = 0
    private var offsets: [Int] = []
    private var times: [Int64] = []

    /// The kernel stamped an acknowledgement of everything up to `offset`.
    /// Offsets only grow; one that does not is no news.
    mutating func add(offset: Int, nanos: Int64) {
        guard offset > (offsets.last ?? floor) else { return }
        if offsets.count == Self.capacity {
            offsets.removeFirst()
            times.removeFirst()
        }
        offsets.append(offset)
        times.append(nanos)
    }

    /// What was acknowledged strictly before `nanos`.
    func acknowledged(before nanos: Int64) -> Int {
        var index = times.count - 1
        while index >= 0 {
            if times[index] < nanos { return offsets[index] }
            index -= 1
        }
        return floor
    }

    /// What was acknowledged before a segment that arrived at `nanos`, or
    /// by that segment itself: a reply's segment carries the acknowledgement
    /// of what came before it (a delayed ACK rides on it), which the kernel
    /// stamps just after the segment's arrival. So the first stamp within
    /// `carried` after it counts too. (One that came with a later segment
    /// can count only if that segment followed within `carried` and this one
    /// carried none: it acknowledged what arrived after the reply was sent,
    /// which the peer's window says is unread if it is.)
    func acknowledged(arrivingAt nanos: Int64) -> Int {
        var index = 0
        while index < times.count && times[index] < nanos { index += 1 }
        if index < times.count && times[index] - nanos <= Self.carried { return offsets[index] }
        return index > 0 ? offsets[index - 1] : floor
    }

    /// How soon after a segment's arrival the kernel stamps the acknowledgement it carried.
    static let carried: Int64 = 20_000

    /// No time before `nanos` will be asked about again: the stamps before
    /// it become the floor.
    mutating func forget(before nanos: Int64) {
        var count = 0
        while count < times.count && times[count] < nanos { count += 1 }
        guard count > 0 else { return }
        floor = offsets[count - 1]
        offsets.removeFirst(count)
        times.removeFirst(count)
    }

    /// The offsets a later question may be answered with (where the runs of
    /// released records are cut).
    func forEachOffset(_ body: (Int) -> Void) {
        body(floor)
        for offset in offsets { body(offset) }
    }
}

/// Where frame-stream offsets fall in the transport's byte stream: TLS adds
/// its records' overhead, and a server writes its 101 before any frame. The
/// kernel counts transport bytes; the account counts frames. One point per
/// write, the last `capacity` kept (older ones are what the kernel no longer
/// holds); an offset is mapped down to the last point at or before it, so a
/// frame is never taken for acknowledged before its last byte is.
struct WireMap {
    static let capacity = 256

    private var frames: [Int] = []
    private var transport: [Int] = []
    private var start = 0
    /// The last point let go (or the origin).
    private var oldest = (frames: 0, transport: 0)

    /// After a write: `frames` bytes of frames are in the first `transport`
    /// bytes the transport wrote.
    @inline(__always)
    mutating func wrote(frames: Int, transport: Int) {
        if self.frames.count < Self.capacity {
            self.frames.append(frames)
            self.transport.append(transport)
            return
        }
        oldest = (self.frames[start], self.transport[start])
        self.frames[start] = frames
        self.transport[start] = transport
        start = (start + 1) % Self.capacity
    }

    /// The frame-stream bytes wholly inside the first `offset` transport
    /// bytes. Between two points the transport wrote the frames' bytes and
    /// its own (TLS records' headers and tags, at most the difference): the
    /// frames' bytes inside a prefix of it are at least that prefix less
    /// all of its own, exactly the prefix for plain TCP.
    func frames(atTransport offset: Int) -> Int {
        let count = frames.count
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if transport[(start + middle) % count] <= offset { low = middle + 1 } else { high = middle }
        }
        let before = low > 0 ? (frames[(start + low - 1) % count], transport[(start + low - 1) % count]) : oldest
        guard low < count, offset > before.1 else { return offset >= before.1 ? before.0 : 0 }
        let after = (frames[(start + low) % count], transport[(start + low) % count])
        let own = (after.1 - before.1) - (after.0 - before.0)
        return before.0 + min(max(offset - before.1 - own, 0), after.0 - before.0)
    }
}
