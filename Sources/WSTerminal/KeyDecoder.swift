/// Terminal input bytes → `Key`s, for a terminal in raw mode (xterm, VTE,
/// tmux, screen, the Linux console, rxvt: ECMA-48 CSI and SS3 sequences).
///
/// Pure and incremental: a read may end anywhere (inside an escape sequence,
/// a UTF-8 character, or a paste), and what cannot be decoded yet is kept for
/// the next `feed`. A read that ends right after ESC is ambiguous (the Esc key,
/// or the first byte of a sequence still in flight): the caller waits a short
/// while and calls `flushEscape()` when nothing more came (`isHoldingEscape`).
public struct KeyDecoder: Sendable {
    /// Undecoded bytes from the end of the previous read.
    private var held: [UInt8] = []
    /// Inside ESC [ 200 ~ ... ESC [ 201 ~ (xterm bracketed paste mode).
    private var pasting = false
    private var pasted: [UInt8] = []

    private static let pasteEnd: [UInt8] = [0x1B, 0x5B, 0x32, 0x30, 0x31, 0x7E]   // ESC [ 2 0 1 ~
    /// A CSI longer than this without a final byte is garbage, not a key.
    private static let maxSequence = 32

    public init() {}

    /// True when the last read ended with an ESC that may start a sequence.
    public var isHoldingEscape: Bool { !pasting && held.first == 0x1B }

    /// Decodes `bytes`, appending keys in order.
    public mutating func feed(_ bytes: some Collection<UInt8>) -> [Key] {
        var input = held
        input.append(contentsOf: bytes)
        held.removeAll()
        var keys: [Key] = []
        var i = 0
        while i < input.count {
            if pasting {
                i = consumePaste(input, from: i, into: &keys)
                continue
            }
            let b = input[i]
            if b == 0x1B {
                guard let (sequence, length) = Self.escapeSequence(input, at: i) else {
                    held = Array(input[i...])
                    return keys
                }
                switch sequence {
                case .key(let key): keys.append(key)
                case .pasteStart: pasting = true; pasted.removeAll()
                }
                i += length
            } else if b < 0x20 || b == 0x7F {
                if let key = Self.controlKey(b) { keys.append(key) }
                i += 1
            } else {
                let (text, end, complete) = Self.printableRun(input, from: i)
                if !text.isEmpty { keys.append(.text(text)) }
                if !complete { held = Array(input[end...]); return keys }
                i = end
            }
        }
        return keys
    }

    /// The held ESC was the Esc key: delivers it, then decodes what followed it.
    public mutating func flushEscape() -> [Key] {
        guard isHoldingEscape else { return [] }
        let rest = held.dropFirst()
        held.removeAll()
        return [.escape] + feed(Array(rest))
    }

    // MARK: pieces

    /// Pasted bytes up to ESC [ 201 ~; a terminator split across reads is held.
    private mutating func consumePaste(_ input: [UInt8], from start: Int, into keys: inout [Key]) -> Int {
        var i = start
        while i < input.count {
            if input[i] == 0x1B {
                let available = min(Self.pasteEnd.count, input.count - i)
                if input[i..<(i + available)].elementsEqual(Self.pasteEnd[0..<available]) {
                    if available < Self.pasteEnd.count {
                        pasted.append(contentsOf: input[start..<i])
                        held = Array(input[i...])
                        return input.count
                    }
                    pasted.append(contentsOf: input[start..<i])
                    keys.append(.paste(Self.pastedText(pasted)))
                    pasting = false
                    pasted.removeAll()
                    return i + Self.pasteEnd.count
                }
            }
            i += 1
        }
        pasted.append(contentsOf: input[start...])
        return input.count
    }

