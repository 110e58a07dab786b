/// A growable byte buffer with a read cursor: appends at the end, consumes from
/// the front without moving bytes each time (compacts when the consumed prefix
/// is large). Used for every outgoing and incoming byte queue.
///
/// Layout: `storage[readerIndex..<writerIndex]` are the readable bytes,
/// `storage[writerIndex...]` is free space. Consuming only moves `readerIndex`;
/// the bytes are moved to the front only when that is cheap relative to what
/// was consumed (so a queue that is drained a little at a time costs O(1)
/// amortised per byte, never a memmove per call).
public struct ByteBuffer: Sendable {
    private var storage: [UInt8]
    private var readerIndex = 0
    private var writerIndex = 0

    /// Compact on `consume` only once the dead prefix is at least this large
    /// (and more than half the storage): smaller prefixes are reclaimed for
    /// free when the buffer drains to empty.
    private static let compactThreshold = 64 * 1024

    public init(capacity: Int = 0) {
        storage = capacity > 0 ? ByteBuffer.makeStorage(count: capacity, copying: nil) : []
    }

    /// Number of bytes that can be read (appended and not yet consumed).
    public var readableBytes: Int { writerIndex - readerIndex }

    public var isEmpty: Bool { writerIndex == readerIndex }

    /// Bytes allocated in total (readable, consumed prefix and free tail).
    public var capacity: Int { storage.count }

    /// Appends raw bytes (one copy).
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        let count = bytes.count
        reserveWritable(count)
        let start = writerIndex
        storage.withUnsafeMutableBytes { buffer in
            (buffer.baseAddress! + start).copyMemory(from: source, byteCount: count)
        }
        writerIndex += count
    }

    public mutating func append(_ byte: UInt8) {
        reserveWritable(1)
        storage[writerIndex] = byte
        writerIndex += 1
    }

    public mutating func append<C: Collection>(contentsOf bytes: C) where C.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            append(UnsafeRawBufferPointer(buffer))
        }
        if done != nil { return }
        let count = bytes.count
        reserveWritable(count)
        var index = writerIndex
        for byte in bytes {
            storage[index] = byte
            index += 1
        }
        writerIndex = index
    }

    /// Reserve `count` writable bytes at the end, let `body` fill them, commit
    /// the number it returns (used by read(2) straight into the buffer).
    /// `body` may be given more than `count` bytes (the whole free tail).
    @discardableResult
    public mutating func writeWithUnsafeMutableBytes(
        minimumWritableBytes count: Int,
        _ body: (UnsafeMutableRawBufferPointer) throws -> Int
    ) rethrows -> Int {
        reserveWritable(max(count, 0))
        let start = writerIndex
        let written = try storage.withUnsafeMutableBytes { buffer in
            try body(UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
        }
        precondition(written >= 0 && written <= storage.count - start,
                     "ByteBuffer: body reported more bytes than it was given")
        writerIndex += written
        return written
    }

    /// Calls `body` with the readable bytes. The pointer is valid only inside `body`.
    public func withReadableBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let range = readerIndex..<writerIndex
        return try storage.withUnsafeBytes { buffer in
            try body(UnsafeRawBufferPointer(rebasing: buffer[range]))
        }
    }

    /// Like `withReadableBytes`, but the bytes may be modified in place.
    public mutating func withMutableReadableBytes<R>(
        _ body: (UnsafeMutableRawBufferPointer) throws -> R
    ) rethrows -> R {
        let range = readerIndex..<writerIndex
        return try storage.withUnsafeMutableBytes { buffer in
            try body(UnsafeMutableRawBufferPointer(rebasing: buffer[range]))
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
        } else if readerIndex > ByteBuffer.compactThreshold && readerIndex > storage.count / 2 {
            compact()
        }
    }

    /// Forgets all bytes. Keeping the capacity is what makes steady-state use
    /// allocation-free.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        readerIndex = 0
        writerIndex = 0
        if !keepingCapacity { storage = [] }
    }

    /// A copy of the readable bytes (for tests and diagnostics).
    public var readableArray: [UInt8] {
        withReadableBytes { Array($0) }
    }

    /// Makes room for `count` more bytes at the end without another allocation.
    public mutating func reserveWritableBytes(_ count: Int) {
        reserveWritable(max(count, 0))
    }

    // MARK: - Space management

    /// Makes sure `count` bytes can be written after `writerIndex`.
    private mutating func reserveWritable(_ count: Int) {
        if storage.count - writerIndex >= count { return }
        let readable = readableBytes
        // Sliding the readable bytes to the front is worth it only when that
        // frees at least half the storage; otherwise a nearly full buffer would
        // memmove almost everything for every small append.
        if readerIndex > 0 && readable + count <= storage.count / 2 {
            compact()
            return
        }
        let newCount = max(storage.count * 2, readable + count, 64)
        let range = readerIndex..<writerIndex
        storage = storage.withUnsafeBytes { old in
            ByteBuffer.makeStorage(count: newCount, copying: UnsafeRawBufferPointer(rebasing: old[range]))
        }
        readerIndex = 0
        writerIndex = readable
    }

    /// Moves the readable bytes to offset 0 (memmove semantics: regions may overlap).
    private mutating func compact() {
        let readable = readableBytes
        let from = readerIndex
        storage.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            base.copyMemory(from: base + from, byteCount: readable)
        }
        readerIndex = 0
        writerIndex = readable
    }

    /// A zero-filled array of `count` bytes starting with a copy of `prefix`.
    private static func makeStorage(count: Int, copying prefix: UnsafeRawBufferPointer?) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = UnsafeMutableRawPointer(buffer.baseAddress!)
            var copied = 0
            if let prefix, let source = prefix.baseAddress, prefix.count > 0 {
                base.copyMemory(from: source, byteCount: prefix.count)
                copied = prefix.count
            }
            (base + copied).initializeMemory(as: UInt8.self, repeating: 0, count: count - copied)
            initialized = count
        }
    }
}
