/// Why a Socket.IO packet could not be read, or a line could not be sent as one.
public struct SocketIOError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    /// Where in the line (0-based byte offset) the problem is, when it is in one.
    public var offset: Int

    public init(_ reason: String, at offset: Int = 0) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { reason }
}
