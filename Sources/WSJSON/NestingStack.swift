/// The validator's explicit stack of open containers (no recursion, so deep
/// input cannot overflow the call stack): one bit per level, 1 = object,
/// 0 = array.
///
/// The innermost 64 levels live in a register-sized word; only deeper documents
/// spill whole words into an array, so ordinary messages allocate nothing.
struct NestingStack {
    /// Deepest nesting accepted. RFC 8259 §9 lets a parser limit nesting; 10000
    /// is far beyond any real protocol and keeps a hostile line cheap.
    static let limit = 10_000

    /// Number of open containers.
    private(set) var depth = 0
    /// Levels 64*k ..< 64*k+64 where k = (depth - 1) / 64.
    private var word: UInt64 = 0
    /// Full words of the outer levels.
    private var spilled: [UInt64] = []

    /// Opens a container; false (and no change) when that would exceed `limit`.
    @inline(__always)
    mutating func push(isObject: Bool) -> Bool {
        if depth >= NestingStack.limit { return false }
        let lane = depth & 63
        if lane == 0 && depth > 0 {
            spilled.append(word)
            word = 0
        }
        let bit: UInt64 = 1 &<< UInt64(lane)
        word = isObject ? (word | bit) : (word & ~bit)
        depth &+= 1
        return true
    }

    /// Closes the innermost container (depth must be > 0).
    @inline(__always)
    mutating func pop() {
        depth &-= 1
        if depth > 0 && depth & 63 == 0 {
            word = spilled.removeLast()
        }
    }

    /// Is the innermost open container an object? (depth must be > 0)
    @inline(__always)
    var innermostIsObject: Bool {
        (word &>> UInt64((depth &- 1) & 63)) & 1 == 1
    }
}
