/// One `--route VALUE=DEST` (wspipe(1): ROUTING).
public struct RouteSpec: Equatable, Sendable, CustomStringConvertible {
    public var match: RouteMatch
    public var destination: DestinationSpec

    public init(match: RouteMatch, destination: DestinationSpec) {
        self.match = match
        self.destination = destination
    }

    /// "VALUE=DEST", split at the first '=' (so a DEST may contain '=', a type
    /// may not). VALUE is "$binary", "$text", "$event", "*" or a non-empty type
    /// string; DEST is parsed by `DestinationSpec.parse`.
    public static func parse(_ text: String) -> Result<RouteSpec, RouteSpecError> {
        guard let equals = text.firstIndex(of: "=") else {
            return .failure(RouteSpecError("expected VALUE=DEST, got '\(text)'"))
        }
        let value = String(text[..<equals])
        guard let match = RouteMatch(value: value) else {
            return .failure(RouteSpecError("missing message type before '=' in '\(text)'"))
        }
        switch DestinationSpec.parse(String(text[text.index(after: equals)...])) {
        case .success(let destination):
            return .success(RouteSpec(match: match, destination: destination))
        case .failure(let error):
            return .failure(error)
        }
    }

    public var description: String { "\(match)=\(destination)" }
}
