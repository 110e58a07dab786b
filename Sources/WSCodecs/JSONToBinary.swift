/// A JSON text (RFC 8259) as one value of a binary format (wspipe(1):
/// BINARY CODECS): objects become maps, arrays arrays, strings strings,
/// integers (a number without fraction or exponent) the format's integers,
/// other numbers 64-bit floats; and the envelopes stand for what JSON
/// lacks: `{"$bytes":…}`, `{"$ext":N,"$bytes":…}`, `{"$tag":N,"value":…}`,
/// `{"$map":[[key,value],…]}`, `{"$float":"NaN"}`, `{"$undefined":true}`,
/// `{"$int":"…"}`, `{"$simple":N}`. An object with one of those keys and
/// anything else is refused, as is what the format cannot hold, with the
/// byte where it was found.
///
/// One pass with an explicit stack. A container's count comes before its
/// items in both formats: its head gets a placeholder, and a last pass
/// writes the heads and closes the gaps (`Placeholder`), so the work stays
/// linear however deep the nesting.
enum JSONToBinary<Emit: BinaryEmitter> {
    /// The frame kinds of `ContainerStack`.
    private static var array: UInt8 { 0 }
    private static var object: UInt8 { 1 }
    /// The array of pairs of a `$map`.
    private static var pairs: UInt8 { 2 }
    /// One `[key, value]` pair: `remaining` 2 before the key, 1 before the value.
    private static var pair: UInt8 { 3 }
    /// A `$tag` envelope, its value being read.
    private static var tag: UInt8 { 4 }

    struct Placeholder {
        var position: Int
        var count: Int
        var map: Bool
    }

    /// Appends the encoding of `input` to `out`. `scratch` holds an
    /// escaped envelope key while it is compared.
    static func convert(_ input: UnsafeRawBufferPointer, into out: inout OutputBuffer, stack: inout ContainerStack,
                        heads: inout [Placeholder]) throws(CodecError) {
        guard let base = input.baseAddress, input.count > 0 else {
            throw CodecError(offset: 0, reason: "empty input")
        }
        let p = base.assumingMemoryBound(to: UInt8.self)
        heads.removeAll(keepingCapacity: true)
        let start = out.count
        var reader = Reader(p: p, n: input.count)
        try encode(&reader, &out, &stack, &heads)
        if !heads.isEmpty { closeGaps(&out, heads, from: start) }
    }

