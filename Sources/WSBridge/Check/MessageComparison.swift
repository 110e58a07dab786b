import WSCore
import WSJSON

/// What a --check recording expects of one incoming message.
enum ExpectedMessage: Equatable, Sendable {
    /// Text that is JSON: compared as a value (key order, whitespace and
    /// number spelling aside), with matchers.
    case json(ExpectedValue)
    /// Text that is not JSON: byte for byte.
    case text([UInt8])
    case binary([UInt8])

    /// As a recording writes a message: JSON as itself, else an envelope.
    var recordedText: [UInt8] {
        switch self {
        case .json(let value): return value.compactText
        case .text(let bytes): return bytes.withUnsafeBytes { MessageExcerpt.textEnvelope($0) }
        case .binary(let bytes): return bytes.withUnsafeBytes { MessageExcerpt.binaryEnvelope($0) }
        }
    }
}

/// An incoming message as the check sees it (bytes valid during the call).
enum ActualMessage {
    case text(UnsafeRawBufferPointer)
    case binary(UnsafeRawBufferPointer)
}

/// The first difference between what a recording expects and a message:
/// where (`path`, in KEYPATH notation), and the two values there as
/// compact JSON (nil: not there). "First" is in the recording's order: the
/// members of an object in the order the recording has them, then the
/// members it does not have, in the message's order.
struct Difference: Equatable, Sendable {
    enum Kind: Equatable, Sendable {
        /// Both have a value there, and they differ.
        case differs
        /// The message has no value there.
        case missing
        /// The recording has no value there.
        case extra
    }

    var path: KeyPath
    var kind: Kind
    var expected: [UInt8]?
    var actual: [UInt8]?
    /// What the matcher wanted, when one refused the value ("a number").
    var wanted: String? = nil
}

/// A value kept by `${capture:NAME}`: its JSON text (compact), which `${NAME}`
/// puts into later messages sent, and the value later expected ones compare with.
struct CapturedValue: Equatable, Sendable {
    var json: [UInt8]
    var value: ExpectedValue
}

/// Compares expected messages with incoming ones (wspipe(1): CHECKING A
/// SERVER). The incoming message is never made into a tree: it is walked in
/// place as far as the expected value reaches (what a matcher or --ignore
/// covers is skipped whole), so a large or deeply nested message costs its
/// length and no memory, and the expected value (from the recording) bounds
/// the recursion.
struct MessageComparison {
    let ignores: [KeyPathPattern]
    /// The captures of the recording so far (a recording's connections share them).
    var captures: [String: CapturedValue] = [:]
    /// Bound by the comparison in progress: kept only if the message matches.
    private var pending: [(name: String, range: Range<Int>)] = []
    private var path: [KeyPath.Segment] = []
    private var bytes = UnsafeRawBufferPointer(start: nil, count: 0)

    init(ignores: [KeyPathPattern]) {
        self.ignores = ignores
    }

    /// Nil when `actual` is what `expected` describes; its captures are then kept.
    mutating func compare(_ expected: ExpectedMessage, _ actual: ActualMessage) -> Difference? {
        switch (expected, actual) {
        case (.json(let value), .text(let payload)):
            guard case .valid = JSONScanner.validate(payload) else {
                return Difference(path: KeyPath(), kind: .differs, expected: value.compactText,
                                  actual: MessageExcerpt.textEnvelope(payload), wanted: "a JSON message")
            }
            return compare(value, json: payload)
        case (.text(let wanted), .text(let payload)):
            if wanted.elementsEqual(payload) { return nil }
            return Difference(path: KeyPath(), kind: .differs, expected: expected.recordedText,
                              actual: MessageExcerpt.textEnvelope(payload))
        case (.binary(let wanted), .binary(let payload)):
            if wanted.elementsEqual(payload) { return nil }
            return Difference(path: KeyPath(), kind: .differs, expected: expected.recordedText,
                              actual: MessageExcerpt.binaryEnvelope(payload))
        case (_, .text(let payload)):
            return Difference(path: KeyPath(), kind: .differs, expected: expected.recordedText,
                              actual: MessageExcerpt.textEnvelope(payload), wanted: "a binary message")
        case (_, .binary(let payload)):
            return Difference(path: KeyPath(), kind: .differs, expected: expected.recordedText,
                              actual: MessageExcerpt.binaryEnvelope(payload), wanted: "a text message")
        }
    }

    /// `json` is valid JSON.
    mutating func compare(_ expected: ExpectedValue, json: UnsafeRawBufferPointer) -> Difference? {
        bytes = json
        pending.removeAll(keepingCapacity: true)
        path.removeAll(keepingCapacity: true)
        defer { bytes = UnsafeRawBufferPointer(start: nil, count: 0) }
        let (_, difference) = walk(expected, at: skipWhitespace(0))
        if difference == nil {
            for (name, range) in pending {
                let json = excerpt(range, limit: Int.max)
                let tree = (try? JSONTree.parse(json)) ?? .null
                captures[name] = CapturedValue(json: json, value: .literal(tree))
            }
        }
        return difference
    }

