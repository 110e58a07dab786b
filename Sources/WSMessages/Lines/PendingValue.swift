/// A JSON value spread over several lines (pretty-printed input), kept while
/// it is incomplete: its lines joined with '\n' (whitespace to JSON, so the
/// joined text is the value), where each line starts, and the number of its
/// first line, so that it can be reported where it began, or taken apart
/// again when it turns out to be a stray line swallowing the ones after it.
struct PendingValue {
    private(set) var bytes: [UInt8] = []
    /// Offset in `bytes` of each line's first byte.
    private var lineStarts: [Int] = []
    /// The input line number of the first line.
    private(set) var firstLine = 0

    var isEmpty: Bool { lineStarts.isEmpty }
    var count: Int { bytes.count }
    var lineCount: Int { lineStarts.count }

    /// Input line `number` starts a value.
    mutating func start(_ line: UnsafeRawBufferPointer, number: Int) {
        firstLine = number
        append(line)
    }

    mutating func append(_ line: UnsafeRawBufferPointer) {
        lineStarts.append(bytes.count)
        bytes.append(contentsOf: line)
        bytes.append(10)
    }

    /// Hands the value over and starts empty (memory released: one large
    /// value must not stay pinned).
    mutating func take() -> PendingValue {
        defer { self = PendingValue() }
        return self
    }

    /// Length of the first line (without its '\n').
    var firstLineLength: Int { (lineStarts.count > 1 ? lineStarts[1] : bytes.count) - 1 }

    func withFirstLine<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[..<firstLineLength])) }
    }

    /// Calls `body` with the input line number and bytes of every line after
    /// the first, in order.
    func forEachLaterLine(_ body: (Int, UnsafeRawBufferPointer) -> Void) {
        bytes.withUnsafeBytes { all in
            for k in 1 ..< lineStarts.count {
                let end = (k + 1 < lineStarts.count ? lineStarts[k + 1] : all.count) - 1
                body(firstLine + k, UnsafeRawBufferPointer(rebasing: all[lineStarts[k] ..< end]))
            }
        }
    }
}