    private static func encode(_ r: inout Reader, _ out: inout OutputBuffer, _ stack: inout ContainerStack,
                               _ heads: inout [Placeholder]) throws(CodecError) {
        stack.reset()
        next: while true {
            r.skipBlanks()
            guard r.i < r.n else { throw r.error("input ends where a value was expected") }
            guard out.reserve(Emit.maxHead &+ Emit.placeholder) else { throw tooLarge(r.i, out) }
            let start = r.i
            switch r.p[r.i] {
            case 0x7B:  // '{'
                r.i &+= 1
                r.skipBlanks()
                if r.peek == 0x7D {
                    r.i &+= 1
                    _ = Emit.containerHead(map: true, count: 0, at: out.base + out.count)
                    out.count &+= 1
                    break
                }
                let key = try r.string(what: "a string key or '}'")
                if let kind = try r.envelopeKind(key) {
                    if try envelope(kind, opening: start, &r, &out, &stack, &heads) { continue next }
                    break
                }
                try open(map: true, &out, &stack, &heads, at: start)
                try emitString(key, &r, &out)
                try r.expect(0x3A, "':' after the key")
                continue next
            case 0x5B:  // '['
                r.i &+= 1
                r.skipBlanks()
                if r.peek == 0x5D {
                    r.i &+= 1
                    _ = Emit.containerHead(map: false, count: 0, at: out.base + out.count)
                    out.count &+= 1
                    break
                }
                try open(map: false, &out, &stack, &heads, at: start)
                continue next
            case 0x22:  // '"'
                let text = try r.string(what: "a string")
                try emitString(text, &r, &out)
            case 0x74:  // true
                try r.literal("true")
                Emit.bool(true, &out)
            case 0x66:
                try r.literal("false")
                Emit.bool(false, &out)
            case 0x6E:
                try r.literal("null")
                Emit.null(&out)
            case 0x2D, 0x30 ... 0x39:
                try number(&r, &out)
            default:
                throw r.error("expected a value")
            }

            // A value is complete: what follows it in its container.
            while stack.depth > 0 {
                let top = stack.top
                r.skipBlanks()
                let c = r.peek
                switch top.pointee.kind {
                case array, object, pairs:
                    heads[top.pointee.index].count &+= 1
                    let map = top.pointee.kind != array
                    if c == 0x2C {
                        r.i &+= 1
                        if top.pointee.kind == object {
                            r.skipBlanks()
                            let key = try r.string(what: "a string key")
                            if try r.envelopeKind(key) != nil {
                                throw CodecError(offset: key.start &- 1, reason: "\(r.text(key)) is an envelope key: an object with it holds nothing else (a map with such a key is written {\"$map\":[[key,value],…]})")
                            }
                            guard out.reserve(Emit.maxHead) else { throw tooLarge(r.i, out) }
                            try emitString(key, &r, &out)
                            try r.expect(0x3A, "':' after the key")
                        } else if top.pointee.kind == pairs {
                            try openPair(&r, &stack)
                        }
                        continue next
                    }
                    guard c == (map && top.pointee.kind == object ? 0x7D : 0x5D) else {
                        throw r.error(top.pointee.kind == object ? "expected ',' or '}' after an object member"
                                      : top.pointee.kind == pairs ? "expected ',' or ']' after a [key, value] pair of $map"
                                      : "expected ',' or ']' in an array")
                    }
                    r.i &+= 1
                    if top.pointee.kind == pairs {
                        // The end of the $map envelope.
                        try r.expect(0x7D, "'}' after the $map's pairs ($map holds nothing else)")
                    }
                case pair:
                    top.pointee.remaining &-= 1
                    if top.pointee.remaining == 1 {
                        try r.expect(0x2C, "',' after the key of a [key, value] pair of $map")
                        continue next
                    }
                    try r.expect(0x5D, "']' after the value: a pair of $map holds a key and a value")
                default:  // tag
                    try r.expect(0x7D, "'}' after the value of $tag (its envelope holds $tag and value)")
                }
                stack.pop()
            }
            r.skipBlanks()
            if r.i != r.n { throw r.error("trailing characters after the JSON value") }
            return
        }
    }

    /// Opens an array or a map: its head is a placeholder until its count is known.
    @inline(__always)
    private static func open(map: Bool, _ out: inout OutputBuffer, _ stack: inout ContainerStack,
                             _ heads: inout [Placeholder], at offset: Int) throws(CodecError) {
        guard stack.push(.init(remaining: 0, kind: map ? object : array, index: heads.count)) else {
            throw tooDeep(offset)
        }
        heads.append(Placeholder(position: out.count, count: 0, map: map))
        out.count &+= Emit.placeholder
    }

    /// The `[` of a pair of `$map`.
    private static func openPair(_ r: inout Reader, _ stack: inout ContainerStack) throws(CodecError) {
        let at = r.i
        try r.expect(0x5B, "a [key, value] pair in $map")
        guard stack.push(.init(remaining: 2, kind: pair, index: 0)) else { throw tooDeep(at) }
    }

