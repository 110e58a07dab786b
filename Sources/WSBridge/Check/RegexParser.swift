/// A `RegexPattern`'s syntax tree.
indirect enum RegexNode: Equatable {
    case empty
    case scalar(Unicode.Scalar)
    case any
    case set(ScalarSet)
    case assert(RegexAssertion)
    case concat([RegexNode])
    case alternate([RegexNode])
    /// `max` nil: no upper bound.
    case repeated(RegexNode, min: Int, max: Int?)
}

/// Reads a pattern (the syntax of `RegexPattern`) into a `RegexNode`, by
/// recursive descent: alternation, then concatenation, then a repeated atom.
/// Nesting is bounded (`maxDepth`), so no pattern runs the stack out.
struct RegexParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var depth = 0
    static let maxDepth = 100

    init(_ scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    /// The tree, and whether the pattern began with `(?i)`.
    mutating func parse() throws(RegexSyntaxError) -> (RegexNode, ignoresCase: Bool) {
        var ignoresCase = false
        if scalars.starts(with: Array("(?i)".unicodeScalars)) {
            ignoresCase = true
            index = 4
        }
        let node = try alternation()
        if index < scalars.count {
            // Only a ')' without its '(' stops the top level early.
            throw fail("unmatched ')'")
        }
        return (node, ignoresCase)
    }

    private func fail(_ reason: String, at offset: Int? = nil) -> RegexSyntaxError {
        RegexSyntaxError(offset: offset ?? index, reason: reason)
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func alternation() throws(RegexSyntaxError) -> RegexNode {
        var branches = [try concatenation()]
        while peek == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternate(branches)
    }

    private mutating func concatenation() throws(RegexSyntaxError) -> RegexNode {
        var items: [RegexNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            let atom = try self.atom()
            items.append(try quantified(atom))
        }
        return items.isEmpty ? .empty : items.count == 1 ? items[0] : .concat(items)
    }

    /// `atom` followed by any quantifiers (`a{2}?` and `(a*)*` are fine; `a**` is not).
    private mutating func quantified(_ atom: RegexNode) throws(RegexSyntaxError) -> RegexNode {
        var node = atom
        var quantifiedAlready = false
        while let scalar = peek {
            let start = index
            let bounds: (Int, Int?)
            switch scalar {
            case "*": index += 1; bounds = (0, nil)
            case "+": index += 1; bounds = (1, nil)
            case "?": index += 1; bounds = (0, 1)
            case "{":
                guard let counted = try countedRepeat() else { return node }
                bounds = counted
            default: return node
            }
            if quantifiedAlready { throw fail("a quantifier after a quantifier", at: start) }
            if case .assert = node { throw fail("nothing to repeat", at: start) }
            if case .empty = node { throw fail("nothing to repeat", at: start) }
            quantifiedAlready = true
            // A lazy quantifier matches the same whole strings; a possessive one needs backtracking.
            if peek == "?" { index += 1 }
            if peek == "+" { throw fail("possessive quantifiers are not supported") }
            node = .repeated(node, min: bounds.0, max: bounds.1)
        }
        return node
    }

    /// `{n}`, `{n,}` or `{n,m}`; nil (nothing consumed) when the brace does
    /// not start one, and is then a literal, as in PCRE and JavaScript.
    private mutating func countedRepeat() throws(RegexSyntaxError) -> (Int, Int?)? {
        let start = index
        index += 1
        guard let low = number() else { index = start; return nil }
        var high: Int? = low
        if peek == "," {
            index += 1
            high = number()
        }
        guard peek == "}" else { index = start; return nil }
        index += 1
        if low > RegexPattern.maxRepeat || (high ?? 0) > RegexPattern.maxRepeat {
            throw fail("a repeat count above \(RegexPattern.maxRepeat)", at: start)
        }
        if let high, high < low { throw fail("{\(low),\(high)}: the maximum is below the minimum", at: start) }
        return (low, high)
    }

    private mutating func number() -> Int? {
        var value = 0
        var digits = 0
        while let scalar = peek, let digit = Self.digit(scalar), digits < 7 {
            value = value * 10 + digit
            digits += 1
            index += 1
        }
        return digits > 0 ? value : nil
    }

    private static func digit(_ scalar: Unicode.Scalar) -> Int? {
        scalar.value >= 0x30 && scalar.value <= 0x39 ? Int(scalar.value - 0x30) : nil
    }

    private mutating func atom() throws(RegexSyntaxError) -> RegexNode {
        let scalar = scalars[index]
        let start = index
        index += 1
        switch scalar {
        case ".": return .any
        case "^": return .assert(.start)
        case "$": return .assert(.end)
        case "[": return .set(try bracket(openedAt: start))
        case "(": return try group(openedAt: start)
        case "\\": return try escape()
        case "*", "+", "?": throw fail("nothing to repeat", at: start)
        case "]", "}": return .scalar(scalar)   // literal outside brackets, as in PCRE
        default: return .scalar(scalar)
        }
    }

    private mutating func group(openedAt start: Int) throws(RegexSyntaxError) -> RegexNode {
        depth += 1
        defer { depth -= 1 }
        if depth > Self.maxDepth { throw fail("groups nested deeper than \(Self.maxDepth)", at: start) }
        if peek == "?" {
            index += 1
            switch peek {
            case ":": index += 1
            case "<" where index + 1 < scalars.count && scalars[index + 1] != "=" && scalars[index + 1] != "!":
                // A named group: the name is read and forgotten (nothing is captured).
                index += 1
                while let scalar = peek, scalar != ">" { index += 1 }
                guard peek == ">" else { throw fail("a group name without its '>'", at: start) }
                index += 1
            case "=", "!", "<": throw fail("look-arounds are not supported", at: start)
            case "i": throw fail("(?i) only at the very start of the pattern", at: start)
            default: throw fail("unknown group '(?'", at: start)
            }
        }
        let inner = try alternation()
        guard peek == ")" else { throw fail("'(' without its ')'", at: start) }
        index += 1
        return inner
    }

    private mutating func escape() throws(RegexSyntaxError) -> RegexNode {
        let start = index - 1
        guard let scalar = peek else { throw fail("a pattern ending in '\\'", at: start) }
        index += 1
        switch scalar {
        case "b": return .assert(.wordBoundary)
        case "B": return .assert(.notWordBoundary)
        case "A", "z", "Z", "G": throw fail("'\\\(scalar)' is not supported (use ^ and $)", at: start)
        default:
            if let set = Self.classEscape(scalar) { return .set(set) }
            return .scalar(try literalEscape(scalar, at: start))
        }
    }

    /// `\d` and the others as sets, nil for any other letter.
    private static func classEscape(_ scalar: Unicode.Scalar) -> ScalarSet? {
        switch scalar {
        case "d": return .digit
        case "w": return .word
        case "s": return .space
        case "D": var set = ScalarSet.digit; set.negated = true; return set
        case "W": var set = ScalarSet.word; set.negated = true; return set
        case "S": var set = ScalarSet.space; set.negated = true; return set
        default: return nil
        }
    }

    /// The scalar an escape that is not a class stands for (`scalar`
    /// follows the backslash, already consumed).
    private mutating func literalEscape(_ scalar: Unicode.Scalar, at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        switch scalar {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        case "v": return "\u{0B}"
        case "0": return "\u{00}"
        case "x": return try hexScalar(digits: 2, at: start)
        case "u":
            if peek == "{" {
                index += 1
                let value = try hexValue(maxDigits: 6, at: start)
                guard peek == "}" else { throw fail("'\\u{' without its '}'", at: start) }
                index += 1
                guard let result = Unicode.Scalar(value) else { throw fail("not a Unicode scalar", at: start) }
                return result
            }
            return try hexScalar(digits: 4, at: start)
        default:
            if scalar.value >= 0x31 && scalar.value <= 0x39 {
                throw fail("back-references are not supported", at: start)
            }
            let isLetterOrDigit = (scalar.value >= 0x30 && scalar.value <= 0x39)
                || (scalar.value | 0x20 >= 0x61 && scalar.value | 0x20 <= 0x7A)
            if isLetterOrDigit { throw fail("unknown escape '\\\(scalar)'", at: start) }
            return scalar
        }
    }

    private mutating func hexScalar(digits: Int, at start: Int) throws(RegexSyntaxError) -> Unicode.Scalar {
        let before = index
        let value = try hexValue(maxDigits: digits, at: start)
        guard index - before == digits, let scalar = Unicode.Scalar(value) else {
            throw fail("expected \(digits) hex digits", at: start)
        }
        return scalar
    }

    private mutating func hexValue(maxDigits: Int, at start: Int) throws(RegexSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        var count = 0
        while count < maxDigits, let scalar = peek, let digit = Self.hexDigit(scalar) {
            value = value << 4 | digit
            count += 1
            index += 1
        }
        guard count > 0 else { throw fail("expected hex digits", at: start) }
        return value
    }

    private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30 ... 0x39: return scalar.value - 0x30
        case 0x41 ... 0x46: return scalar.value - 0x41 + 10
        case 0x61 ... 0x66: return scalar.value - 0x61 + 10
        default: return nil
        }
    }

    /// `[...]` after its `[`.
    private mutating func bracket(openedAt start: Int) throws(RegexSyntaxError) -> ScalarSet {
        var set = ScalarSet()
        if peek == "^" { set.negated = true; index += 1 }
        var first = true
        while true {
            guard let scalar = peek else { throw fail("'[' without its ']'", at: start) }
            if scalar == "]" && !first { index += 1; break }
            first = false
            index += 1
            var low: UInt32
            if scalar == "\\" {
                let escapeStart = index - 1
                guard let escaped = peek else { throw fail("'[' without its ']'", at: start) }
                index += 1
                if let inner = Self.classEscape(escaped) {
                    set.ranges += inner.negated ? Self.complement(inner.ranges) : inner.ranges
                    continue
                }
                if escaped == "b" { low = 0x08 } else { low = try literalEscape(escaped, at: escapeStart).value }
            } else {
                low = scalar.value
            }
            // A range, unless the '-' is the last character before ']'.
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                let highScalar = scalars[index]
                index += 1
                var high = highScalar.value
                if highScalar == "\\" {
                    guard let escaped = peek else { throw fail("'[' without its ']'", at: start) }
                    index += 1
                    if Self.classEscape(escaped) != nil { throw fail("a class escape cannot end a range", at: index - 2) }
                    high = try literalEscape(escaped, at: index - 2).value
                }
                guard low <= high else { throw fail("a range out of order", at: index - 1) }
                set.ranges.append(low ... high)
            } else {
                set.ranges.append(low ... low)
            }
        }
        return set
    }

    /// The scalar values outside `ranges` (for `\D` and the others inside brackets).
    private static func complement(_ ranges: [ClosedRange<UInt32>]) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt32 = 0
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > next { result.append(next ... range.lowerBound - 1) }
            next = max(next, range.upperBound + 1)
        }
        if next <= 0x10FFFF { result.append(next ... 0x10FFFF) }
        return result
    }
}

