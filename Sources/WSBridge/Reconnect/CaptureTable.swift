import WSJSON
/// --capture NAME=KEYPATH: remembers the latest raw JSON value seen at each path.
///
/// wspipe(1): RECONNECT AND REPLAY: `${NAME}` in --on-connect and --on-reconnect messages is replaced
/// by the value (as JSON), so a session id or a cursor handed out by the server
/// can be presented again after a reconnect.
public struct CaptureTable {
    /// Capture names, in the order given; a name given twice keeps the later path.
    private let names: [String]
    /// Key path of each capture, as the scanner wants it.
    private let paths: [[[UInt8]]]
    /// Latest raw value of each capture (meaningful only where `captured` is true).
    /// Kept apart from `captured` so an update reuses the array's storage.
    private var values: [[UInt8]]
    private var captured: [Bool]

    public init(_ captures: [(name: String, path: [String])]) {
        var names: [String] = []
        var paths: [[[UInt8]]] = []
        for capture in captures {
            let path = capture.path.map { Array($0.utf8) }
            if let index = names.firstIndex(of: capture.name) {
                paths[index] = path
            } else {
                names.append(capture.name)
                paths.append(path)
            }
        }
        self.names = names
        self.paths = paths
        self.values = Array(repeating: [], count: names.count)
        self.captured = Array(repeating: false, count: names.count)
    }

    /// No --capture was given: the caller can skip `observe` altogether.
    public var isEmpty: Bool { names.isEmpty }

    /// Looks at one incoming message. The caller guarantees `json` is valid JSON
    /// (JSONScanner.validate accepted it); messages whose top level is not an
    /// object, or that lack a path, leave that capture as it was.
    ///
    /// Per message this only scans along each path; a new value is copied into
    /// the storage of the previous one (no allocation once it is large enough).
    public mutating func observe(_ json: UnsafeRawBufferPointer) {
        guard let base = json.baseAddress else { return }
        for index in paths.indices {
            guard let range = JSONScanner.valueRange(atPath: paths[index], in: json) else { continue }
            let value = JSONSkipper.trimmingWhitespace(range, in: json)
            values[index].removeAll(keepingCapacity: true)
            values[index].append(contentsOf: UnsafeRawBufferPointer(
                start: base + value.lowerBound, count: value.count))
            captured[index] = true
        }
    }

    /// The latest raw JSON value captured under `name`; nil for an unknown name
    /// or when nothing was captured yet.
    public func value(_ name: String) -> [UInt8]? {
        guard let index = names.firstIndex(of: name), captured[index] else { return nil }
        return values[index]
    }

    /// Replaces each ${NAME} with the captured raw JSON value ("null" when nothing
    /// was captured yet); ${...} with unknown names is left unchanged.
    ///
    /// The scan restarts right after an unknown "${", so in "${${a}}" the inner
    /// reference is still replaced. A "${" without a closing "}" is kept as is.
    public func substitute(_ template: String) -> [UInt8] {
        let text = Array(template.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if text[i] == UInt8(ascii: "$"), i + 1 < text.count, text[i + 1] == UInt8(ascii: "{"),
               let close = text[(i + 2)...].firstIndex(of: UInt8(ascii: "}")),
               let capture = index(named: text[(i + 2) ..< close]) {
                if captured[capture] {
                    out.append(contentsOf: values[capture])
                } else {
                    out.append(contentsOf: "null".utf8)
                }
                i = close + 1
            } else {
                out.append(text[i])
                i += 1
            }
        }
        return out
    }

    /// The capture whose name is exactly these UTF-8 bytes.
    private func index(named bytes: ArraySlice<UInt8>) -> Int? {
        names.firstIndex { $0.utf8.elementsEqual(bytes) }
    }
}
