/// A MessagePack message as one JSON text (wspipe(1): BINARY CODECS), in
/// one pass over the bytes with an explicit stack: nil, booleans, integers
/// (beyond ±2^53 as `{"$int":"…"}`), floats (always with a fraction or an
/// exponent; float32 as the double of the same value), str as JSON
/// strings (checked as UTF-8), bin as `{"$bytes":"<base64>"}`, extension
/// types as `{"$ext":N,"$bytes":…}`, arrays, and maps as objects, or as
/// `{"$map":[[key,value],…]}` when a key is not a string or is an envelope
/// key.
///
/// Every announced length and count is checked against the bytes that are
/// left before anything is written for it, so a hostile header costs
/// nothing; an error names the byte where it was found.
enum MessagePackToJSON {
    /// The frame kinds of `ContainerStack`.
    private static let array: UInt8 = 0
    private static let object: UInt8 = 1
    private static let pairKey: UInt8 = 2
    private static let pairValue: UInt8 = 3

    /// Appends the JSON of the message `input` to `out`.
    static func convert(_ input: UnsafeRawBufferPointer, into out: inout OutputBuffer,
                        stack: inout ContainerStack, marks: inout MapMarks) throws(CodecError) {
        guard let base = input.baseAddress, input.count > 0 else {
            throw CodecError(offset: 0, reason: "empty message (MessagePack has no empty value)")
        }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let start = out.count
        marks.reset()
        // Almost every message has only string keys: one pass. Otherwise
        // that pass marked the maps that need `$map`, and a second one
        // writes them so.
        if try pass(p, input.count, &out, &stack, &marks) { return }
        out.count = start
        if try pass(p, input.count, &out, &stack, &marks) { return }
        throw CodecError(offset: 0, reason: "internal error: a map changed its form between passes")
    }

