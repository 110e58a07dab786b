extension JSONScanner {
    /// The offset (from the opening quote) of the first `\u` escape in a valid
    /// JSON string token that is an unpaired surrogate, or nil when every
    /// escape stands for a character.
    ///
    /// RFC 8259 §8.2: such a string is grammatical but "the behavior of
    /// software that receives [it] is unpredictable"; it has no UTF-8 form
    /// (RFC 3629 §3), so a `$text` envelope holding one cannot become a text
    /// message and is refused rather than sent as U+FFFD. Only the backslashes
    /// are looked at: a token without one costs one pass, 16 bytes a step.
    public static func firstLoneSurrogate(inStringToken token: UnsafeRawBufferPointer) -> Int? {
        guard let base = token.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let end = token.count - 1   // the closing quote
        var i = 1
        while i < end {
            guard let found = nextBackslash(base, end, from: i) else { return nil }
            i = found
            guard i + 1 < end, token[i + 1] == UInt8(ascii: "u"), let unit = unit(token, at: i + 2, end) else {
                i += 2   // a one-character escape (the token is valid)
                continue
            }
            if unit & 0xFC00 == 0xDC00 { return i }
            if unit & 0xFC00 == 0xD800 {
                guard i + 12 <= end, token[i + 6] == 0x5C, token[i + 7] == UInt8(ascii: "u"),
                      let next = self.unit(token, at: i + 8, end), next & 0xFC00 == 0xDC00 else { return i }
                i += 12
                continue
            }
            i += 6
        }
        return nil
    }

    /// The index of the first '\\' at or after `start` and before `end`.
    private static func nextBackslash(_ p: UnsafePointer<UInt8>, _ end: Int, from start: Int) -> Int? {
        var i = start
        if SWAR.findStop(p, end, &i, { SWAR.equal($0, 0x5C) }) { return i }
        while i < end {
            if p[i] == 0x5C { return i }
            i &+= 1
        }
        return nil
    }

    /// The four hex digits at `i` as a UTF-16 code unit.
    private static func unit(_ token: UnsafeRawBufferPointer, at i: Int, _ end: Int) -> UInt32? {
        guard i + 4 <= end else { return nil }
        var value: UInt32 = 0
        for k in i ..< i + 4 {
            let c = token[k] | 0x20
            let digit: UInt8
            if c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") {
                digit = c - UInt8(ascii: "0")
            } else if c >= UInt8(ascii: "a") && c <= UInt8(ascii: "f") {
                digit = c - UInt8(ascii: "a") + 10
            } else {
                return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
