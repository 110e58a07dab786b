/// JSON without a tree: validate, compact and read key paths directly on the
/// received bytes (RFC 8259). Nothing here allocates on the valid path except
/// where the result itself is an array.
///
/// `validate` is the strict checker; the other entry points assume input that
/// `validate` accepted (they stay memory-safe on anything, but their results on
/// invalid JSON are unspecified).
public enum JSONScanner {
    /// RFC 8259 strict: one value, no trailing commas, no comments, no NaN,
    /// numbers per the grammar, strings with valid escapes and valid UTF-8, no raw
    /// control chars < 0x20 in strings, nesting limit 10000 (no recursion: an explicit stack).
    /// Hot path: scan string bodies quickly (skip runs of plain ASCII bytes).
    ///
    /// Empty input (or only whitespace) is `.invalid("empty input")`. Input that
    /// ends inside a value is `.incomplete("unexpected end of input")`.
    /// Inlined (in other modules too): every message takes it, and a call
    /// that returns the whole enum (with room for the error) costs more than
    /// the fast path's answer.
    @inlinable @inline(__always)
    public static func validate(_ json: UnsafeRawBufferPointer) -> JSONValidation {
        // (Empty input: the full scan says so.)
        guard let raw = json.baseAddress, json.count > 0 else { return validateFully(json) }
        // Almost every text is valid: the fast path says so; the full scan
        // runs only to say where and why a text is not.
        let quick = JSONFastPath.check(raw.assumingMemoryBound(to: UInt8.self), json.count)
        if quick >= 0 { return .valid(needsCompaction: quick == 1) }
        return validateFully(json)
    }

    /// `validate` for bytes whose `verdict` is known: what `quickCheck`
    /// answered for exactly these bytes (an incoming message carries it, see
    /// `Connection.textCheck`), or -1 when it was not asked or could not
    /// vouch, and the text is scanned.
    @inlinable @inline(__always)
    public static func validate(_ json: UnsafeRawBufferPointer, verdict: Int) -> JSONValidation {
        if verdict >= 0 { return .valid(needsCompaction: verdict == 1) }
        return validate(json)
    }

    /// The fast path's answer alone, for a caller that keeps it with the
    /// bytes: 0, valid; 1, valid and the whitespace outside strings holds a
    /// line break (needs compaction); -1, not known valid (`validate` says
    /// why). Valid JSON is valid UTF-8, so 0 or 1 vouches for that too.
    @inlinable
    public static func quickCheck(_ base: UnsafeRawPointer?, _ count: Int) -> Int {
        guard let base, count > 0 else { return -1 }
        return JSONFastPath.check(base.assumingMemoryBound(to: UInt8.self), count)
    }

    /// The full scan alone: the reference the fast path is tested against.
    @inline(never) @usableFromInline
    static func validateFully(_ json: UnsafeRawBufferPointer) -> JSONValidation {
        guard let raw = json.baseAddress, json.count > 0 else {
            return .invalid(JSONError(offset: 0, line: 1, column: 1, reason: "empty input"))
        }
        var failure = ScanFailure()
        let result = scan(raw.assumingMemoryBound(to: UInt8.self), json.count, &failure)
        if result >= 0 { return .valid(needsCompaction: result == 1) }
        let error = JSONError.located(at: failure.offset, in: json, reason: failure.reason)
        return failure.incomplete ? .incomplete(error) : .invalid(error)
    }

    /// What the grammar expects at the next non-whitespace byte.
    private enum Expect {
        case value          // top level, after ':' and after ',' in an array
        case valueOrEnd     // just after '['
        case keyOrEnd       // just after '{'
        case key            // after ',' in an object
        case colon          // after an object key
        case separator      // after a complete value
    }

