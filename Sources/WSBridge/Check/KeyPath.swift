/// Where a value is in a message, in wspipe's KEYPATH notation: keys and
/// array indexes joined by dots (`room.topic`, `items.2.ts`).
struct KeyPath: Equatable, Sendable {
    enum Segment: Equatable, Sendable {
        case key([UInt8])
        case index(Int)
    }

    var segments: [Segment] = []

    var isRoot: Bool { segments.isEmpty }

    /// `room.topic`, `items.2.ts`; the whole message is "(the whole message)".
    var description: String {
        guard !segments.isEmpty else { return "(the whole message)" }
        return segments.map { segment in
            switch segment {
            case .key(let bytes): return String(decoding: bytes, as: UTF8.self)
            case .index(let index): return String(index)
            }
        }.joined(separator: ".")
    }
}

/// `--ignore KEYPATH` (wspipe(1): CHECKING A SERVER): the value at a path
/// whose segments match these is not compared, nor required to be there.
/// `*` matches any key or index; a number matches that index or that key.
public struct KeyPathPattern: Equatable, Sendable {
    let segments: [[UInt8]]

    public init(_ segments: [String]) {
        self.segments = segments.map { Array($0.utf8) }
    }

    func matches(_ path: [KeyPath.Segment]) -> Bool {
        guard path.count == segments.count else { return false }
        for (segment, wanted) in zip(path, segments) where wanted != Self.wildcard {
            switch segment {
            case .key(let key): if key != wanted { return false }
            case .index(let index): if Array(String(index).utf8) != wanted { return false }
            }
        }
        return true
    }

    private static let wildcard: [UInt8] = [UInt8(ascii: "*")]
}
