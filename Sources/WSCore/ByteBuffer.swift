/// A growable byte buffer with a read cursor: appends at the end, consumes from
/// the front without moving bytes each time (compacts when the consumed prefix
/// is large). Used for every outgoing and incoming byte queue.
///
/// Layout: `storage[readerIndex..<writerIndex]` are the readable bytes,
/// `storage[writerIndex...]` is free space. Consuming only moves `readerIndex`;
/// the bytes are moved to the front only when that is cheap relative to what
/// was consumed (so a queue that is drained a little at a time costs O(1)
/// amortised per byte, never a memmove per call).
///
/// The free space is never initialised: a large buffer costs resident memory
/// only for the bytes that were written into it (see `ByteStorage`). A copy of
/// a buffer shares the storage until one of them writes (copy on write).
public struct ByteBuffer: Sendable {
    private var storage: ByteStorage?
    private var readerIndex = 0
    private var writerIndex = 0

    /// Compact on `consume` only once the dead prefix is at least this large
    /// (and more than half the storage): smaller prefixes are reclaimed for
    /// free when the buffer drains to empty.
    private static let compactThreshold = 64 * 1024

    public init(capacity: Int = 0) {
        storage = capacity > 0 ? ByteStorage(count: capacity) : nil
    }

    /// Number of bytes that can be read (appended and not yet consumed).
    public var readableBytes: Int { writerIndex - readerIndex }

    public var isEmpty: Bool { writerIndex == readerIndex }

    /// Bytes allocated in total (readable, consumed prefix and free tail).
    public var capacity: Int { storage?.count ?? 0 }