    /// Paste text with CR LF and lone CR made "\n" (terminals send CR for a
    /// line break); invalid UTF-8 becomes U+FFFD.
    private static func pastedText(_ bytes: [UInt8]) -> String {
        var normalized: [UInt8] = []
        normalized.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0D {
                normalized.append(0x0A)
                if i + 1 < bytes.count && bytes[i + 1] == 0x0A { i += 1 }
            } else {
                normalized.append(bytes[i])
            }
            i += 1
        }
        return String(decoding: normalized, as: UTF8.self)
    }

    private static func controlKey(_ b: UInt8) -> Key? {
        switch b {
        case 0x0D, 0x0A: return .enter
        case 0x09: return .tab
        case 0x08, 0x7F: return .backspace
        case 0x01...0x1A: return .ctrl(Character(Unicode.Scalar(b + 0x60)))
        default: return nil   // NUL, Ctrl-\ ] ^ _: nothing to do
        }
    }

    /// A run of printable characters from `start` up to the next control byte.
    /// `complete` is false when the run ends inside a UTF-8 sequence cut by
    /// the end of the read; `end` is then where that sequence starts.
    private static func printableRun(_ input: [UInt8], from start: Int) -> (String, Int, Bool) {
        var scalars = String.UnicodeScalarView()
        var i = start
        while i < input.count {
            let b = input[i]
            if b < 0x20 || b == 0x7F { break }
            switch UTF8Scalar.decode(input, at: i) {
            case .scalar(let s, let length):
                // C1 controls (U+0080-U+009F) have no key meaning; drop them.
                if s.value >= 0x80 && s.value < 0xA0 { i += length; continue }
                scalars.append(s)
                i += length
            case .invalid:
                scalars.append("\u{FFFD}")
                i += 1
            case .truncated:
                return (String(scalars), i, false)
            }
        }
        return (String(scalars), i, true)
    }

    /// What an escape sequence means: a key, or the start of a paste.
    private enum Sequence { case key(Key), pasteStart }

    /// The escape sequence at `i` with its length; nil when the input ends
    /// before the sequence does.
    private static func escapeSequence(_ input: [UInt8], at i: Int) -> (Sequence, Int)? {
        guard i + 1 < input.count else { return nil }
        let next = input[i + 1]
        switch next {
        case UInt8(ascii: "["):
            return controlSequence(input, at: i)
        case UInt8(ascii: "O"):
            guard i + 2 < input.count else { return nil }
            return (.key(ss3Key(input[i + 2])), 3)
        case 0x7F, 0x08:
            return (.key(.altBackspace), 2)
        case 0x0D:
            return (.key(.altEnter), 2)
        case 0x20...0x7E:
            return (.key(.alt(Character(Unicode.Scalar(next)))), 2)
        default:
            // ESC ESC, ESC and a control or non-ASCII byte: the Esc key, then
            // whatever follows decoded on its own.
            return (.key(.escape), 1)
        }
    }

    /// ECMA-48 §5.4: CSI, parameter bytes 0x30-0x3F, intermediate bytes
    /// 0x20-0x2F, one final byte 0x40-0x7E.
    private static func controlSequence(_ input: [UInt8], at i: Int) -> (Sequence, Int)? {
        var j = i + 2
        while j < input.count {
            let b = input[j]
            if b >= 0x40 && b <= 0x7E {
                let parameters = Array(input[(i + 2)..<j])
                return (csiKey(parameters: parameters, final: b), j + 1 - i)
            }
            guard b >= 0x20 && b <= 0x3F, j - i < maxSequence else {
                return (.key(.ignored), j - i)   // malformed: drop what was read, decode the rest
            }
            j += 1
        }
        return input.count - i < maxSequence ? nil : (.key(.ignored), input.count - i)
    }

    private static func csiKey(parameters: [UInt8], final: UInt8) -> Sequence {
        if final == UInt8(ascii: "~") && parameters.elementsEqual("200".utf8) { return .pasteStart }
        return .key(csiKeyOnly(parameters: parameters, final: final))
    }

    private static func csiKeyOnly(parameters: [UInt8], final: UInt8) -> Key {
        let fields = parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
            .map { Int(String(decoding: $0, as: UTF8.self)) }
        let first = fields.first.flatMap { $0 } ?? 1
        // xterm: ESC [ 1 ; m X with m - 1 a bit set of Shift 1, Alt 2, Ctrl 4.
        let modifier = fields.count > 1 ? (fields[1] ?? 1) : 1
        let wordMotion = modifier > 1 && (modifier - 1) & 6 != 0
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return wordMotion ? .wordRight : .right
        case UInt8(ascii: "D"): return wordMotion ? .wordLeft : .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch first {
            case 1, 7: return .home      // VT220 / rxvt
            case 4, 8: return .end
            case 3: return .delete
            default: return .ignored     // Insert, PageUp/Down, F-keys, a stray paste end
            }
        default:
            return .ignored
        }
    }

    /// SS3 (ESC O x): cursor keys in application mode, keypad Enter.
    private static func ss3Key(_ b: UInt8) -> Key {
        switch b {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "M"): return .enter
        default: return .ignored
        }
    }
}
