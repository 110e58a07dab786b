/// The converters' explicit stack of open containers (no recursion, so a
/// deep message cannot overflow the call stack), at most
/// `CodecLimits.depth` deep. Owned by a `Transcoder`, which frees it.
struct ContainerStack {
    /// One open container (or CBOR tag, or envelope).
    struct Frame {
        /// Items still to come (a map counts its entries); -1 for a CBOR
        /// container of indefinite length, which ends at a break byte.
        var remaining: Int
        /// What the frame is, a converter's own code.
        var kind: UInt8
        /// Pre-order number of the map (the `MapMarks` bit), or the index
        /// of the frame's placeholder when encoding.
        var index: Int
    }

    private var frames: UnsafeMutablePointer<Frame>
    private var capacity: Int
    private(set) var depth = 0

    init() {
        capacity = 32
        frames = .allocate(capacity: capacity)
    }

    func deallocate() { frames.deallocate() }

    mutating func reset() { depth = 0 }

    /// Opens a frame; false (and no change) past `CodecLimits.depth`.
    @inline(__always)
    mutating func push(_ frame: Frame) -> Bool {
        if depth == capacity {
            guard depth < CodecLimits.depth else { return false }
            grow()
        }
        frames[depth] = frame
        depth &+= 1
        return true
    }

    @inline(never)
    private mutating func grow() {
        let size = min(capacity &* 2, CodecLimits.depth)
        let bigger = UnsafeMutablePointer<Frame>.allocate(capacity: size)
        bigger.update(from: frames, count: depth)
        frames.deallocate()
        frames = bigger
        capacity = size
    }

    @inline(__always)
    mutating func pop() { depth &-= 1 }

    /// Closes the innermost frame (depth > 0) and returns it.
    @inline(__always)
    mutating func popFrame() -> Frame {
        depth &-= 1
        return frames[depth]
    }

    /// The innermost frame (depth > 0).
    @inline(__always)
    var top: UnsafeMutablePointer<Frame> { frames + (depth &- 1) }
}

/// Which maps of a message must be written as `{"$map":[[key,value],…]}`
/// (a key that is not a string, or that is an envelope key), one bit per
/// map in the order they open. Found by a pass of their own, run only
/// after a first pass met such a key: a map's form must be known before
/// its first key is written. Owned by a `Transcoder`, which frees it.
///
/// (Raw memory, not an array: a converter's loop that may mark a map would
/// otherwise make the array unique, an allocation, before every message.)
struct MapMarks {
    private var words: UnsafeMutablePointer<UInt64>?
    private var capacity = 0
    /// Words that may hold a bit (the rest are zero).
    private var used = 0

    func deallocate() { words?.deallocate() }

    mutating func reset() {
        guard used > 0, let words else { return }
        words.update(repeating: 0, count: used)
        used = 0
    }

    @inline(never)
    mutating func mark(_ map: Int) {
        let word = map &>> 6
        if word >= capacity {
            let size = max(word &+ 1, capacity &* 2, 4)
            let bigger = UnsafeMutablePointer<UInt64>.allocate(capacity: size)
            bigger.initialize(repeating: 0, count: size)
            if let words {
                bigger.update(from: words, count: used)
                words.deallocate()
            }
            words = bigger
            capacity = size
        }
        words![word] |= 1 &<< UInt64(map & 63)
        used = max(used, word &+ 1)
    }

    @inline(__always)
    func isMarked(_ map: Int) -> Bool {
        let word = map &>> 6
        guard word < used, let words else { return false }
        return words[word] & (1 &<< UInt64(map & 63)) != 0
    }
}

/// The keys that make an object an envelope (wspipe(1): BINARY CODECS),
/// and the two of the lines themselves (`$text`, `$binary`). A map whose
/// key is one of them is written as `$map`, so that no map reads back as
/// an envelope.
enum EnvelopeKey {
    /// Is the key of `n` bytes at `p` one of them? (A cheap first test:
    /// they all start with '$'.)
    @inline(__always)
    static func isReserved(_ p: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        guard n >= 4, n <= 10, p[0] == 0x24 else { return false }
        return kind(p, n) != nil
    }

    enum Kind { case bytes, ext, tag, map, float, undefined, int, simple, text, binary }

    static func kind(_ p: UnsafePointer<UInt8>, _ n: Int) -> Kind? {
        func equals(_ key: StaticString) -> Bool {
            guard key.utf8CodeUnitCount == n else { return false }
            var k = 0
            while k < n { if key.utf8Start[k] != p[k] { return false }; k &+= 1 }
            return true
        }
        switch n {
        case 4: return equals("$tag") ? .tag : equals("$ext") ? .ext : equals("$map") ? .map : equals("$int") ? .int : nil
        case 5: return equals("$text") ? .text : nil
        case 6: return equals("$bytes") ? .bytes : equals("$float") ? .float : nil
        case 7: return equals("$simple") ? .simple : equals("$binary") ? .binary : nil
        case 10: return equals("$undefined") ? .undefined : nil
        default: return nil
        }
    }
}