    // MARK: the walk

    /// Compares the value starting at `start` with `expected`: the index
    /// after the value, and the first difference in it.
    private mutating func walk(_ expected: ExpectedValue, at start: Int) -> (Int, Difference?) {
        let end = skipValue(start)
        switch expected {
        case .object(let object):
            guard byte(start) == UInt8(ascii: "{") else { return (end, differs(expected, start ..< end)) }
            return (end, walkObject(object, at: start))
        case .array(let items):
            guard byte(start) == UInt8(ascii: "[") else { return (end, differs(expected, start ..< end)) }
            return (end, walkArray(items, at: start))
        case .matcher(let matcher):
            return (end, match(matcher, start ..< end))
        case .null, .bool:
            let same = expected.compactText.elementsEqual(UnsafeRawBufferPointer(rebasing: bytes[start ..< end]))
            return (end, same ? nil : differs(expected, start ..< end))
        case .number(let number, _):
            let same = isNumber(start) && DecimalNumber(bytes[start ..< end]) == number
            return (end, same ? nil : differs(expected, start ..< end))
        case .string(let wanted):
            let same = byte(start) == 0x22 && unescaped(start ..< end) == wanted
            return (end, same ? nil : differs(expected, start ..< end))
        }
    }

    private mutating func walkObject(_ object: ExpectedValue.ExpectedObject, at start: Int) -> Difference? {
        var best: (order: Int, difference: Difference)?
        func keep(_ order: Int, _ difference: Difference?) {
            guard let difference, best.map({ order < $0.order }) ?? true else { return }
            best = (order, difference)
        }
        var seen = [Bool](repeating: false, count: object.keys.count)
        var i = skipWhitespace(start + 1)
        var memberNumber = 0
        while byte(i) == 0x22 {
            let keyEnd = skipValue(i)
            let key = unescaped(i ..< keyEnd)
            i = skipWhitespace(skipWhitespace(keyEnd) + 1)   // past ':'
            path.append(.key(key))
            if isIgnored {
                i = skipValue(i)
            } else if let index = object.index[key] {
                seen[index] = true
                let (end, difference) = walk(object.values[index], at: i)
                keep(index, difference)
                i = end
            } else {
                let end = skipValue(i)
                keep(object.keys.count + memberNumber,
                     Difference(path: KeyPath(segments: path), kind: .extra, expected: nil, actual: excerpt(i ..< end)))
                i = end
            }
            path.removeLast()
            memberNumber += 1
            i = skipWhitespace(i)
            if byte(i) == UInt8(ascii: ",") { i = skipWhitespace(i + 1) }
        }
        for (index, key) in object.keys.enumerated() where !seen[index] {
            path.append(.key(key))
            if !isIgnored {
                keep(index, Difference(path: KeyPath(segments: path), kind: .missing,
                                       expected: object.values[index].compactText, actual: nil))
            }
            path.removeLast()
        }
        return best?.difference
    }

    private mutating func walkArray(_ items: [ExpectedValue], at start: Int) -> Difference? {
        var first: Difference?
        var i = skipWhitespace(start + 1)
        var count = 0
        while i < bytes.count && byte(i) != UInt8(ascii: "]") {
            path.append(.index(count))
            if isIgnored {
                i = skipValue(i)
            } else if count < items.count {
                let (end, difference) = walk(items[count], at: i)
                if first == nil { first = difference }
                i = end
            } else {
                let end = skipValue(i)
                if first == nil {
                    first = Difference(path: KeyPath(segments: path), kind: .extra, expected: nil, actual: excerpt(i ..< end))
                }
                i = end
            }
            path.removeLast()
            count += 1
            i = skipWhitespace(i)
            if byte(i) == UInt8(ascii: ",") { i = skipWhitespace(i + 1) }
        }
        guard first == nil else { return first }
        for index in count ..< max(count, items.count) {
            path.append(.index(index))
            defer { path.removeLast() }
            if !isIgnored {
                return Difference(path: KeyPath(segments: path), kind: .missing, expected: items[index].compactText,
                                  actual: nil)
            }
        }
        return nil
    }

    private mutating func match(_ matcher: ExpectedValue.Matcher, _ range: Range<Int>) -> Difference? {
        let first = byte(range.lowerBound)
        switch matcher {
        case .any:
            return nil
        case .capture(let name):
            pending.append((name, range))
            return nil
        case .string:
            return first == 0x22 ? nil : differs(.matcher(matcher), range, wanted: "a string")
        case .number:
            return isNumber(range.lowerBound) ? nil : differs(.matcher(matcher), range, wanted: "a number")
        case .regex(let pattern):
            guard first == 0x22 else { return differs(.matcher(matcher), range, wanted: "a string") }
            let text = String(decoding: unescaped(range), as: UTF8.self)
            return pattern.matches(text) ? nil
                : differs(.matcher(matcher), range, wanted: "a string matching /\(pattern.source)/")
        case .captured(let name):
            guard let captured = captures[name] ?? pendingCapture(name) else {
                return differs(.matcher(matcher), range, wanted: "the value of ${capture:\(name)}, not captured yet")
            }
            let (_, difference) = walk(captured.value, at: range.lowerBound)
            guard difference != nil else { return nil }
            return differs(.matcher(matcher), range, wanted: "the value captured as \(name), "
                           + String(decoding: captured.json, as: UTF8.self))
        }
    }

