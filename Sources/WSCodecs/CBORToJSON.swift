/// A CBOR data item (RFC 8949) as one JSON text (wspipe(1): BINARY
/// CODECS), in one pass with an explicit stack: integers (beyond ±2^53 as
/// `{"$int":"…"}`, as are the bignums of tags 2 and 3), floats of every
/// width (always with a fraction or an exponent), text strings, byte
/// strings as `{"$bytes":…}`, arrays, maps as objects or as
/// `{"$map":[[key,value],…]}`, other tags as `{"$tag":N,"value":…}`,
/// `undefined` as `{"$undefined":true}` and the other simple values as
/// `{"$simple":N}`. Strings, arrays and maps of indefinite length are
/// read as their definite equivalents.
///
/// Only well-formed items are read (RFC 8949 §5.3.1: reserved additional
/// information, a misplaced break, a chunk of another type, a two-byte
/// simple value below 32 are errors); every announced length and count is
/// checked against what is left before anything is written for it.
enum CBORToJSON {
    /// The frame kinds of `ContainerStack`.
    private static let array: UInt8 = 0
    private static let object: UInt8 = 1
    private static let pairKey: UInt8 = 2
    private static let pairValue: UInt8 = 3
    private static let tag: UInt8 = 4
    /// No container: the message's own data item.
    private static let message: UInt8 = 5

    /// Appends the JSON of the message `input` to `out`. `scratch` holds
    /// the chunks of a byte string of indefinite length.
    static func convert(_ input: UnsafeRawBufferPointer, into out: inout OutputBuffer, stack: inout ContainerStack,
                        marks: inout MapMarks, scratch: inout [UInt8]) throws(CodecError) {
        guard let base = input.baseAddress, input.count > 0 else {
            throw CodecError(offset: 0, reason: "empty message (CBOR has no empty data item)")
        }
        let p = base.assumingMemoryBound(to: UInt8.self)
        let start = out.count
        marks.reset()
        if try pass(p, input.count, &out, &stack, &marks, &scratch) { return }
        out.count = start
        if try pass(p, input.count, &out, &stack, &marks, &scratch) { return }
        throw CodecError(offset: 0, reason: "internal error: a map changed its form between passes")
    }

