/// Where the closing handshake stands (RFC 6455 §7).
public enum ConnectionState: Sendable {
    /// Messages flow both ways.
    case open
    /// We sent a Close and wait for the peer's (§7.1.2 "The WebSocket Closing
    /// Handshake is Started"); incoming messages are still delivered.
    case closing
    /// Both Close frames were exchanged, or the connection failed or hit EOF:
    /// nothing more will be sent or delivered; flush `output` and close TCP.
    case closed
}