    /// A capture bound earlier in the message being compared.
    private func pendingCapture(_ name: String) -> CapturedValue? {
        guard let range = pending.last(where: { $0.name == name })?.range else { return nil }
        let json = excerpt(range, limit: Int.max)
        return CapturedValue(json: json, value: .literal((try? JSONTree.parse(json)) ?? .null))
    }

    private var isIgnored: Bool {
        !ignores.isEmpty && ignores.contains { $0.matches(path) }
    }

    private func differs(_ expected: ExpectedValue, _ range: Range<Int>, wanted: String? = nil) -> Difference {
        Difference(path: KeyPath(segments: path), kind: .differs, expected: expected.compactText,
                   actual: excerpt(range), wanted: wanted)
    }

    // MARK: reading the message

    private func byte(_ i: Int) -> UInt8 { i < bytes.count ? bytes[i] : 0 }

    private func isNumber(_ i: Int) -> Bool {
        let b = byte(i)
        return b == UInt8(ascii: "-") || (b >= 0x30 && b <= 0x39)
    }

    private func skipWhitespace(_ i: Int) -> Int {
        var i = i
        while i < bytes.count && JSONSkipper.isWhitespace(bytes[i]) { i += 1 }
        return i
    }

    /// The index after the value at `i` (valid JSON): containers by counting
    /// brackets outside strings, without recursion.
    private func skipValue(_ i: Int) -> Int {
        var j = i
        switch byte(i) {
        case 0x22:
            return skipString(i)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while j < bytes.count {
                switch bytes[j] {
                case 0x22:
                    j = skipString(j)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return j + 1 }
                default:
                    break
                }
                j += 1
            }
            return j
        default:
            // A number, true, false or null: up to the next delimiter.
            while j < bytes.count {
                let b = bytes[j]
                if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == UInt8(ascii: ":")
                    || JSONSkipper.isWhitespace(b) { break }
                j += 1
            }
            return j
        }
    }

    /// The index after the string whose opening quote is at `i`.
    private func skipString(_ i: Int) -> Int {
        var j = i + 1
        while j < bytes.count && bytes[j] != 0x22 { j += bytes[j] == 0x5C ? 2 : 1 }
        return min(j + 1, bytes.count)
    }

    private func unescaped(_ range: Range<Int>) -> [UInt8] {
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: bytes[range]), into: &out)
        return out
    }

    /// The value's compact text, cut for a report.
    private func excerpt(_ range: Range<Int>, limit: Int = MessageExcerpt.limit) -> [UInt8] {
        MessageExcerpt.compact(UnsafeRawBufferPointer(rebasing: bytes[range]), limit: limit)
    }
}

/// Messages and values as a report shows them: compact, cut after
/// `limit` bytes (on a character boundary, with "…" and the size).
enum MessageExcerpt {
    static let limit = 600

    static func compact(_ json: UnsafeRawBufferPointer, limit: Int = MessageExcerpt.limit) -> [UInt8] {
        var out: [UInt8] = []
        // Compaction never lengthens: a little more than the limit is enough to cut.
        let cut = limit == Int.max ? json.count : min(json.count, limit * 4 + 64)
        JSONScanner.compact(UnsafeRawBufferPointer(rebasing: json[..<cut]), into: &out)
        return shortened(out, total: json.count, limit: limit)
    }

    static func textEnvelope(_ text: UnsafeRawBufferPointer) -> [UInt8] {
        var out = Array(#"{"$text":"#.utf8)
        JSONScanner.appendQuoted(UnsafeRawBufferPointer(rebasing: text[..<min(text.count, limit * 2)]), into: &out)
        out.append(UInt8(ascii: "}"))
        return shortened(out, total: text.count, limit: limit)
    }

    static func binaryEnvelope(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = Array(#"{"$binary":""#.utf8)
        Base64.encode(UnsafeRawBufferPointer(rebasing: bytes[..<min(bytes.count, limit)]), into: &out)
        out.append(contentsOf: #""}"#.utf8)
        return shortened(out, total: bytes.count, limit: limit)
    }

    /// `text` cut after `limit` bytes, before a UTF-8 continuation byte.
    static func shortened(_ text: [UInt8], total: Int, limit: Int) -> [UInt8] {
        guard text.count > limit else { return text }
        var end = limit
        while end > 0 && text[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(text[..<end]) + Array("… (\(total) bytes)".utf8)
    }
}
