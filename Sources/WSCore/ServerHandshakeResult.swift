/// What `ServerHandshake.receive` concluded.
public enum ServerHandshakeResult: Sendable {
    case needMoreData
    /// A valid upgrade request; `leftover` are bytes after the head (frames
    /// the client sent early), to feed to the Connection.
    case request(UpgradeRequest, leftover: [UInt8])
    /// Respond with `ServerHandshake.errorResponse(status: status, ...)` and close.
    case invalid(status: Int, reason: String)
}
