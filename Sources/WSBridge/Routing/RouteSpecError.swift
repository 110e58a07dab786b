/// A `--route` that cannot be used: a malformed VALUE=DEST (from parsing), or a
/// destination that cannot be opened or started (from `RouteTable.init`).
///
/// `message` carries no flag name: the flag parser prefixes "--route: ".
public struct RouteSpecError: Error, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