    /// The whole grammar in one loop. Returns 0 (valid), 1 (valid, needs
    /// compaction) or -1 with `failure` filled in.
    private static func scan(_ p: UnsafePointer<UInt8>, _ n: Int, _ failure: inout ScanFailure) -> Int {
        var i = 0
        var lineBreak = false
        var stack = NestingStack()
        var expect = Expect.value

        while true {
            // RFC 8259 §2: ws = space, horizontal tab, line feed, carriage return.
            // Only '\n' and '\r' force compaction (the output must stay one line).
            if i == n { break }
            var c = p[i]
            if c <= 0x20 {
                while true {
                    if c == 0x20 || c == 0x09 {
                    } else if c == 0x0A || c == 0x0D {
                        lineBreak = true
                    } else {
                        break
                    }
                    i &+= 1
                    if i == n { break }
                    c = p[i]
                }
                if i == n { break }
            }

            switch expect {
            case .separator:
                if stack.depth == 0 {
                    return failure.set(i, "trailing characters after JSON value")
                }
                if stack.innermostIsObject {
                    if c == UInt8(ascii: ",") {
                        expect = .key
                    } else if c == UInt8(ascii: "}") {
                        stack.pop()
                    } else {
                        return failure.set(i, "expected ',' or '}' after object member")
                    }
                } else {
                    if c == UInt8(ascii: ",") {
                        expect = .value
                    } else if c == UInt8(ascii: "]") {
                        stack.pop()
                    } else {
                        return failure.set(i, "expected ',' or ']' in array")
                    }
                }
                i &+= 1

            case .colon:
                guard c == UInt8(ascii: ":") else {
                    return failure.set(i, "expected ':' after object key")
                }
                i &+= 1
                expect = .value

            case .key, .keyOrEnd:
                if c == UInt8(ascii: "\"") {
                    i = validateString(p, n, from: i &+ 1, &failure)
                    if i < 0 { return -1 }
                    expect = .colon
                } else if c == UInt8(ascii: "}") {
                    if expect == .key { return failure.set(i, "trailing comma in object") }
                    stack.pop()
                    i &+= 1
                    expect = .separator
                } else {
                    return failure.set(i, expect == .key
                        ? "expected string key after ','" : "expected string key or '}'")
                }

            case .value, .valueOrEnd:
                switch c {
                case UInt8(ascii: "\""):
                    i = validateString(p, n, from: i &+ 1, &failure)
                    if i < 0 { return -1 }
                    expect = .separator
                case UInt8(ascii: "{"):
                    guard stack.push(isObject: true) else {
                        return failure.set(i, "nesting deeper than \(NestingStack.limit)")
                    }
                    i &+= 1
                    expect = .keyOrEnd
                case UInt8(ascii: "["):
                    guard stack.push(isObject: false) else {
                        return failure.set(i, "nesting deeper than \(NestingStack.limit)")
                    }
                    i &+= 1
                    expect = .valueOrEnd
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    i = validateNumber(p, n, from: i, &failure)
                    if i < 0 { return -1 }
                    expect = .separator
                case UInt8(ascii: "t"):
                    i = validateLiteral(p, n, from: i, "true", 0x6575_7274, &failure)
                    if i < 0 { return -1 }
                    expect = .separator
                case UInt8(ascii: "f"):
                    // "false": the first four bytes are compared as a word, then 'e'.
                    i = validateLiteral(p, n, from: i, "false", 0x736C_6166, &failure)
                    if i < 0 { return -1 }
                    expect = .separator
                case UInt8(ascii: "n"):
                    i = validateLiteral(p, n, from: i, "null", 0x6C6C_756E, &failure)
                    if i < 0 { return -1 }
                    expect = .separator
                case UInt8(ascii: "]") where expect == .valueOrEnd:
                    stack.pop()
                    i &+= 1
                    expect = .separator
                case UInt8(ascii: "]") where stack.depth > 0 && !stack.innermostIsObject:
                    return failure.set(i, "trailing comma in array")
                default:
                    return failure.set(i, "expected value")
                }
            }
        }

        // End of input.
        if expect == .separator && stack.depth == 0 { return lineBreak ? 1 : 0 }
        if expect == .value && stack.depth == 0 {
            return failure.set(n, "empty input")
        }
        failure.incomplete = true
        return failure.set(n, "unexpected end of input")
    }

    /// number = [ minus ] int [ frac ] [ exp ]            (RFC 8259 §6)
    /// int = zero / ( digit1-9 *DIGIT ); frac = "." 1*DIGIT; exp = e [ - / + ] 1*DIGIT
    /// Returns the index after the number or -1.
    @inline(__always)
    private static func validateNumber(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int,
                                       _ failure: inout ScanFailure) -> Int {
        @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }
        var i = start
        if p[i] == UInt8(ascii: "-") {
            i &+= 1
            if i == n { return failure.setIncomplete(n) }
            if !isDigit(p[i]) { return failure.set(i, "invalid number: expected digit after '-'") }
        }
        if p[i] == UInt8(ascii: "0") {
            i &+= 1
            if i < n && isDigit(p[i]) { return failure.set(i, "invalid number: leading zero") }
        } else {
            i &+= 1
            while i < n && isDigit(p[i]) { i &+= 1 }
        }
        if i < n && p[i] == UInt8(ascii: ".") {
            i &+= 1
            if i == n { return failure.setIncomplete(n) }
            if !isDigit(p[i]) { return failure.set(i, "invalid number: expected digit after '.'") }
            i &+= 1
            while i < n && isDigit(p[i]) { i &+= 1 }
        }
        if i < n && p[i] | 0x20 == UInt8(ascii: "e") {
            i &+= 1
            if i < n && (p[i] == UInt8(ascii: "+") || p[i] == UInt8(ascii: "-")) { i &+= 1 }
            if i == n { return failure.setIncomplete(n) }
            if !isDigit(p[i]) { return failure.set(i, "invalid number: expected digit in exponent") }
            i &+= 1
            while i < n && isDigit(p[i]) { i &+= 1 }
        }
        return i
    }

    /// true / false / null, exactly (RFC 8259 §3: lower case only). `head` is the
    /// literal's first four bytes as a little-endian word, for a one-load check.
    /// Returns the index after the literal or -1; a correct prefix cut by the end
    /// of input is incomplete, the first wrong byte is the error position.
    @inline(__always)
    private static func validateLiteral(_ p: UnsafePointer<UInt8>, _ n: Int, from start: Int,
                                        _ literal: StaticString, _ head: UInt32,
                                        _ failure: inout ScanFailure) -> Int {
        let count = literal.utf8CodeUnitCount
        if start &+ count <= n {
            let word = UInt32(littleEndian: UnsafeRawPointer(p + start).loadUnaligned(as: UInt32.self))
            if word == head && (count == 4 || p[start &+ 4] == UInt8(ascii: "e")) {
                return start &+ count
            }
        }
        let bytes = literal.utf8Start
        var k = 0
        while k < count {
            if start &+ k == n { return failure.setIncomplete(n) }
            if p[start &+ k] != bytes[k] {
                return failure.set(start &+ k, "invalid literal, expected '\(literal)'")
            }
            k &+= 1
        }
        return start &+ count
    }
}

/// Where and why the scan stopped; filled only on the error path.
struct ScanFailure {
    var offset = 0
    var reason = ""
    var incomplete = false

    /// Records an invalid input at `offset`; returns -1 for the caller to return.
    @inline(__always)
    mutating func set(_ offset: Int, _ reason: String) -> Int {
        self.offset = offset
        self.reason = reason
        return -1
    }

    /// Records input cut short inside a value.
    @inline(__always)
    mutating func setIncomplete(_ offset: Int) -> Int {
        incomplete = true
        return set(offset, "unexpected end of input")
    }
}
