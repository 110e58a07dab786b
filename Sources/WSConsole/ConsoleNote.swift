/// Something the session tells the person at the terminal, shown in the
/// transcript between the messages (`InteractiveConsole.show(_:)`).
/// Strings that came from the peer are escaped before they are shown.
public enum ConsoleNote: Equatable, Sendable {
    case connecting(url: String, attempt: Int)
    /// The handshake succeeded: the status (101), the subprotocol and the
    /// extensions the server chose, if any.
    case connected(url: String, status: Int, subprotocol: String?, extensions: String?)
    /// The connection ended: its close code (1006 when there was no Close
    /// frame), the reason, and who started the close ("client" or "server";
    /// nil when the connection was lost).
    case disconnected(code: UInt16, reason: String, by: String?)
    case reconnecting(attempt: Int, delayMillis: Int)
    /// A connection attempt failed, or the session gave up.
    case failed(String)
    /// The pong answering our `/ping`, with its payload and the round trip.
    case pong(payload: String, roundTripNanos: Int64)
    case info(String)
    case warning(String)
}
