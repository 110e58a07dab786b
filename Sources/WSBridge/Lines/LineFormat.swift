/// How stdin lines become messages and messages become stdout lines (wspipe(1): LINES AND MESSAGES).
public enum LineFormat: Sendable {
    /// NDJSON both ways, with `$text` / `$binary` envelopes (the default).
    case json
    /// Raw line mode: lines go out as text frames (-t).
    case text
    /// Raw line mode: lines go out as binary frames (-b).
    case binary
}

/// How binary messages are written in raw line mode (`--binary-output`, whose
/// values are the raw values).
public enum BinaryOutputMode: String, CaseIterable, Sendable { case raw, base64, drop }

/// An outgoing message, pointing at bytes valid only for the call it is passed to.
public enum OutgoingMessage {
    case text(UnsafeRawBufferPointer)
    case binary(UnsafeRawBufferPointer)
}
