/// Standard base64 (RFC 4648 §4, with padding).
///
/// Used for Sec-WebSocket-Key / Sec-WebSocket-Accept (RFC 6455 §4.1, §4.2.2)
/// and available to the bridge for `{"$binary": ...}` lines, so both
/// directions work on raw buffers with table lookups and no per-byte calls.
public enum Base64 {
    /// The alphabet of RFC 4648 Table 1.
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Byte -> 6-bit value, 0xFF for bytes outside the alphabet.
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, symbol) in alphabet.enumerated() {
            table[Int(symbol)] = UInt8(value)
        }
        return table
    }()

    private static let pad = UInt8(ascii: "=")

    /// Length of the padded encoding of `count` bytes.
    public static func encodedLength(_ count: Int) -> Int {
        (count + 2) / 3 * 4
    }

    /// Appends the padded encoding of `bytes` to `out`.
    public static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let start = out.count
        let length = encodedLength(bytes.count)
        guard length > 0 else { return }
        out.append(contentsOf: repeatElement(0, count: length))
        out.withUnsafeMutableBytes { target in
            alphabet.withUnsafeBufferPointer { table in
                encodeGroups(bytes, table, UnsafeMutableRawBufferPointer(rebasing: target[start...]))
            }
        }
    }

    /// The padded encoding of `bytes` as a String.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(encodedLength(bytes.count))
        bytes.withUnsafeBytes { encode($0, into: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Accepts standard alphabet, padding optional, no whitespace; returns false
    /// (output unspecified) on any other byte or a bad length.
    /// Decoded bytes are appended to `out`. Non-zero bits in the last symbol
    /// (RFC 4648 §3.5 lets decoders reject them) are ignored.
    public static func decode(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard let symbols = unpaddedCount(text) else { return false }
        // A final group of 2 or 3 symbols carries 1 or 2 bytes.
        let length = symbols / 4 * 3 + max(symbols % 4 - 1, 0)
        guard length > 0 else { return true }
        let start = out.count
        out.append(contentsOf: repeatElement(0, count: length))
        return out.withUnsafeMutableBytes { target in
            decodeTable.withUnsafeBufferPointer { table in
                decodeSymbols(UnsafeRawBufferPointer(rebasing: text[..<symbols]), table,
                              UnsafeMutableRawBufferPointer(rebasing: target[start...]))
            }
        }
    }

    /// Convenience for strings: nil when `text` is not valid base64.
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var copy = text
        let ok = copy.withUTF8 { decode(UnsafeRawBufferPointer($0), into: &out) }
        return ok ? out : nil
    }

    // MARK: - Loops

    private static func encodeGroups(_ input: UnsafeRawBufferPointer, _ table: UnsafeBufferPointer<UInt8>,
                                     _ output: UnsafeMutableRawBufferPointer) {
        let count = input.count
        var i = 0, o = 0
        while i + 3 <= count {
            let group = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            output[o] = table[Int(group >> 18)]
            output[o + 1] = table[Int(group >> 12 & 0x3F)]
            output[o + 2] = table[Int(group >> 6 & 0x3F)]
            output[o + 3] = table[Int(group & 0x3F)]
            i += 3
            o += 4
        }
        // RFC 4648 §4: a final group of 1 or 2 bytes is padded with "==" or "=".
        let rest = count - i
        guard rest > 0 else { return }
        let group = UInt32(input[i]) << 16 | (rest == 2 ? UInt32(input[i + 1]) << 8 : 0)
        output[o] = table[Int(group >> 18)]
        output[o + 1] = table[Int(group >> 12 & 0x3F)]
        output[o + 2] = rest == 2 ? table[Int(group >> 6 & 0x3F)] : pad
        output[o + 3] = pad
    }

    /// Number of symbols before the padding, or nil if the length or padding is wrong.
    private static func unpaddedCount(_ text: UnsafeRawBufferPointer) -> Int? {
        var count = text.count
        var pads = 0
        while pads < 2 && count > 0 && text[count - 1] == pad {
            count -= 1
            pads += 1
        }
        // With padding the whole text is whole quanta; without, a lone final
        // symbol (6 bits) cannot encode a byte.
        if pads > 0 && text.count % 4 != 0 { return nil }
        if count % 4 == 1 { return nil }
        return count
    }

    private static func decodeSymbols(_ input: UnsafeRawBufferPointer, _ table: UnsafeBufferPointer<UInt8>,
                                      _ output: UnsafeMutableRawBufferPointer) -> Bool {
        let count = input.count
        var i = 0, o = 0
        while i + 4 <= count {
            let a = table[Int(input[i])], b = table[Int(input[i + 1])]
            let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
            if (a | b | c | d) & 0xC0 != 0 { return false }
            let group = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(d)
            output[o] = UInt8(truncatingIfNeeded: group >> 16)
            output[o + 1] = UInt8(truncatingIfNeeded: group >> 8)
            output[o + 2] = UInt8(truncatingIfNeeded: group)
            i += 4
            o += 3
        }
        let rest = count - i
        guard rest > 0 else { return true }
        var group: UInt32 = 0
        for k in 0..<rest {
            let value = table[Int(input[i + k])]
            if value & 0xC0 != 0 { return false }
            group |= UInt32(value) << (18 - 6 * UInt32(k))
        }
        output[o] = UInt8(truncatingIfNeeded: group >> 16)
        if rest == 3 { output[o + 1] = UInt8(truncatingIfNeeded: group >> 8) }
        return true
    }
}
