/// What the connection reports, in order. Payload pointers are valid only during
/// the callback (zero copy when a whole unfragmented frame sits in the input).
public enum ConnectionEvent {
    /// A complete message, valid UTF-8. `verdict` is what the caller's text
    /// check (`Connection.textCheck`) answered for these very bytes when it
    /// vouched for them (0 or more), else -1 (not asked: no check, or a
    /// message assembled from pieces; or it did not vouch).
    case text(UnsafeRawBufferPointer, verdict: Int)
    /// A complete message.
    case binary(UnsafeRawBufferPointer)
    /// A Ping; the Pong with the same payload is queued (§5.5.2) unless we have
    /// already sent a Close, or a later Ping replaces it before it is (§5.5.3).
    case ping(UnsafeRawBufferPointer)
    case pong(UnsafeRawBufferPointer)
    /// The peer's Close frame. If we had not sent a Close, the echo (same code) is
    /// already queued. code nil = no status code in the frame (1005 semantics).
    case closeReceived(code: CloseCode?, reason: String)
    /// The peer violated the protocol (or sent bad UTF-8 / too big a message):
    /// a Close with `code` is queued and the connection discards further input.
    /// Also reported with `.abnormal` (1006, never sent) on EOF without a Close.
    case failed(code: CloseCode, reason: String)
}
