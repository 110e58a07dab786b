/// Source of masking keys and handshake nonces. The default pulls 4 KiB at a
/// time (256 bytes the first time) from the OS CSPRNG (SystemRandomNumberGenerator)
/// so a key costs no syscall.
///
/// Implementation note: the 4 KiB are ChaCha20 keystream keyed with 32 bytes
/// from `SystemRandomNumberGenerator` (see `ChaCha20` for why: on Linux the
/// system generator is one syscall per 8 bytes). A masking key is then four
/// bytes read from the pool.
public struct EntropyPool: Sendable {
    private static let poolSize = 4096
    /// The first fill: a short session (a handshake nonce and a few masking
    /// keys) should not pay for 4 KiB of keystream at start-up.
    private static let firstFill = 256

    private var pool: [UInt8]
    private var index = 0
    /// nil for a fixed pool (tests), which cycles through its bytes forever.
    private var generator: ChaCha20?

    public init() {
        generator = ChaCha20()
        pool = [UInt8](repeating: 0, count: EntropyPool.firstFill)
        pool.withUnsafeMutableBytes { generator!.fill($0) }
    }

    /// For tests: repeats these bytes (cyclically), so masked output is fixed.
    public init(fixed bytes: [UInt8]) {
        precondition(!bytes.isEmpty, "EntropyPool(fixed:) needs at least one byte")
        pool = bytes
        generator = nil
    }

    /// Four bytes read in order, as a big-endian number: a masking key built
    /// from it goes on the wire as those same four bytes.
    /// (Inlined where a frame is masked, one key per message; the refill and
    /// the fixed test pools take the call.)
    @inline(__always)
    public mutating func next32() -> UInt32 {
        if generator != nil && index + 4 <= pool.count {
            let value = pool.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index, as: UInt32.self) }
            index += 4
            return UInt32(bigEndian: value)
        }
        return next32ByBytes()
    }

    @inline(never)
    private mutating func next32ByBytes() -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            value = value << 8 | UInt32(nextByte())
        }
        return value
    }

    /// `count` bytes from the pool (e.g. the 16-byte Sec-WebSocket-Key nonce).
    public mutating func fill(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for _ in 0..<count {
            bytes.append(nextByte())
        }
        return bytes
    }

    private mutating func nextByte() -> UInt8 {
        if index == pool.count {
            if generator != nil { refill() } else { index = 0 }
        }
        let byte = pool[index]
        index += 1
        return byte
    }

    private mutating func refill() {
        if pool.count < EntropyPool.poolSize { pool = [UInt8](repeating: 0, count: EntropyPool.poolSize) }
        pool.withUnsafeMutableBytes { generator!.fill($0) }
        index = 0
    }
}
