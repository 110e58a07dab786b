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
    /// No container: the message's own value.
    private static let message: UInt8 = 4

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
    ///
    /// Written for few instructions per value: the input position `q`,
    /// the output position (`JSONWriter`) and the innermost container
    /// (`kind`, `remaining`) are local variables that stay in registers;
    /// `stack` holds the containers around it and is touched only when one
    /// opens or closes; numbers are written by functions of the output
    /// pointer (`JSONNumber`), long strings, byte strings and extension
    /// types out of line. `p` is only for the offsets of errors.
    private static func pass(_ p: UnsafePointer<UInt8>, _ n: Int, _ out: inout OutputBuffer,
                             _ stack: inout ContainerStack, _ marks: inout MapMarks) throws(CodecError) -> Bool {
        let end = p + n
        var q = p
        var w = JSONWriter(out)
        var clean = true
        var maps = 0
        var atKey = false
        var kind = message
        var remaining = 0
        /// The pre-order number of the innermost map (its `MapMarks` bit).
        var index = 0
        stack.reset()

        next: while true {
            if atKey {
                atKey = false
                if let length = stringKey(&q, end) {
                    let bad = w.string(q, length, readable: end - q, &out)
                    if bad != -1 { throw stringError(bad, at: q - p, out) }
                    w.put(0x3A)
                    q += length
                } else {
                    // Not a string, or an envelope key: this map is a `$map`.
                    marks.mark(index)
                    clean = false
                    kind = pairKey
                }
            }
            guard w.reserve(JSONNumber.room, &out) else { throw tooLarge(q - p, out) }
            guard q < end else { throw CodecError(offset: n, reason: "message ends where a value was expected") }
            let head = q
            let b = q.pointee
            // Numbers first, apart: a dense range the switch below would
            // reach only after a dozen compares.
            if b &- 0xCA < 10 {
                switch b {
                case 0xCA:
                    let bits = try fixed(&q, end, 4, b, p)
                    w.d = JSONNumber.double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: bits))), at: w.d)
                case 0xCB:
                    w.d = JSONNumber.double(Double(bitPattern: try fixed(&q, end, 8, b, p)), at: w.d)
                case 0xCC ... 0xCF:
                    let value = try fixed(&q, end, 1 &<< Int(b &- 0xCC), b, p)
                    w.d = JSONNumber.unsigned(value, at: w.d)
                default:  // 0xD0 ... 0xD3
                    let width = 1 &<< Int(b &- 0xD0)
                    let raw = try fixed(&q, end, width, b, p)
                    // Sign-extend the big-endian two's complement of `width` bytes.
                    let shift = UInt64(64 &- width &* 8)
                    let value = Int64(bitPattern: raw &<< shift) &>> Int64(shift)
                    w.d = JSONNumber.integer(negative: value < 0, magnitude: value.magnitude, at: w.d)
                }
            } else {
                switch b {
                case 0x00 ... 0x7F:
                    w.smallDecimal(Int(b))
                    q += 1
                case 0xE0 ... 0xFF:
                    w.put(0x2D)
                    w.smallDecimal(0x100 &- Int(b))
                    q += 1
                case 0xA0 ... 0xBF, 0xD9, 0xDA, 0xDB:
                    let length = try header(&q, end, b <= 0xBF ? 0 : b == 0xD9 ? 1 : b == 0xDA ? 2 : 4, b, p)
                    guard length <= end - q else { throw announced(length, "string", "bytes", head - p, end - q) }
                    let bad = w.string(q, length, readable: end - q, &out)
                    if bad != -1 { throw stringError(bad, at: q - p, out) }
                    q += length
                case 0x80 ... 0x8F, 0xDE, 0xDF:
                    let count = try header(&q, end, b <= 0x8F ? 0 : b == 0xDE ? 2 : 4, b, p)
                    if count == 0 {
                        w.put(0x7B)
                        w.put(0x7D)
                        maps &+= 1
                    } else {
                        guard count <= (end - q) / 2 else { throw announced(count, "map", "entries", head - p, end - q) }
                        let marked = marks.isMarked(maps)
                        guard stack.push(.init(remaining: remaining, kind: kind, index: index)) else { throw tooDeep(q - p) }
                        kind = marked ? pairKey : object
                        remaining = count
                        index = maps
                        maps &+= 1
                        if marked { w.d = JSONNumber.copy(#"{"$map":[["#, to: w.d) } else { w.put(0x7B); atKey = true }
                        continue next
                    }
                case 0x90 ... 0x9F, 0xDC, 0xDD:
                    let count = try header(&q, end, b <= 0x9F ? 0 : b == 0xDC ? 2 : 4, b, p)
                    if count == 0 {
                        w.put(0x5B)
                        w.put(0x5D)
                    } else {
                        guard count <= end - q else { throw announced(count, "array", "items", head - p, end - q) }
                        guard stack.push(.init(remaining: remaining, kind: kind, index: index)) else { throw tooDeep(q - p) }
                        kind = array
                        remaining = count
                        w.put(0x5B)
                        continue next
                    }
                case 0xC0:
                    w.put(JSONWriter.nullText, 4)
                    q += 1
                case 0xC2:
                    w.put(JSONWriter.falseText, 5)
                    q += 1
                case 0xC3:
                    w.put(JSONWriter.trueText, 4)
                    q += 1
                case 0xC4, 0xC5, 0xC6:
                    let length = try header(&q, end, b == 0xC4 ? 1 : b == 0xC5 ? 2 : 4, b, p)
                    guard length <= end - q else { throw announced(length, "byte string", "bytes", head - p, end - q) }
                    w.sync(&out)
                    guard out.putBytes(q, length) else { throw tooLarge(q - p, out) }
                    w = JSONWriter(out)
                    q += length
                case 0xC7, 0xC8, 0xC9, 0xD4 ... 0xD8:
                    w.sync(&out)
                    var i = q - p
                    try ext(p, n, &i, b, &out)
                    w = JSONWriter(out)
                    q = p + i
                default:  // 0xC1 (the numbers, 0xca to 0xd3, are read above)
                    throw CodecError(offset: q - p, reason: "byte 0xc1 is not a MessagePack value (the format never uses it)")
                }
            }

            // A value is complete: what follows it in its container. Every
            // value leaves room for 8 bytes after it (see `JSONWriter`), so
            // only closing a second container reserves.
            complete: while true {
                switch kind {
                case object:
                    remaining &-= 1
                    if remaining > 0 {
                        w.put(0x2C)
                        atKey = true
                        continue next
                    }
                    w.put(0x7D)
                case array:
                    remaining &-= 1
                    if remaining > 0 {
                        w.put(0x2C)
                        continue next
                    }
                    w.put(0x5D)
                case pairKey:
                    w.put(0x2C)
                    kind = pairValue
                    continue next
                case pairValue:
                    remaining &-= 1
                    if remaining > 0 {
                        w.put(JSONWriter.nextPair, 3)
                        kind = pairKey
                        continue next
                    }
                    w.put(JSONWriter.lastPair, 3)
                default:  // message
                    break complete
                }
                let outer = stack.popFrame()
                kind = outer.kind
                remaining = outer.remaining
                index = outer.index
                guard w.reserve(8, &out) else { throw tooLarge(q - p, out) }
            }
            if q != end {
                throw CodecError(offset: q - p, reason: "\(end - q) byte(s) after the value (a message holds one value)")
            }
            guard w.count(out) <= out.limit else { throw tooLarge(q - p, out) }
            w.sync(&out)
            return clean
        }
    }

    /// A map key that can be an object's: a str that is not an envelope key
    /// and is all there. Returns its length with `q` at its first byte, or
    /// nil (and `q` unchanged) for anything else, which the caller reads as
    /// a value of its own.
    @inline(__always)
    private static func stringKey(_ q: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>) -> Int? {
        guard q < end else { return nil }
        let b = q.pointee
        var length: Int
        var at = q + 1
        if b & 0xE0 == 0xA0 {
            length = Int(b & 0x1F)
        } else if b == 0xD9, end - q > 1 {
            length = Int(q[1])
            at = q + 2
        } else if b == 0xDA, end - q > 2 {
            length = Int(UnsafeRawPointer(q + 1).loadUnaligned(as: UInt16.self).bigEndian)
            at = q + 3
        } else if b == 0xDB, end - q > 4 {
            length = Int(UnsafeRawPointer(q + 1).loadUnaligned(as: UInt32.self).bigEndian)
            at = q + 5
        } else {
            return nil
        }
        guard length <= end - at, !EnvelopeKey.isReserved(at, length) else { return nil }
        q = at
        return length
    }

    /// The length or count in the header whose type byte is at `q`: in the
    /// type byte's low bits (`width` 0: 4 bits for fixmap and fixarray, 5
    /// for fixstr) or in the `width` big-endian bytes after it. `q` ends
    /// after the header. (`p`, the message's start, for the error.)
    @inline(__always)
    private static func header(_ q: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ width: Int,
                               _ type: UInt8, _ p: UnsafePointer<UInt8>) throws(CodecError) -> Int {
        if width == 0 {
            q += 1
            return Int(type & (type >= 0xA0 ? 0x1F : 0x0F))
        }
        return Int(try fixed(&q, end, width, type, p))
    }

    /// The `width` big-endian bytes after the type byte at `q`; `q` ends after them.
    @inline(__always)
    private static func fixed(_ q: inout UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, _ width: Int,
                              _ type: UInt8, _ p: UnsafePointer<UInt8>) throws(CodecError) -> UInt64 {
        guard width < end - q else { throw truncated(q - p, type, width, end - p) }
        let at = UnsafeRawPointer(q + 1)
        let value: UInt64
        switch width {
        case 1: value = UInt64(at.load(as: UInt8.self))
        case 2: value = UInt64(at.loadUnaligned(as: UInt16.self).bigEndian)
        case 4: value = UInt64(at.loadUnaligned(as: UInt32.self).bigEndian)
        default: value = at.loadUnaligned(as: UInt64.self).bigEndian
        }
        q += 1 &+ width
        return value
    }

    /// An extension type: `{"$ext":N,"$bytes":"<base64>"}` (N the signed
    /// type byte; -1, the timestamp, is one like any other), its type byte
    /// at `i`, written to the buffer itself (within a reservation of
    /// `JSONNumber.room` for the envelope).
    private static func ext(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ b: UInt8,
                            _ out: inout OutputBuffer) throws(CodecError) {
        let start = i
        var q = p + i
        var length: Int
        if b >= 0xD4 {
            length = 1 &<< Int(b &- 0xD4)
            q += 1
        } else {
            length = Int(try fixed(&q, p + n, b == 0xC7 ? 1 : b == 0xC8 ? 2 : 4, b, p))
        }
        i = q - p
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
