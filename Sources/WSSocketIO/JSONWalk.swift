/// Moving over JSON that `JSONScanner.validate` has accepted: whitespace,
/// whole strings, whole values, the members of an object and the elements of
/// an array, by byte offsets into the text. No recursion (nesting may be
/// 10,000 deep) and every read is bounds-checked, so text that was not
/// validated gives a wrong answer, never a bad memory access.
enum JSONWalk {
    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    static func skipWhitespace(_ json: UnsafeRawBufferPointer, _ i: Int) -> Int {
        var i = i
        while i < json.count && isWhitespace(json[i]) { i += 1 }
        return i
    }

    /// `i` at an opening quote: the index after the closing one.
    static func skipString(_ json: UnsafeRawBufferPointer, _ i: Int) -> Int {
        var i = i + 1
        while i < json.count {
            switch json[i] {
            case 0x22: return i + 1
            case 0x5C: i += 2
            default: i += 1
            }
        }
        return json.count
    }

    /// `i` at the first byte of a value: the index after its last byte.
    static func skipValue(_ json: UnsafeRawBufferPointer, _ i: Int) -> Int {
        guard i < json.count else { return json.count }
        switch json[i] {
        case 0x22:
            return skipString(json, i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = i
            while i < json.count {
                switch json[i] {
                case 0x22: i = skipString(json, i); continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return json.count
        default:
            // A number or a literal: up to the next delimiter.
            var i = i
            while i < json.count {
                let b = json[i]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || isWhitespace(b) { break }
                i += 1
            }
            return i
        }
    }

    /// The members of the object whose `{` is at `start`: each key's token
    /// (quotes included) and value, in order. Stops early when `body` returns false.
    static func forEachMember(_ json: UnsafeRawBufferPointer, objectAt start: Int,
                              _ body: (_ key: Range<Int>, _ value: Range<Int>) throws -> Bool) rethrows {
        var i = skipWhitespace(json, start + 1)
        while i < json.count, json[i] == 0x22 {
            let keyEnd = skipString(json, i)
            let key = i ..< keyEnd
            i = skipWhitespace(json, keyEnd)
            guard i < json.count, json[i] == UInt8(ascii: ":") else { return }
            let valueStart = skipWhitespace(json, i + 1)
            let valueEnd = skipValue(json, valueStart)
            guard try body(key, valueStart ..< valueEnd) else { return }
            i = skipWhitespace(json, valueEnd)
            guard i < json.count, json[i] == UInt8(ascii: ",") else { return }
            i = skipWhitespace(json, i + 1)
        }
    }

    /// The elements of the array whose `[` is at `start`, in order.
    static func forEachElement(_ json: UnsafeRawBufferPointer, arrayAt start: Int,
                               _ body: (Range<Int>) throws -> Void) rethrows {
        var i = skipWhitespace(json, start + 1)
        guard i < json.count, json[i] != UInt8(ascii: "]") else { return }
        while i < json.count {
            let end = skipValue(json, i)
            try body(i ..< end)
            i = skipWhitespace(json, end)
            guard i < json.count, json[i] == UInt8(ascii: ",") else { return }
            i = skipWhitespace(json, i + 1)
        }
    }

    /// Does the string token at `range` (quotes included, no escapes) spell `word`?
    static func token(_ json: UnsafeRawBufferPointer, _ range: Range<Int>, is word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard range.count == count + 2 else { return false }
        let w = word.utf8Start
        for k in 0 ..< count where json[range.lowerBound + 1 + k] != w[k] { return false }
        return true
    }

    /// Where `needle` first occurs in `json[range]`, if anywhere.
    static func contains(_ json: UnsafeRawBufferPointer, _ range: Range<Int>, _ needle: StaticString) -> Bool {
        let count = needle.utf8CodeUnitCount
        let n = needle.utf8Start
        guard count > 0, range.count >= count else { return false }
        var i = range.lowerBound
        let last = range.upperBound - count
        while i <= last {
            if json[i] == n[0] {
                var k = 1
                while k < count && json[i + k] == n[k] { k += 1 }
                if k == count { return true }
            }
            i += 1
        }
        return false
    }

    /// The non-negative integer token at `range`, if it is one that fits.
    static func integer(_ json: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        guard !range.isEmpty, range.count <= 15 else { return nil }
        var value = 0
        for i in range {
            let b = json[i]
            guard b >= 0x30 && b <= 0x39 else { return nil }
            value = value * 10 + Int(b - 0x30)
        }
        return value
    }
}