    /// An object whose first key is an envelope key (`kind`, the key read):
    /// the value it stands for. True when a value inside it is still to be
    /// read (`$tag`'s value, `$map`'s pairs), with its frame pushed.
    private static func envelope(_ kind: EnvelopeKey.Kind, opening: Int, _ r: inout Reader, _ out: inout OutputBuffer,
                                 _ stack: inout ContainerStack, _ heads: inout [Placeholder]) throws(CodecError) -> Bool {
        try r.expect(0x3A, "':' after the key")
        switch kind {
        case .bytes, .ext:
            var type: Int8?
            var data: Reader.Token
            if kind == .ext {
                type = try r.extType()
                try r.expect(0x2C, "',' then \"$bytes\": $ext goes with $bytes")
                let key = try r.string(what: "\"$bytes\"")
                guard try r.envelopeKind(key) == .bytes else {
                    throw CodecError(offset: key.start &- 1, reason: "expected \"$bytes\": $ext goes with $bytes")
                }
                try r.expect(0x3A, "':' after the key")
                data = try r.string(what: "a base64 string")
            } else {
                data = try r.string(what: "a base64 string")
                r.skipBlanks()
                if r.peek == 0x2C {
                    r.i &+= 1
                    let key = try r.string(what: "\"$ext\" or '}'")
                    guard try r.envelopeKind(key) == .ext else {
                        throw CodecError(offset: key.start &- 1, reason: "$bytes goes alone, or with $ext")
                    }
                    try r.expect(0x3A, "':' after the key")
                    type = try r.extType()
                }
            }
            try r.expect(0x7D, "'}': the envelope holds nothing else")
            try emitBytes(data, ext: type, &r, &out)
            return false
        case .tag:
            let number = try r.unsigned(what: "a tag number (an integer from 0 to 2^64-1)")
            try r.expect(0x2C, "',' then \"value\": $tag goes with value")
            let key = try r.string(what: "\"value\"")
            guard r.text(key) == "\"value\"" else {
                throw CodecError(offset: key.start &- 1, reason: "expected \"value\": $tag goes with value")
            }
            try r.expect(0x3A, "':' after the key")
            if let why = Emit.tagHead(number, &out) { throw CodecError(offset: opening, reason: why) }
            guard stack.push(.init(remaining: 1, kind: tag, index: 0)) else { throw tooDeep(opening) }
            return true
        case .map:
            r.skipBlanks()
            let at = r.i
            try r.expect(0x5B, "an array of [key, value] pairs")
            r.skipBlanks()
            if r.peek == 0x5D {
                r.i &+= 1
                try r.expect(0x7D, "'}' after the $map's pairs ($map holds nothing else)")
                _ = Emit.containerHead(map: true, count: 0, at: out.base + out.count)
                out.count &+= 1
                return false
            }
            guard stack.push(.init(remaining: 0, kind: pairs, index: heads.count)) else { throw tooDeep(at) }
            heads.append(Placeholder(position: out.count, count: 0, map: true))
            out.count &+= Emit.placeholder
            try openPair(&r, &stack)
            return true
        case .float:
            let token = try r.string(what: "\"NaN\", \"Infinity\" or \"-Infinity\"")
            let value: Double
            switch r.text(token) {
            case "\"NaN\"": value = .nan
            case "\"Infinity\"": value = .infinity
            case "\"-Infinity\"": value = -.infinity
            default: throw CodecError(offset: token.start, reason: "$float holds \"NaN\", \"Infinity\" or \"-Infinity\"")
            }
            try r.expect(0x7D, "'}': the envelope holds nothing else")
            Emit.double(value, &out)
            return false
        case .undefined:
            r.skipBlanks()
            try r.literal("true")
            try r.expect(0x7D, "'}': the envelope holds nothing else")
            if let why = Emit.undefined(&out) { throw CodecError(offset: opening, reason: why) }
            return false
        case .int:
            let token = try r.string(what: "a string of decimal digits")
            try r.expect(0x7D, "'}': the envelope holds nothing else")
            try integer(digitsOf: token, &r, &out)
            return false
        case .simple:
            let value = try r.unsigned(what: "a simple value (an integer from 0 to 255)")
            guard value <= 255 else { throw CodecError(offset: opening, reason: "a simple value is at most 255") }
            try r.expect(0x7D, "'}': the envelope holds nothing else")
            if let why = Emit.simple(UInt8(value), &out) { throw CodecError(offset: opening, reason: why) }
            return false
        case .text, .binary:
            // Plain keys inside a value (they are envelopes only as a whole line).
            preconditionFailure("not an envelope of a value")
        }
    }

    /// A string token's text with its head.
    private static func emitString(_ token: Reader.Token, _ r: inout Reader, _ out: inout OutputBuffer) throws(CodecError) {
        let length = try r.unescapedLength(token)
        guard out.reserve(length &+ Emit.maxHead) else { throw tooLarge(token.start, out) }
        Emit.stringHead(length, &out)
        if token.escaped {
            r.unescape(token, into: &out)
        } else {
            out.put(r.p + token.start, token.end &- token.start)
        }
    }