    /// One pass; false when a map was found that needs `$map` and was not
    /// marked yet (it is now, and the output is to be thrown away).
    private static func pass(_ p: UnsafePointer<UInt8>, _ n: Int, _ out: inout OutputBuffer,
                             _ stack: inout ContainerStack, _ marks: inout MapMarks) throws(CodecError) -> Bool {
        var i = 0
        var clean = true
        var maps = 0
        var atKey = false
        stack.reset()

        next: while true {
            if atKey {
                atKey = false
                if let length = stringKey(p, n, &i) {
                    let bad = out.putString(p + i, length, readable: n &- i)
                    if bad != -1 { throw stringError(bad, at: i, out) }
                    out.put(0x3A)
                    i &+= length
                } else {
                    // Not a string, or an envelope key: this map is a `$map`.
                    marks.mark(stack.top.pointee.index)
                    clean = false
                    stack.top.pointee.kind = pairKey
                }
            }
            guard out.reserve(OutputBuffer.scalarRoom) else { throw tooLarge(i, out) }
            guard i < n else { throw CodecError(offset: n, reason: "message ends where a value was expected") }
            let head = i
            let b = p[i]
            switch b {
            case 0x00 ... 0x7F:
                out.putDecimal(UInt64(b))
                i &+= 1
            case 0xE0 ... 0xFF:
                out.put(0x2D)
                out.putDecimal(UInt64(0x100 &- Int(b)))
                i &+= 1
            case 0x80 ... 0x8F, 0xDE, 0xDF:
                let count = try header(p, n, &i, b <= 0x8F ? 0 : b == 0xDE ? 2 : 4, b, what: "map")
                if count == 0 {
                    out.put(0x7B, 0x7D)
                    maps &+= 1
                } else {
                    guard count <= (n &- i) / 2 else { throw announced(count, "map", "entries", head, n &- i) }
                    let marked = marks.isMarked(maps)
                    guard stack.push(.init(remaining: count, kind: marked ? pairKey : object, index: maps)) else {
                        throw tooDeep(i)
                    }
                    maps &+= 1
                    if marked { out.put(#"{"$map":[["#) } else { out.put(0x7B); atKey = true }
                    continue next
                }
            case 0x90 ... 0x9F, 0xDC, 0xDD:
                let count = try header(p, n, &i, b <= 0x9F ? 0 : b == 0xDC ? 2 : 4, b, what: "array")
                if count == 0 {
                    out.put(0x5B, 0x5D)
                } else {
                    guard count <= n &- i else { throw announced(count, "array", "items", head, n &- i) }
                    guard stack.push(.init(remaining: count, kind: array, index: 0)) else { throw tooDeep(i) }
                    out.put(0x5B)
                    continue next
                }
            case 0xA0 ... 0xBF, 0xD9, 0xDA, 0xDB:
                let length = try header(p, n, &i, b <= 0xBF ? 0 : b == 0xD9 ? 1 : b == 0xDA ? 2 : 4, b, what: "str")
                guard length <= n &- i else { throw announced(length, "string", "bytes", head, n &- i) }
                let bad = out.putString(p + i, length, readable: n &- i)
                if bad != -1 { throw stringError(bad, at: i, out) }
                i &+= length
            case 0xC0:
                out.put("null")
                i &+= 1
            case 0xC2:
                out.put("false")
                i &+= 1
            case 0xC3:
                out.put("true")
                i &+= 1
            case 0xC4, 0xC5, 0xC6:
                let length = try header(p, n, &i, b == 0xC4 ? 1 : b == 0xC5 ? 2 : 4, b, what: "bin")
                guard length <= n &- i else { throw announced(length, "byte string", "bytes", head, n &- i) }
                guard out.putBytes(p + i, length) else { throw tooLarge(i, out) }
                i &+= length
            case 0xC7, 0xC8, 0xC9, 0xD4 ... 0xD8:
                try ext(p, n, &i, b, &out)
            case 0xCA:
                let bits = try fixed(p, n, &i, 4, b)
                out.putDouble(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))))
            case 0xCB:
                out.putDouble(Double(bitPattern: try fixed(p, n, &i, 8, b)))
            case 0xCC ... 0xCF:
                let value = try fixed(p, n, &i, 1 &<< Int(b &- 0xCC), b)
                out.putInteger(negative: false, magnitude: value)
            case 0xD0 ... 0xD3:
                let width = 1 &<< Int(b &- 0xD0)
                let raw = try fixed(p, n, &i, width, b)
                // Sign-extend the big-endian two's complement of `width` bytes.
                let shift = UInt64(64 &- width &* 8)
                let value = Int64(bitPattern: raw &<< shift) &>> Int64(shift)
                out.putInteger(negative: value < 0, magnitude: value.magnitude)
            default:  // 0xC1
                throw CodecError(offset: i, reason: "byte 0xc1 is not a MessagePack value (the format never uses it)")
            }

            // A value is complete: what follows it in its container.
            while stack.depth > 0 {
                guard out.reserve(8) else { throw tooLarge(i, out) }
                let top = stack.top
                switch top.pointee.kind {
                case array, object:
                    top.pointee.remaining &-= 1
                    if top.pointee.remaining > 0 {
                        out.put(0x2C)
                        atKey = top.pointee.kind == object
                        continue next
                    }
                    out.put(top.pointee.kind == array ? 0x5D : 0x7D)
                case pairKey:
                    out.put(0x2C)
                    top.pointee.kind = pairValue
                    continue next
                default:  // pairValue
                    top.pointee.remaining &-= 1
                    if top.pointee.remaining > 0 {
                        out.put("],[")
                        top.pointee.kind = pairKey
                        continue next
                    }
                    out.put("]]}")
                }
                stack.pop()
            }
            if i != n {
                throw CodecError(offset: i, reason: "\(n &- i) byte(s) after the value (a message holds one value)")
            }
            guard out.count <= out.limit else { throw tooLarge(i, out) }
            return clean
        }
    }

    /// A map key that can be an object's: a str that is not an envelope key
    /// and is all there. Returns its length with `i` at its first byte, or
    /// nil (and `i` unchanged) for anything else, which the caller reads as
    /// a value of its own.
    @inline(__always)
    private static func stringKey(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Int? {
        guard i < n else { return nil }
        let b = p[i]
        var length: Int
        var at = i &+ 1
        if b & 0xE0 == 0xA0 {
            length = Int(b & 0x1F)
        } else if b == 0xD9, n &- i > 1 {
            length = Int(p[i &+ 1])
            at = i &+ 2
        } else if b == 0xDA, n &- i > 2 {
            length = Int(UnsafeRawPointer(p + (i &+ 1)).loadUnaligned(as: UInt16.self).bigEndian)
            at = i &+ 3
        } else if b == 0xDB, n &- i > 4 {
            length = Int(UnsafeRawPointer(p + (i &+ 1)).loadUnaligned(as: UInt32.self).bigEndian)
            at = i &+ 5
        } else {
            return nil
        }
        guard length <= n &- at, !EnvelopeKey.isReserved(p + at, length) else { return nil }
        i = at
        return length
    }

    /// The length or count in the header whose type byte is at `i`: in the
    /// type byte's low bits (`width` 0: 4 bits for fixmap and fixarray, 5
    /// for fixstr) or in the `width` big-endian bytes after it. `i` ends
    /// after the header.
    @inline(__always)
    private static func header(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ width: Int, _ type: UInt8,
                               what: String) throws(CodecError) -> Int {
        if width == 0 {
            i &+= 1
            return Int(type & (type >= 0xA0 ? 0x1F : 0x0F))
        }
        return Int(try fixed(p, n, &i, width, type))
    }

    /// The `width` big-endian bytes after the type byte at `i`; `i` ends after them.
    @inline(__always)
    private static func fixed(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ width: Int,
                              _ type: UInt8) throws(CodecError) -> UInt64 {
        guard width < n &- i else { throw truncated(i, type, width, n) }
        let at = UnsafeRawPointer(p + (i &+ 1))
        let value: UInt64
        switch width {
        case 1: value = UInt64(at.load(as: UInt8.self))
        case 2: value = UInt64(at.loadUnaligned(as: UInt16.self).bigEndian)
        case 4: value = UInt64(at.loadUnaligned(as: UInt32.self).bigEndian)
        default: value = at.loadUnaligned(as: UInt64.self).bigEndian
        }
        i &+= 1 &+ width
        return value
    }

    /// An extension type: `{"$ext":N,"$bytes":"<base64>"}` (N the signed
    /// type byte; -1, the timestamp, is one like any other).
    private static func ext(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ b: UInt8,
                            _ out: inout OutputBuffer) throws(CodecError) {
        let start = i
        var length: Int
        if b >= 0xD4 {
            length = 1 &<< Int(b &- 0xD4)
            i &+= 1
        } else {
            length = Int(try fixed(p, n, &i, b == 0xC7 ? 1 : b == 0xC8 ? 2 : 4, b))
        }
        guard i < n else { throw CodecError(offset: n, reason: "message ends inside an ext header at byte \(start)") }
        let type = Int8(bitPattern: p[i])
        i &+= 1
        guard length <= n &- i else { throw announced(length, "ext", "bytes", start, n &- i) }
        out.put(#"{"$ext":"#)
        out.putInteger(negative: type < 0, magnitude: UInt64(type.magnitude))
        out.put(#","$bytes":"#)
        guard out.putBytes(p + i, length, bare: true) else { throw tooLarge(i, out) }
        guard out.reserve(1) else { throw tooLarge(i, out) }
        out.put(0x7D)
        i &+= length
    }

    // MARK: errors

    // (Out of line: the loop that reads values stays small.)
    @inline(never)
    private static func truncated(_ at: Int, _ type: UInt8, _ width: Int, _ n: Int) -> CodecError {
        CodecError(offset: n, reason: "message ends inside the header at byte \(at) (type 0x\(hex(type)), \(width) more bytes needed)")
    }

    /// A length or count that the rest of the message cannot hold.
    @inline(never)
    private static func announced(_ count: Int, _ what: String, _ unit: String, _ head: Int, _ left: Int) -> CodecError {
        CodecError(offset: head, reason: "\(article(what)) \(what) of \(count) \(unit) is announced, but only \(left) byte(s) follow")
    }

    static func article(_ word: String) -> String {
        word.first.map { "aeio".contains($0) } == true ? "an" : "a"
    }

    static func hex(_ b: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(b >> 4)], digits[Int(b & 15)]])
    }
}

/// The errors every converter raises the same way.
@inline(never)
func tooLarge(_ at: Int, _ out: OutputBuffer) -> CodecError {
    CodecError(offset: at, reason: "its JSON would be longer than \(out.limit) bytes")
}

@inline(never)
func tooDeep(_ at: Int) -> CodecError {
    CodecError(offset: at, reason: "nesting deeper than \(CodecLimits.depth)")
}

/// `putString`'s answer `bad` for the string whose text starts at `at`.
@inline(never)
func stringError(_ bad: Int, at: Int, _ out: OutputBuffer) -> CodecError {
    bad == -2 ? tooLarge(at, out) : CodecError(offset: at &+ bad, reason: "string is not valid UTF-8")
}
