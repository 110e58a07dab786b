/// The regular expressions of the `"${re:REGEX}"` matcher (wspipe(1):
/// CHECKING A SERVER): a pattern compiled once, when the recording is read,
/// and matched against the whole of a string value.
///
/// Matching simulates the pattern's automaton over the string one scalar at
/// a time (Thompson's construction, run as a Pike VM without captures), so it
/// takes time proportional to the string's length times the program's size,
/// whatever the pattern and the string: no input makes it backtrack. The
/// program is bounded (`maxInstructions`), so is a counted repetition
/// (`maxRepeat`).
///
/// The syntax, a common subset of POSIX ERE, PCRE and JavaScript:
/// - a character stands for itself, except `\ . [ ] ( ) | * + ? { } ^ $`;
///   `\` before any of these (or any other punctuation) makes it literal;
/// - `.` any character but a line feed; `[abc]`, `[a-z0-9]`, `[^...]`
///   (a `]` first, or `\]`, is literal; `-` first or last is literal);
/// - `\d` `\w` `\s` (ASCII digits, word characters, blanks) and `\D` `\W`
///   `\S`, also inside brackets; `\t` `\n` `\r` `\f` `\v`, `\xHH`, `\uHHHH`,
///   `\u{H...}`;
/// - `(...)`, `(?:...)` and `(?<name>...)` group (nothing is captured);
///   `|` alternates;
/// - `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}` repeat (n, m up to 1000); a lazy
///   `?` after one is accepted (it changes nothing for a whole match);
/// - `^` and `$` match at the start and end of the string, `\b` and `\B` at a
///   word boundary and elsewhere;
/// - `(?i)` at the very start ignores case.
/// Back-references, look-arounds and possessive quantifiers are refused:
/// they need backtracking.
public struct RegexPattern: Sendable, Equatable {
    /// The pattern as written.
    public let source: String
    let program: [RegexInstruction]
    let ignoresCase: Bool

    static let maxInstructions = 10_000
    static let maxRepeat = 1000

    public init(_ source: String) throws(RegexSyntaxError) {
        self.source = source
        var parser = RegexParser(Array(source.unicodeScalars))
        let (node, ignoresCase) = try parser.parse()
        self.ignoresCase = ignoresCase
        var compiler = RegexCompiler(ignoresCase: ignoresCase)
        try compiler.emit(node)
        compiler.append(.match)
        program = compiler.program
    }

    /// Whether the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        matches(Array(text.unicodeScalars))
    }

    public func matches(_ scalars: [Unicode.Scalar]) -> Bool {
        var current = ThreadList(capacity: program.count)
        var next = ThreadList(capacity: program.count)
        var stack: [Int] = []
        add(0, at: 0, in: scalars, to: &current, stack: &stack)
        for index in 0 ..< scalars.count {
            if current.isEmpty { return false }
            let scalar = ignoresCase ? RegexCompiler.folded(scalars[index]) : scalars[index]
            next.clear()
            for pc in current.members where step(program[pc], scalar, raw: scalars[index]) {
                add(pc + 1, at: index + 1, in: scalars, to: &next, stack: &stack)
            }
            swap(&current, &next)
        }
        return current.members.contains { program[$0] == .match }
    }

    /// Whether the instruction at a thread consumes `scalar`.
    private func step(_ instruction: RegexInstruction, _ scalar: Unicode.Scalar, raw: Unicode.Scalar) -> Bool {
        switch instruction {
        case .scalar(let wanted): return wanted == scalar
        case .any: return scalar != "\n"
        case .set(let set): return set.contains(raw, ignoringCase: ignoresCase)
        default: return false
        }
    }

    /// Adds the thread at `pc` and every one its jumps, splits and (true)
    /// assertions lead to, each at most once per position.
    private func add(_ pc: Int, at position: Int, in scalars: [Unicode.Scalar], to list: inout ThreadList,
                     stack: inout [Int]) {
        stack.removeAll(keepingCapacity: true)
        stack.append(pc)
        while let pc = stack.popLast() {
            guard list.insert(pc) else { continue }
            switch program[pc] {
            case .jump(let target):
                stack.append(target)
            case .split(let first, let second):
                stack.append(second)
                stack.append(first)
            case .assert(let assertion):
                if assertion.holds(at: position, in: scalars) { stack.append(pc + 1) }
            case .scalar, .any, .set, .match:
                break
            }
        }
    }
}

/// Why a pattern was refused: at which character (0-based, in scalars).
public struct RegexSyntaxError: Error, Equatable, CustomStringConvertible {
    public var offset: Int
    public var reason: String
    public var description: String { "at character \(offset + 1): \(reason)" }
}

/// The threads alive at one position: a sparse set of program counters
/// (constant-time insert and clear, members in insertion order, which keeps
/// the simulation's order stable).
struct ThreadList {
    private var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }
    var members: ArraySlice<Int> { dense[0 ..< count] }

    mutating func insert(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        if slot < count && dense[slot] == pc { return false }
        sparse[pc] = count
        dense[count] = pc
        count += 1
        return true
    }

    mutating func clear() { count = 0 }
}

enum RegexInstruction: Equatable, Sendable {
    case scalar(Unicode.Scalar)
    case any
    case set(ScalarSet)
    case split(Int, Int)
    case jump(Int)
    case assert(RegexAssertion)
    case match
}

enum RegexAssertion: Equatable, Sendable {
    case start, end, wordBoundary, notWordBoundary

    func holds(at position: Int, in scalars: [Unicode.Scalar]) -> Bool {
        switch self {
        case .start: return position == 0
        case .end: return position == scalars.count
        case .wordBoundary, .notWordBoundary:
            let before = position > 0 && ScalarSet.isWord(scalars[position - 1])
            let after = position < scalars.count && ScalarSet.isWord(scalars[position])
            return (before != after) == (self == .wordBoundary)
        }
    }
}

/// A bracket expression or a class escape: ranges of scalar values.
struct ScalarSet: Equatable, Sendable {
    var ranges: [ClosedRange<UInt32>] = []
    var negated = false

    static func isWord(_ scalar: Unicode.Scalar) -> Bool {
        word.ranges.contains { $0.contains(scalar.value) }
    }

    static let digit = ScalarSet(ranges: [0x30 ... 0x39])
    static let word = ScalarSet(ranges: [0x30 ... 0x39, 0x41 ... 0x5A, 0x5F ... 0x5F, 0x61 ... 0x7A])
    static let space = ScalarSet(ranges: [0x09 ... 0x0D, 0x20 ... 0x20])

    func contains(_ scalar: Unicode.Scalar, ignoringCase: Bool) -> Bool {
        var found = ranges.contains { $0.contains(scalar.value) }
        if !found && ignoringCase {
            for variant in [RegexCompiler.folded(scalar), RegexCompiler.upper(scalar)] where variant != scalar {
                if ranges.contains(where: { $0.contains(variant.value) }) { found = true; break }
            }
        }
        return found != negated
    }
}