    /// Appends raw bytes (one copy).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        append(bytes, capacityLimit: .max)
    }

    /// Appends raw bytes; if the storage has to grow, it grows to at most
    /// `capacityLimit` bytes (or exactly what is needed, if that is more).
    /// Used where the final size has a known bound (a message and its limit),
    /// so doubling never overshoots the bound.
    public mutating func append(_ bytes: UnsafeRawBufferPointer, capacityLimit: Int) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        let target = reserveWritable(count, limit: capacityLimit)
        (target + writerIndex).copyMemory(from: source, byteCount: count)
        writerIndex += count
    }

    /// Puts `bytes` in the readable bytes at `offset` (0 through
    /// `readableBytes`), moving those after it along: a frame put ahead of
    /// others queued (a ping that must not wait behind them).
    public mutating func insert(_ bytes: UnsafeRawBufferPointer, at offset: Int) {
        precondition(offset >= 0 && offset <= readableBytes, "ByteBuffer.insert: offset out of range")
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        let base = reserveWritable(count, limit: .max)
        let at = base + readerIndex + offset
        (at + count).copyMemory(from: at, byteCount: writerIndex - readerIndex - offset)   // memmove
        at.copyMemory(from: source, byteCount: count)
        writerIndex += count
    }

    public mutating func append(_ byte: UInt8) {
        let target = reserveWritable(1, limit: .max)
        target.storeBytes(of: byte, toByteOffset: writerIndex, as: UInt8.self)
        writerIndex += 1
    }

    /// An array's bytes, one copy. (The generic form below looks up the
    /// collection's associated types at run time the first time it is used:
    /// 100,000 instructions of a one-echo run, for the upgrade request.)
    public mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            append(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        let count = bytes.count
        let target = reserveWritable(count, limit: .max)
        var index = writerIndex
        for byte in bytes {
            target.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
            index += 1
        }
        writerIndex = index
    }

    /// Reserve `count` writable bytes at the end, let `body` fill them, commit
    /// the number it returns (used by read(2) straight into the buffer).
    /// `body` may be given more than `count` bytes (the whole free tail), and
    /// those bytes are uninitialised: `body` must only report bytes it wrote.
    @discardableResult
    public mutating func writeWithUnsafeMutableBytes(
        minimumWritableBytes count: Int,
        capacityLimit: Int = .max,
        _ body: (UnsafeMutableRawBufferPointer) throws -> Int
    ) rethrows -> Int {
        let target = reserveWritable(max(count, 0), limit: capacityLimit)
        let free = capacity - writerIndex
        let written = try body(UnsafeMutableRawBufferPointer(start: target + writerIndex, count: free))
        precondition(written >= 0 && written <= free, "ByteBuffer: body reported more bytes than it was given")
        writerIndex += written
        return written
    }

    /// Calls `body` with the readable bytes. The pointer is valid only inside `body`.
    public func withReadableBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        guard let storage else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try withExtendedLifetime(storage) {
            try body(UnsafeRawBufferPointer(start: storage.base + readerIndex, count: readableBytes))
        }
    }

    /// Like `withReadableBytes`, but the bytes may be modified in place.
    public mutating func withMutableReadableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        guard storage != nil else { return try body(UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
        makeUnique()
        let storage = self.storage!
        return try withExtendedLifetime(storage) {
            try body(UnsafeMutableRawBufferPointer(start: storage.base + readerIndex, count: readableBytes))
        }
    }

    /// Drops `count` bytes from the front (they have been written or parsed).
    public mutating func consume(_ count: Int) {
        precondition(count >= 0 && count <= readableBytes, "ByteBuffer: consume past the end")
        readerIndex += count
        if readerIndex == writerIndex {
            // Drained: reuse the whole storage from the start, no copy needed.
            readerIndex = 0
            writerIndex = 0
        } else if readerIndex > ByteBuffer.compactThreshold && readerIndex > capacity / 2 {
            compact()
        }
    }

    /// Forgets all bytes. Keeping the capacity is what makes steady-state use
    /// allocation-free.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        readerIndex = 0
        writerIndex = 0
        if !keepingCapacity { storage = nil }
    }

    /// A copy of the readable bytes (for tests and diagnostics).
    public var readableArray: [UInt8] {
        withReadableBytes { Array($0) }
    }

    // MARK: - Space management

    /// Makes sure `count` bytes can be written after `writerIndex` in storage
    /// this buffer owns alone; returns the storage's base address.
    /// The room is usually there: that test is inlined where a frame or a
    /// read is appended (a call per 100-byte frame cost 31 instructions).
    @inline(__always)
    private mutating func reserveWritable(_ count: Int, limit: Int) -> UnsafeMutableRawPointer {
        // (Uniqueness is checked before anything else holds a reference.)
        if isKnownUniquelyReferenced(&storage) {
            let owned = storage.unsafelyUnwrapped
            if owned.count - writerIndex >= count { return owned.base }
        }
        return reserveWritableByGrowing(count, limit: limit)
    }

    @inline(never)
    private mutating func reserveWritableByGrowing(_ count: Int, limit: Int) -> UnsafeMutableRawPointer {
        if isKnownUniquelyReferenced(&storage), let base = storage?.base, capacity - writerIndex >= count {
            return base
        }
        let readable = readableBytes
        // Sliding the readable bytes to the front is worth it only when that
        // frees at least half the storage; otherwise a nearly full buffer would
        // memmove almost everything for every small append.
        if readerIndex > 0 && readable + count <= capacity / 2 && isKnownUniquelyReferenced(&storage) {
            compact()
            return storage!.base
        }
        // Grow geometrically (amortised O(1) appends): double while small,
        // then by half (a 4 MiB buffer that needs a little more becomes
        // 6 MiB, not 8: every page of it ends up written, and so resident);
        // never past `limit` unless the bytes themselves need it.
        let step = capacity < 1 << 20 ? capacity * 2 : capacity + capacity / 2
        let bounded = min(max(step, 64), max(limit, 0))
        let newCount = max(bounded, readable + count, capacity)
        let grown = ByteStorage(count: newCount)
        if let storage, readable > 0 {
            grown.base.copyMemory(from: storage.base + readerIndex, byteCount: readable)
        }
        storage = grown
        readerIndex = 0
        writerIndex = readable
        return grown.base
    }

    /// Gives this buffer its own storage before writing into it in place.
    private mutating func makeUnique() {
        if storage == nil || isKnownUniquelyReferenced(&storage) { return }
        let copy = ByteStorage(count: capacity)
        copy.base.copyMemory(from: storage!.base + readerIndex, byteCount: readableBytes)
        storage = copy
        writerIndex = readableBytes
        readerIndex = 0
    }

    /// Moves the readable bytes to offset 0 (memmove semantics: regions may overlap).
    private mutating func compact() {
        makeUnique()
        let readable = readableBytes
        if readerIndex > 0, let base = storage?.base {
            base.copyMemory(from: base + readerIndex, byteCount: readable)
        }
        readerIndex = 0
        writerIndex = readable
    }
}

/// The memory behind a `ByteBuffer`: one block of raw, uninitialised bytes.
///
/// Why not `[UInt8]`: an array's elements must all be initialised, so a
/// 64 MiB array is 64 MiB of zeroes written (and resident) before the first
/// byte arrives, and `[UInt8](unsafeUninitializedCapacity:)` may only leave
/// the tail uninitialised if it also excludes it from the array's count, which
/// hides the free space we want to read(2) into. Raw memory has no such rule:
/// bytes are written with `copyMemory`/`storeBytes` and read back as raw
/// bytes only in the range that was written (`readerIndex..<writerIndex`),
/// which is what Swift requires of uninitialised raw memory. Large blocks come
/// from mmap, so pages never written are never resident.
///
/// `@unchecked Sendable`: the memory is only written through a `ByteBuffer`
/// that holds the only reference (`isKnownUniquelyReferenced`, copy on write).
final class ByteStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let count: Int

    init(count: Int) {
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 16)
    }

    deinit {
        base.deallocate()
    }
}
