/// A parsed HTTP/1.1 message head (RFC 7230 §3): the start line and the
/// header fields, in order, names as received.
public struct HTTPHead: Sendable {
    public var startLine: String
    public var headers: [(name: String, value: String)]

    public init(startLine: String, headers: [(name: String, value: String)]) {
        self.startLine = startLine
        self.headers = headers
    }

    /// Every value of the header `name` (case-insensitive, RFC 7230 §3.2), in order.
    public func values(_ name: String) -> [String] {
        headers.filter { ASCII.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    /// The first value of the header `name`, if any.
    public func value(_ name: String) -> String? {
        headers.first { ASCII.equalsIgnoringCase($0.name, name) }?.value
    }

    /// All elements of a comma-separated header over all its lines
    /// (RFC 7230 §3.2.2: repeated list headers are one list).
    public func listValues(_ name: String) -> [String] {
        values(name).flatMap(ASCII.commaList)
    }
}
