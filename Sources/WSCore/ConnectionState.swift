/// Where the closing handshake stands (RFC 6455 §7), and who started it: the
/// protocol's facts, kept here rather than beside the connection by whatever
/// drives it. wsproto's states: `open` is OPEN, `localClosing` LOCAL_CLOSING;
/// its REMOTE_CLOSING (the peer's Close read, ours not sent yet) never lasts
/// here, since the core echoes the peer's Close at once (§5.5.1), so the
/// peer's Close goes straight to `closed(by: .remote)`.
public enum ConnectionState: Hashable, Sendable {
    /// Messages flow both ways.
    case open
    /// We sent the first Close and wait for the peer's (§7.1.2 "The WebSocket
    /// Closing Handshake is Started"); its messages are still delivered.
    case localClosing
    /// Both Close frames were exchanged; `by` sent the first. `.local`: the
    /// peer answered ours, so it read every frame we sent before it.
    /// `.remote`: the peer closed first (it chose to stop reading) and ours
    /// is the echo. Nothing more is sent or delivered; flush the output and
    /// close TCP (a client waits for the server to, §7.1.1).
    case closed(by: Side)
    /// The connection failed (§7.1.7): a violation (found by either side:
    /// the Close with its code is queued, when it may be sent), or the
    /// transport ended before the closing handshake did (1006). Nothing more
    /// is sent or delivered.
    case failed

    /// Which end of the connection.
    public enum Side: Hashable, Sendable {
        case local
        case remote
    }
}