    /// One pass; false when a map was found that needs `$map` and was not
    /// marked yet (see `MessagePackToJSON.pass`, written the same way: the
    /// output position in a `JSONWriter`, the innermost container in
    /// `kind`, `remaining` and `index`, numbers by `JSONNumber`).
    private static func pass(_ p: UnsafePointer<UInt8>, _ n: Int, _ out: inout OutputBuffer,
                             _ stack: inout ContainerStack, _ marks: inout MapMarks,
                             _ scratch: inout [UInt8]) throws(CodecError) -> Bool {
        var i = 0
        var w = JSONWriter(out)
        var clean = true
        var maps = 0
        var atKey = false
        var kind = message
        /// Items (or entries) still to come in the innermost container; -1
        /// for one of indefinite length.
        var remaining = 0
        /// The pre-order number of the innermost map (its `MapMarks` bit).
        var index = 0
        stack.reset()

        next: while true {
            if atKey {
                atKey = false
                if let length = textKey(p, n, &i) {
                    let bad = w.string(p + i, length, readable: n &- i, &out)
                    if bad != -1 { throw stringError(bad, at: i, out) }
                    w.put(0x3A)
                    i &+= length
                } else if isChunkedKey(p, n, i) {
                    i &+= 1
                    w.sync(&out)
                    try chunkedText(p, n, &i, &out)
                    guard out.reserve(1) else { throw tooLarge(i, out) }
                    out.put(0x3A)
                    w = JSONWriter(out)
                } else {
                    marks.mark(index)
                    clean = false
                    kind = pairKey
                }
            }
            guard w.reserve(JSONNumber.room, &out) else { throw tooLarge(i, out) }
            guard i < n else { throw CodecError(offset: n, reason: "message ends where a data item was expected") }
            let start = i
            let b = p[i]
            let major = b &>> 5
            let info = b & 0x1F
            var argument: UInt64 = 0
            if info < 28 {
                argument = try self.argument(p, n, &i, info)
            } else if info == 31 && major >= 2 && major <= 5 {
                i &+= 1   // indefinite length
            } else if b == 0xFF {
                throw CodecError(offset: i, reason: "break (0xff) where a data item was expected")
            } else {
                throw CodecError(offset: i, reason: "reserved additional information \(info) in byte 0x\(MessagePackToJSON.hex(b))")
            }
            let indefinite = info == 31
            switch major {
            case 0:
                w.d = JSONNumber.unsigned(argument, at: w.d)
            case 1:
                w.d = JSONNumber.integer(negative: true, magnitude: argument, plusOne: true, at: w.d)
            case 2:
                w.sync(&out)
                if indefinite {
                    try chunkedBytes(p, n, &i, &out, &scratch)
                } else {
                    let length = try fits(argument, start, i, n, "byte string", "bytes")
                    guard out.putBytes(p + i, length) else { throw tooLarge(i, out) }
                    i &+= length
                }
                w = JSONWriter(out)
            case 3:
                if indefinite {
                    w.sync(&out)
                    try chunkedText(p, n, &i, &out)
                    w = JSONWriter(out)
                } else {
                    let length = try fits(argument, start, i, n, "text string", "bytes")
                    let bad = w.string(p + i, length, readable: n &- i, &out)
                    if bad != -1 { throw stringError(bad, at: i, out) }
                    i &+= length
                }
            case 4:
                let count = indefinite ? -1 : try fits(argument, start, i, n, "array", "items")
                if try isEmpty(p, n, &i, count) {
                    w.put(0x5B)
                    w.put(0x5D)
                } else {
                    guard stack.push(.init(remaining: remaining, kind: kind, index: index)) else { throw tooDeep(start) }
                    kind = array
                    remaining = count
                    w.put(0x5B)
                    continue next
                }
            case 5:
                let count = indefinite ? -1 : try fits(argument, start, i, n, "map", "entries", perItem: 2)
                if try isEmpty(p, n, &i, count) {
                    w.put(0x7B)
                    w.put(0x7D)
                    maps &+= 1
                } else {
                    let marked = marks.isMarked(maps)
                    guard stack.push(.init(remaining: remaining, kind: kind, index: index)) else { throw tooDeep(start) }
                    kind = marked ? pairKey : object
                    remaining = count
                    index = maps
                    maps &+= 1
                    if marked { w.d = JSONNumber.copy(#"{"$map":[["#, to: w.d) } else { w.put(0x7B); atKey = true }
                    continue next
                }
            case 6:
                if argument == 2 || argument == 3 {
                    w.sync(&out)
                    let read = try bignum(p, n, &i, negative: argument == 3, &out)
                    w = JSONWriter(out)
                    if read { break }
                }
                guard stack.push(.init(remaining: remaining, kind: kind, index: index)) else { throw tooDeep(start) }
                kind = tag
                remaining = 1
                w.d = JSONNumber.copy(#"{"$tag":"#, to: w.d)
                w.d = JSONNumber.decimal(argument, at: w.d)
                w.d = JSONNumber.copy(#","value":"#, to: w.d)
                continue next
            default:
                w.d = try simpleOrFloat(info, argument, start, at: w.d)
            }

            // A data item is complete: what follows it in its container.
            complete: while true {
                guard w.reserve(8, &out) else { throw tooLarge(i, out) }
                switch kind {
                case pairKey:
                    w.put(0x2C)
                    kind = pairValue
                    continue next
                case tag:
                    w.put(0x7D)
                case message:
                    break complete
                default:  // array, object, pairValue
                    // One more item (or entry) done: is there another?
                    var more: Bool
                    if remaining < 0 {
                        guard i < n else {
                            throw CodecError(offset: n, reason: "message ends inside a container of indefinite length")
                        }
                        more = p[i] != 0xFF
                        if !more { i &+= 1 }
                    } else {
                        remaining &-= 1
                        more = remaining > 0
                    }
                    if more {
                        if kind == pairValue {
                            w.put(JSONWriter.nextPair, 3)
                            kind = pairKey
                        } else {
                            w.put(0x2C)
                            atKey = kind == object
                        }
                        continue next
                    }
                    switch kind {
                    case array: w.put(0x5D)
                    case pairValue: w.put(JSONWriter.lastPair, 3)
                    default: w.put(0x7D)   // object
                    }
                }
                let outer = stack.popFrame()
                kind = outer.kind
                remaining = outer.remaining
                index = outer.index
            }
            if i != n {
                throw CodecError(offset: i, reason: "\(n &- i) byte(s) after the data item (a message holds one)")
            }
            guard w.count(out) <= out.limit else { throw tooLarge(i, out) }
            w.sync(&out)
            return clean
        }
    }

    /// The argument of the head at `i` whose additional information is
    /// `info` (< 28): in it, or in the 1, 2, 4 or 8 bytes after it. `i`
    /// ends after the head.
    @inline(__always)
    private static func argument(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ info: UInt8) throws(CodecError) -> UInt64 {
        if info < 24 {
            i &+= 1
            return UInt64(info)
        }
        let width = 1 &<< Int(info &- 24)
        guard width < n &- i else { throw cutHead(i, width, n) }
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

    @inline(never)
    private static func cutHead(_ i: Int, _ width: Int, _ n: Int) -> CodecError {
        CodecError(offset: n, reason: "message ends inside the head at byte \(i) (\(width) more bytes needed)")
    }

    /// An announced length or count that the rest of the message can hold
    /// (each item takes `perItem` bytes at least), as an Int.
    @inline(__always)
    private static func fits(_ value: UInt64, _ head: Int, _ i: Int, _ n: Int, _ what: String, _ unit: String,
                             perItem: UInt64 = 1) throws(CodecError) -> Int {
        let left = UInt64(n &- i)
        guard value <= left / perItem else { throw announced(value, what, unit, head, left) }
        return Int(value)
    }

    // (Out of line: the loop that reads data items stays small.)
    @inline(never)
    private static func announced(_ value: UInt64, _ what: String, _ unit: String, _ head: Int, _ left: UInt64) -> CodecError {
        CodecError(offset: head, reason: "\(MessagePackToJSON.article(what)) \(what) of \(value) \(unit) is announced, but only \(left) byte(s) follow")
    }

    /// A container of `count` items (-1: indefinite) that has none: an
    /// indefinite one whose break comes first is read past it.
    @inline(__always)
    private static func isEmpty(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, _ count: Int) throws(CodecError) -> Bool {
        if count >= 0 { return count == 0 }
        guard i < n else { throw CodecError(offset: n, reason: "message ends inside a container of indefinite length") }
        if p[i] == 0xFF {
            i &+= 1
            return true
        }
        return false
    }

    /// A map key that can be an object's: a definite text string, all
    /// there, not an envelope key. Its length with `i` at its first byte,
    /// or nil (`i` unchanged).
    @inline(__always)
    private static func textKey(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int) -> Int? {
        guard i < n else { return nil }
        let b = p[i]
        guard b &>> 5 == 3 else { return nil }
        var at = i
        let info = b & 0x1F
        guard info < 28, let length = try? argument(p, n, &at, info), length <= UInt64(n &- at),
              !EnvelopeKey.isReserved(p + at, Int(length)) else { return nil }
        i = at
        return Int(length)
    }

    /// A text string of indefinite length at `i` whose chunks are all
    /// there and well-formed (their UTF-8 is checked as they are written),
    /// and which is no envelope key: it can be an object's key.
    private static func isChunkedKey(_ p: UnsafePointer<UInt8>, _ n: Int, _ start: Int) -> Bool {
        guard start < n, p[start] == 0x7F else { return false }
        var i = start &+ 1
        var key = (UInt64(0), UInt64(0))   // the first 16 bytes, enough for any envelope key
        var length = 0
        while i < n, p[i] != 0xFF {
            guard p[i] &>> 5 == 3, p[i] & 0x1F < 28, let size = try? argument(p, n, &i, p[i] & 0x1F),
                  size <= UInt64(n &- i) else { return false }
            for k in 0 ..< Int(size) where length &+ k < 16 {
                let shift = UInt64((length &+ k) & 7) &* 8
                if length &+ k < 8 { key.0 |= UInt64(p[i &+ k]) &<< shift } else { key.1 |= UInt64(p[i &+ k]) &<< shift }
            }
            length &+= Int(size)
            i &+= Int(size)
        }
        guard i < n else { return false }
        return withUnsafeBytes(of: &key) { bytes in
            !EnvelopeKey.isReserved(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), length)
        }
    }

    /// The chunks of a text string of indefinite length, up to its break:
    /// each a definite text string, valid UTF-8 on its own (RFC 8949 §3.2.3).
    private static func chunkedText(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int,
                                    _ out: inout OutputBuffer) throws(CodecError) {
        out.put(0x22)
        while true {
            guard i < n else { throw CodecError(offset: n, reason: "message ends inside a text string of indefinite length") }
            if p[i] == 0xFF { break }
            let length = try chunk(p, n, &i, major: 3)
            let bad = out.putString(p + i, length, readable: n &- i, quoted: false)
            if bad != -1 { throw stringError(bad, at: i, out) }
            i &+= length
        }
        i &+= 1
        guard out.reserve(1) else { throw tooLarge(i, out) }
        out.put(0x22)
    }

    /// The chunks of a byte string of indefinite length, joined, as `$bytes`.
    private static func chunkedBytes(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int,
                                     _ out: inout OutputBuffer, _ scratch: inout [UInt8]) throws(CodecError) {
        scratch.removeAll(keepingCapacity: true)
        while true {
            guard i < n else { throw CodecError(offset: n, reason: "message ends inside a byte string of indefinite length") }
            if p[i] == 0xFF { break }
            let length = try chunk(p, n, &i, major: 2)
            scratch.append(contentsOf: UnsafeBufferPointer(start: p + i, count: length))
            i &+= length
        }
        i &+= 1
        let written = scratch.withUnsafeBufferPointer { bytes in
            out.putBytes(bytes.baseAddress ?? p, bytes.count)
        }
        guard written else { throw tooLarge(i, out) }
    }

    /// The head of one chunk of a string of indefinite length: a definite
    /// string of the same major type. Its length, with `i` at its first byte.
    private static func chunk(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, major: UInt8) throws(CodecError) -> Int {
        let head = i
        let b = p[i]
        guard b &>> 5 == major, b & 0x1F < 28 else {
            throw CodecError(offset: i, reason: "a chunk of a \(major == 3 ? "text" : "byte") string of indefinite length must be a definite \(major == 3 ? "text" : "byte") string")
        }
        let length = try argument(p, n, &i, b & 0x1F)
        return try fits(length, head, i, n, major == 3 ? "text string" : "byte string", "bytes")
    }

    /// Tag 2 or 3 on a definite byte string of at most
    /// `CodecLimits.bigIntBytes`: the integer (RFC 8949 §3.4.3), as a
    /// number or `{"$int":"…"}`. False (nothing read) for anything else,
    /// which is written as a tag like any other.
    private static func bignum(_ p: UnsafePointer<UInt8>, _ n: Int, _ i: inout Int, negative: Bool,
                               _ out: inout OutputBuffer) throws(CodecError) -> Bool {
        guard i < n, p[i] &>> 5 == 2, p[i] & 0x1F < 28 else { return false }
        var at = i
        let length = try argument(p, n, &at, p[i] & 0x1F)
        guard length <= UInt64(CodecLimits.bigIntBytes), length <= UInt64(n &- at) else { return false }
        var first = at
        let end = at &+ Int(length)
        while first < end && p[first] == 0 { first &+= 1 }
        if end &- first <= 8 {
            var value: UInt64 = 0
            for k in first ..< end { value = value << 8 | UInt64(p[k]) }
            out.putInteger(negative: negative, magnitude: value, plusOne: negative)
        } else {
            let digits = BigIntegerText.decimal(bigEndian: p + first, end &- first, plusOne: negative)
            guard out.reserve(digits.count &+ 16) else { throw tooLarge(i, out) }
            out.put(#"{"$int":""#)
            if negative { out.put(0x2D) }
            digits.withUnsafeBufferPointer { out.put($0.baseAddress!, $0.count) }
            out.put(#""}"#)
        }
        i = end
        return true
    }

    /// Major type 7: false, true, null, undefined, other simple values,
    /// and floats of 16, 32 and 64 bits, written at `d` (within the room
    /// of a number); returns the pointer after them.
    @inline(__always)
    private static func simpleOrFloat(_ info: UInt8, _ argument: UInt64, _ head: Int,
                                      at d: UnsafeMutablePointer<UInt8>) throws(CodecError) -> UnsafeMutablePointer<UInt8> {
        switch info {
        case 20: return JSONNumber.copy("false", to: d)
        case 21: return JSONNumber.copy("true", to: d)
        case 22: return JSONNumber.copy("null", to: d)
        case 23: return JSONNumber.copy(#"{"$undefined":true}"#, to: d)
        case 0 ..< 20, 24:
            // RFC 8949 §3.3: a simple value below 32 takes one byte.
            if info == 24 && argument < 32 {
                throw CodecError(offset: head, reason: "simple value \(argument) in two bytes is not well-formed")
            }
            let e = JSONNumber.decimal(argument, at: JSONNumber.copy(#"{"$simple":"#, to: d))
            e.pointee = 0x7D
            return e + 1
        case 25: return JSONNumber.double(halfToDouble(UInt16(truncatingIfNeeded: argument)), at: d)
        case 26: return JSONNumber.double(Double(Float(bitPattern: UInt32(truncatingIfNeeded: argument))), at: d)
        default: return JSONNumber.double(Double(bitPattern: argument), at: d)   // 27
        }
    }

    /// An IEEE 754 binary16 (RFC 8949 Appendix D) as a double.
    static func halfToDouble(_ half: UInt16) -> Double {
        let exponent = Int(half >> 10) & 0x1F
        let mantissa = Double(half & 0x3FF)
        let value: Double
        if exponent == 0 {
            value = mantissa * 0x1p-24
        } else if exponent == 31 {
            value = mantissa == 0 ? .infinity : .nan
        } else {
            value = (1024 + mantissa) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
        }
        return half & 0x8000 != 0 ? -value : value
    }
}