/// Turns a `RegexNode` into the instructions `RegexPattern` runs; refuses a
/// program over `RegexPattern.maxInstructions` (counted repetitions copy
/// their operand).
struct RegexCompiler {
    let ignoresCase: Bool
    private(set) var program: [RegexInstruction] = []

    init(ignoresCase: Bool) {
        self.ignoresCase = ignoresCase
    }

    mutating func append(_ instruction: RegexInstruction) {
        program.append(instruction)
    }

    mutating func emit(_ node: RegexNode) throws(RegexSyntaxError) {
        if program.count > RegexPattern.maxInstructions {
            throw RegexSyntaxError(offset: 0, reason: "the pattern is too large once its repeats are counted out")
        }
        switch node {
        case .empty: break
        case .scalar(let scalar): append(.scalar(ignoresCase ? Self.folded(scalar) : scalar))
        case .any: append(.any)
        case .set(let set): append(.set(set))
        case .assert(let assertion): append(.assert(assertion))
        case .concat(let items):
            for item in items { try emit(item) }
        case .alternate(let branches):
            try emitAlternation(branches[...])
        case .repeated(let inner, let min, let max):
            try emitRepeat(inner, min: min, max: max)
        }
    }

    /// split L1, L2; L1: first; jump end; L2: the rest.
    private mutating func emitAlternation(_ branches: ArraySlice<RegexNode>) throws(RegexSyntaxError) {
        guard let first = branches.first else { return }
        if branches.count == 1 { return try emit(first) }
        let split = program.count
        append(.split(split + 1, 0))
        try emit(first)
        let jump = program.count
        append(.jump(0))
        program[split] = .split(split + 1, program.count)
        try emitAlternation(branches.dropFirst())
        program[jump] = .jump(program.count)
    }

    private mutating func emitRepeat(_ inner: RegexNode, min: Int, max: Int?) throws(RegexSyntaxError) {
        for _ in 0 ..< min { try emit(inner) }
        guard let max else {
            // L: split body, end; body; jump L
            let split = program.count
            append(.split(split + 1, 0))
            try emit(inner)
            append(.jump(split))
            program[split] = .split(split + 1, program.count)
            return
        }
        // Each optional copy: split body, end.
        var splits: [Int] = []
        for _ in min ..< max {
            splits.append(program.count)
            append(.split(program.count + 1, 0))
            try emit(inner)
        }
        for split in splits { program[split] = .split(split + 1, program.count) }
    }

    /// Simple lower-case folding for `(?i)`.
    static func folded(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar
        }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first! : scalar
    }

    static func upper(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        if scalar.isASCII {
            return scalar.value >= 0x61 && scalar.value <= 0x7A ? Unicode.Scalar(scalar.value - 0x20)! : scalar
        }
        let upper = scalar.properties.uppercaseMapping.unicodeScalars
        return upper.count == 1 ? upper.first! : scalar
    }
}