    /// `$bytes` (and `$ext`'s type): the base64 text decoded after its head.
    private static func emitBytes(_ token: Reader.Token, ext type: Int8?, _ r: inout Reader,
                                  _ out: inout OutputBuffer) throws(CodecError) {
        guard !token.escaped else {
            throw CodecError(offset: token.start, reason: "a $bytes string holds base64 only (no escapes)")
        }
        let length = Base64Text.decodedLength(r.p + token.start, token.end &- token.start)
        guard length >= 0 else {
            throw CodecError(offset: token.start &+ (-1 &- length), reason: "invalid base64 in $bytes")
        }
        guard out.reserve(length &+ Emit.maxHead &+ 1) else { throw tooLarge(token.start, out) }
        if let type {
            if let why = Emit.extHead(type: type, length: length, &out) { throw CodecError(offset: token.start, reason: why) }
        } else {
            Emit.bytesHead(length, &out)
        }
        out.count = Base64Text.decode(r.p + token.start, token.end &- token.start, into: out.base, at: out.count)
    }

    /// A number: an integer when it has no fraction and no exponent (of
    /// any size the format holds), otherwise a 64-bit float.
    private static func number(_ r: inout Reader, _ out: inout OutputBuffer) throws(CodecError) {
        let start = r.i
        let scan = try r.number()
        if scan.isInteger {
            let negative = r.p[start] == 0x2D
            let digits = Reader.Token(start: negative ? start &+ 1 : start, end: r.i, escaped: false)
            return try integer(negative: negative, digits: digits, at: start, &r, &out)
        }
        let value = scan.value ?? FloatText.parse(r.p + start, r.i &- start)
        guard value.isFinite else {
            throw CodecError(offset: start, reason: "number too large for a 64-bit float (write {\"$float\":\"Infinity\"} for infinity)")
        }
        Emit.double(value, &out)
    }

    /// `{"$int":"…"}`: an optional '-' and decimal digits, no leading zero.
    private static func integer(digitsOf token: Reader.Token, _ r: inout Reader, _ out: inout OutputBuffer) throws(CodecError) {
        var first = token.start
        let negative = first < token.end && r.p[first] == 0x2D
        if negative { first &+= 1 }
        var k = first
        while k < token.end && r.p[k] &- 0x30 < 10 { k &+= 1 }
        guard !token.escaped, k == token.end, first < k, r.p[first] != 0x30 || k == first &+ 1 else {
            throw CodecError(offset: token.start, reason: "$int holds an integer in decimal: an optional '-', then digits without a leading zero")
        }
        try integer(negative: negative, digits: .init(start: first, end: k, escaped: false), at: token.start, &r, &out)
    }

    private static func integer(negative: Bool, digits: Reader.Token, at offset: Int, _ r: inout Reader,
                                _ out: inout OutputBuffer) throws(CodecError) {
        var magnitude: UInt64 = 0
        var k = digits.start
        var overflow = false
        while k < digits.end {
            let (times, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times.addingReportingOverflow(UInt64(r.p[k] &- 0x30))
            if o1 || o2 { overflow = true; break }
            magnitude = sum
            k &+= 1
        }
        let why: String?
        if !overflow {
            why = Emit.integer(negative: negative, magnitude: magnitude, &out)
        } else {
            let count = digits.end &- digits.start
            guard count <= CodecLimits.bigIntDigits else {
                throw CodecError(offset: offset, reason: "integer longer than \(CodecLimits.bigIntDigits) digits")
            }
            why = Emit.bigInteger(negative: negative, digits: UnsafeBufferPointer(start: r.p + digits.start, count: count), &out)
        }
        if let why { throw CodecError(offset: offset, reason: why) }
    }

    /// Writes each container's head in place of its placeholder and moves
    /// what follows back over the room it did not need: one pass over the
    /// output, the placeholders in the order they were made (their order
    /// in the output).
    private static func closeGaps(_ out: inout OutputBuffer, _ heads: [Placeholder], from start: Int) {
        let base = out.base
        var write = heads[0].position
        var read = write
        for head in heads {
            let run = head.position &- read
            if run > 0 && write != read { (base + write).update(from: base + read, count: run) }
            write &+= run
            write &+= Emit.containerHead(map: head.map, count: head.count, at: base + write)
            read = head.position &+ Emit.placeholder
        }
        let rest = out.count &- read
        if rest > 0 && write != read { (base + write).update(from: base + read, count: rest) }
        out.count = write &+ rest
    }
}
