/// Peer text on its way to a terminal (wspipe(1): OPTIONS, Diagnostics; LINES
/// AND MESSAGES): a peer must not be able to move the cursor, set the window
/// title, switch character sets or reorder what is shown, so every code point
/// a terminal would act on is written as an escape instead. This is the one
/// place that decides what is escaped and how; everything that shows peer
/// bytes at a terminal (stderr always, stdout and routes when they are a
/// terminal, the interactive transcript) goes through `append`.
///
/// Escaped: C0 controls (but see `Context`), DEL, C1 controls (U+0080 to
/// U+009F: 0x9B is CSI on some terminals), the bidirectional embeddings,
/// overrides and isolates (U+202A to U+202E, U+2066 to U+2069: "Trojan
/// Source", text shown in an order other than its bytes'), the invisible
/// direction marks that reorder neutral characters around them (U+200E,
/// U+200F, U+061C), the line and paragraph separators (U+2028, U+2029: some
/// terminals break the line there) and the byte-order mark U+FEFF (invisible),
/// and bytes that are not UTF-8 (a terminal in an 8-bit mode reads 0x9B as CSI).
///
/// Depends on nothing but the standard library.
public enum TerminalEscaping {
    /// What the bytes are, which decides what may stay and how an escape looks.
    public enum Context: Sendable {
        /// One line of a diagnostic: everything above is escaped, line feeds
        /// and tabs too, as `\xHH` (a code point above U+00FF as `\uHHHH`).
        case line
        /// Lines of messages (-t, raw binary): as `.line`, but line feeds and
        /// tabs stay, so that text keeps its lines.
        case lines
        /// Valid JSON text, where these code points can only stand inside
        /// strings: each becomes the JSON escape `\u00hh` / `\uhhhh`, which
        /// means the same character (RFC 8259 §7), so the line shown is still
        /// the same JSON value. JSON's blanks (tab, LF, CR) stay.
        case json
    }

    /// Appends `bytes` to `out`, escaped for a terminal as `context` says.
    public static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8], in context: Context) {
        var i = 0
        var runStart = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b >= 0x20 && b < 0x7F { i += 1; continue }
            if b < 0x80 {
                if keeps(b, context) { i += 1; continue }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<i]))
                appendEscape(UInt32(b), context, to: &out)
                i += 1
                runStart = i
                continue
            }
            let (scalar, length) = decode(bytes, at: i)
            guard let scalar else {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<i]))
                appendByteEscape(b, to: &out)
                i += 1
                runStart = i
                continue
            }
            if isDangerous(scalar) {
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<i]))
                appendEscape(scalar, context, to: &out)
                runStart = i + length
            }
            i += length
        }
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<n]))
    }

    /// True when `append` would copy `bytes` unchanged (one pass, no copy).
    public static func isSafe(_ bytes: UnsafeRawBufferPointer, in context: Context) -> Bool {
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0x20 && b < 0x7F { i += 1; continue }
            if b < 0x80 {
                guard keeps(b, context) else { return false }
                i += 1
                continue
            }
            let (scalar, length) = decode(bytes, at: i)
            guard let scalar, !isDangerous(scalar) else { return false }
            i += length
        }
        return true
    }

    /// `text` escaped as one line of a diagnostic (`Context.line`).
    public static func escaping(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            if isSafe(bytes, in: .line) { return text }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            append(bytes, to: &out, in: .line)
            return String(decoding: out, as: UTF8.self)
        }
    }

    /// `bytes` escaped into a new array (for a line built elsewhere, such as an event).
    public static func escaped(_ bytes: [UInt8], in context: Context) -> [UInt8] {
        bytes.withUnsafeBytes { raw in
            if isSafe(raw, in: context) { return bytes }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            append(raw, to: &out, in: context)
            return out
        }
    }

    /// A code point above ASCII that a terminal acts on or that hides what is
    /// shown: C1 controls, the bidirectional formatting characters and marks
    /// that reorder text, the Unicode line separators and the byte-order mark.
    @inline(__always)
    static func isDangerous(_ scalar: UInt32) -> Bool {
        (scalar >= 0x80 && scalar <= 0x9F)
            || (scalar >= 0x202A && scalar <= 0x202E)
            || (scalar >= 0x2066 && scalar <= 0x2069)
            || scalar == 0x200E || scalar == 0x200F || scalar == 0x061C
            || scalar == 0x2028 || scalar == 0x2029 || scalar == 0xFEFF
    }

    /// Which ASCII controls (and DEL) stay as they are.
    @inline(__always)
    private static func keeps(_ byte: UInt8, _ context: Context) -> Bool {
        switch context {
        case .line: return false
        case .lines: return byte == 0x0A || byte == 0x09
        case .json: return byte == 0x0A || byte == 0x09 || byte == 0x0D
        }
    }

    /// The scalar of the UTF-8 sequence at `i` and its length; nil (length 1)
    /// when the bytes there are not UTF-8 (RFC 3629: no overlong forms, no
    /// surrogates, nothing above U+10FFFF, no sequence cut short).
    private static func decode(_ bytes: UnsafeRawBufferPointer, at i: Int) -> (UInt32?, Int) {
        let lead = bytes[i]
        let length: Int
        let minimum: UInt32
        var scalar: UInt32
        switch lead {
        case 0xC2...0xDF: length = 2; minimum = 0x80; scalar = UInt32(lead & 0x1F)
        case 0xE0...0xEF: length = 3; minimum = 0x800; scalar = UInt32(lead & 0x0F)
        case 0xF0...0xF4: length = 4; minimum = 0x10000; scalar = UInt32(lead & 0x07)
        default: return (nil, 1)
        }
        guard i + length <= bytes.count else { return (nil, 1) }
        for k in 1..<length {
            let next = bytes[i + k]
            guard next & 0xC0 == 0x80 else { return (nil, 1) }
            scalar = scalar << 6 | UInt32(next & 0x3F)
        }
        guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return (nil, 1) }
        return (scalar, length)
    }

    private static func appendEscape(_ scalar: UInt32, _ context: Context, to out: inout [UInt8]) {
        if context == .json || scalar > 0xFF {
            out.append(contentsOf: [0x5C, UInt8(ascii: "u")])
            for shift in stride(from: 12, through: 0, by: -4) { out.append(hexDigit(UInt8(scalar >> UInt32(shift) & 0xF))) }
        } else {
            appendByteEscape(UInt8(scalar), to: &out)
        }
    }

    /// `\xHH`.
    private static func appendByteEscape(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: [0x5C, UInt8(ascii: "x"), hexDigit(byte >> 4), hexDigit(byte & 0xF)])
    }

    @inline(__always)
    private static func hexDigit(_ v: UInt8) -> UInt8 {
        v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "a") + v - 10
    }

    /// Two lowercase hex digits, for dumps of binary payloads.
    public static func hex(_ byte: UInt8) -> String {
        String(decoding: [hexDigit(byte >> 4), hexDigit(byte & 0xF)], as: UTF8.self)
    }
}
