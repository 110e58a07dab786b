/// The binary formats `--codec` speaks (wspipe(1): BINARY CODECS): what a
/// binary message holds, and what a JSON line is turned into.
public enum BinaryFormat: String, CaseIterable, Sendable {
    /// MessagePack (the msgpack spec, github.com/msgpack/msgpack, spec.md).
    case msgpack
    /// CBOR (RFC 8949).
    case cbor

    /// The format's name as its users write it, for messages.
    public var displayName: String {
        switch self {
        case .msgpack: return "MessagePack"
        case .cbor: return "CBOR"
        }
    }
}

/// Why a message or a line could not be converted, and where: `offset` is
/// the byte of the input (binary message or JSON text) where the problem
/// was found (the input's length when it ended too early).
public struct CodecError: Error, Equatable, CustomStringConvertible, Sendable {
    public var offset: Int
    /// Short lower-case English phrase.
    public var reason: String

    public init(offset: Int, reason: String) {
        self.offset = offset
        self.reason = reason
    }

    public var description: String { "at byte \(offset): \(reason)" }
}

/// The limits every conversion keeps, whatever the input: no recursion (an
/// explicit stack), and this many containers (and CBOR tags) open at most,
/// as the JSON validator's (WSJSON's `NestingStack.limit`).
enum CodecLimits {
    static let depth = 10_000
    /// Longest `{"$int":"…"}` (digits) and CBOR bignum (bytes) converted:
    /// the conversion between bases is quadratic in the length. A longer
    /// bignum is written as its tag (`{"$tag":2,"value":{"$bytes":…}}`).
    static let bigIntDigits = 1_000
    static let bigIntBytes = 420
}
