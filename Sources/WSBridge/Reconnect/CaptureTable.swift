import WSJSON
import WSMessages
/// --capture NAME=KEYPATH: remembers the latest raw JSON value seen at each path.
///
/// wspipe(1): TEMPLATES: `${NAME}` in a template (--on-connect, --on-reconnect,
/// --answer, --heartbeat, --wrap) is replaced by the value (as JSON), so a
/// session id or a cursor handed out by the server can be presented again
/// after a reconnect. `MessageTemplate` does the replacing.
public struct CaptureTable: TemplateCaptures {
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
}
