/// Outcome of one read or write on a non-blocking fd or stream.
public enum IOResult: Equatable {
    /// Bytes transferred; always > 0 except for a write of an empty buffer.
    case bytes(Int)
    /// Nothing transferred: try again when the fd is ready in the `wants`
    /// direction (TLS may need the other direction than the call suggests).
    case wouldBlock
    /// The peer closed (read side only).
    case eof
    /// Anything else: the failed call and its errno or TLS reason. A write
    /// to a closed pipe or socket `isBrokenPipe`, which callers treat as a quiet end.
    case error(IOError)
}
