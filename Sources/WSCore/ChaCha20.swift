/// The ChaCha20 block function (RFC 8439 §2.3), used as a keystream generator
/// to stretch a 32-byte seed from the OS into masking keys.
///
/// Why not call the OS for every key: on Linux `SystemRandomNumberGenerator`
/// makes one getrandom(2) system call per 8 bytes (measured ~0.4 µs each), so a
/// 4 KiB pool filled that way costs 512 system calls and a masking key would
/// still cost 1/2 syscall in bulk. ChaCha20 keyed from OS randomness is a
/// cryptographically strong generator (it is what arc4random uses on the BSDs
/// and in glibc), which RFC 6455 §5.3 asks for: "the masking key MUST be
/// derived from a strong source of entropy".
struct ChaCha20: Sendable {
    /// The 256-bit key as eight little-endian words (RFC 8439 §2.3, state words 4-11).
    private var key: [UInt32]
    /// Block counter (state words 12-13; words 14-15, the nonce, stay 0).
    private var counter: UInt64 = 0

    static let blockSize = 64

    /// A generator keyed with 32 bytes from `SystemRandomNumberGenerator`.
    init() {
        var system = SystemRandomNumberGenerator()
        var words: [UInt32] = []
        for _ in 0..<4 {
            let value = system.next()
            words.append(UInt32(truncatingIfNeeded: value))
            words.append(UInt32(truncatingIfNeeded: value >> 32))
        }
        key = words
    }

    /// Fills `buffer` with keystream, then re-keys from one more block that is
    /// never handed out ("fast key erasure"): a later memory disclosure cannot
    /// reveal keys already used.
    mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        var offset = 0
        withUnsafeTemporaryAllocation(byteCount: ChaCha20.blockSize, alignment: 8) { block in
            while offset < buffer.count {
                nextBlock(into: block)
                let n = min(ChaCha20.blockSize, buffer.count - offset)
                buffer.baseAddress!.advanced(by: offset)
                    .copyMemory(from: block.baseAddress!, byteCount: n)
                offset += n
            }
            nextBlock(into: block)
            key = (0..<8).map { block.load(fromByteOffset: $0 * 4, as: UInt32.self).littleEndian }
            block.initializeMemory(as: UInt8.self, repeating: 0)
        }
    }

    private mutating func nextBlock(into out: UnsafeMutableRawBufferPointer) {
        let words = (UInt32(truncatingIfNeeded: counter), UInt32(truncatingIfNeeded: counter >> 32),
                     UInt32(0), UInt32(0))
        ChaCha20.block(key: key, counterAndNonce: words, into: out)
        counter &+= 1
    }

    /// One 64-byte block: 20 rounds (10 column + 10 diagonal) over the state,
    /// then the input state is added back and words are serialised little-endian.
    /// `counterAndNonce` are state words 12-15 (RFC 8439 layout: a 32-bit
    /// counter then a 96-bit nonce; we use words 12-13 as a 64-bit counter).
    /// The state lives in sixteen locals so the rounds compile to plain
    /// register arithmetic (no array bounds or uniqueness checks).
    static func block(key: [UInt32], counterAndNonce: (UInt32, UInt32, UInt32, UInt32),
                      into out: UnsafeMutableRawBufferPointer) {
        precondition(key.count == 8 && out.count >= blockSize)
        // §2.3: the first four words are the constants "expand 32-byte k".
        let input: [UInt32] = [0x6170_7865, 0x3320_646E, 0x7962_2D32, 0x6B20_6574,
                               key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7],
                               counterAndNonce.0, counterAndNonce.1, counterAndNonce.2, counterAndNonce.3]
        var x0 = input[0], x1 = input[1], x2 = input[2], x3 = input[3]
        var x4 = input[4], x5 = input[5], x6 = input[6], x7 = input[7]
        var x8 = input[8], x9 = input[9], x10 = input[10], x11 = input[11]
        var x12 = input[12], x13 = input[13], x14 = input[14], x15 = input[15]
        for _ in 0..<10 {
            quarterRound(&x0, &x4, &x8, &x12)
            quarterRound(&x1, &x5, &x9, &x13)
            quarterRound(&x2, &x6, &x10, &x14)
            quarterRound(&x3, &x7, &x11, &x15)
            quarterRound(&x0, &x5, &x10, &x15)
            quarterRound(&x1, &x6, &x11, &x12)
            quarterRound(&x2, &x7, &x8, &x13)
            quarterRound(&x3, &x4, &x9, &x14)
        }
        let words = [x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15]
        for i in 0..<16 {
            out.storeBytes(of: (words[i] &+ input[i]).littleEndian, toByteOffset: i * 4, as: UInt32.self)
        }
    }

    /// RFC 8439 §2.1: a += b; d ^= a; d <<<= 16; c += d; b ^= c; b <<<= 12;
    /// a += b; d ^= a; d <<<= 8; c += d; b ^= c; b <<<= 7.
    @inline(__always)
    private static func quarterRound(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32, _ d: inout UInt32) {
        a = a &+ b; d = rotate(d ^ a, 16)
        c = c &+ d; b = rotate(b ^ c, 12)
        a = a &+ b; d = rotate(d ^ a, 8)
        c = c &+ d; b = rotate(b ^ c, 7)
    }

    @inline(__always)
    private static func rotate(_ value: UInt32, _ bits: UInt32) -> UInt32 {
        value << bits | value >> (32 - bits)
    }
}
