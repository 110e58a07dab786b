/// Text that goes to a terminal but came from elsewhere (a peer's close
/// reason, a subprotocol name, a file name typed by the user) must not be able
/// to move the cursor or change colours: control characters are escaped.
public enum TerminalText {
    /// `text` with C0 controls, DEL and C1 controls written as `\xHH`.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: DisplayWidth.isControl) else { return text }
        var out = String.UnicodeScalarView()
        for s in text.unicodeScalars {
            if DisplayWidth.isControl(s) {
                out.append(contentsOf: "\\x".unicodeScalars)
                out.append(contentsOf: hex(UInt8(s.value)).unicodeScalars)
            } else {
                out.append(s)
            }
        }
        return String(out)
    }

    /// Replaces DEL (0x7F) and UTF-8 encoded C1 controls (C2 80 ... C2 9F) in
    /// JSON text by `\u007f` ... `\u009f`. In valid JSON they can only stand
    /// inside strings, where the escape means the same character (RFC 8259
    /// §7): the text shown is still the same JSON value, and the terminal
    /// never receives them raw (C1 0x9B is CSI for some terminals).
    public static func escapeDisplayControls(inJSON bytes: inout [UInt8]) {
        guard bytes.contains(where: { $0 == 0x7F || $0 == 0xC2 }) else { return }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x7F {
                appendUnicodeEscape(0x7F, to: &out)
            } else if b == 0xC2 && i + 1 < bytes.count && bytes[i + 1] >= 0x80 && bytes[i + 1] <= 0x9F {
                appendUnicodeEscape(bytes[i + 1], to: &out)
                i += 1
            } else {
                out.append(b)
            }
            i += 1
        }
        bytes = out
    }

    private static func appendUnicodeEscape(_ value: UInt8, to out: inout [UInt8]) {
        out.append(contentsOf: Array("\\u00".utf8))
        out.append(contentsOf: Array(hex(value).utf8))
    }

    public static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 0xF)]])
    }
}
