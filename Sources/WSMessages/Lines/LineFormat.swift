/// How stdin lines become messages and messages become stdout lines (wspipe(1): LINES AND MESSAGES).
public enum LineFormat: Sendable {
    /// NDJSON both ways, with `$text` / `$binary` envelopes (the default).
    case json
    /// Raw line mode: lines go out as text frames (-t).
    case text
    /// Raw line mode: lines go out as binary frames (-b).
    case binary
}
