/// Outcome of `JSONScanner.validate(_:)`.
public enum JSONValidation: Equatable, Sendable {
    /// Exactly one value (surrounding whitespace allowed). needsCompaction: the
    /// whitespace outside strings contains '\n' or '\r' (output must be one line).
    case valid(needsCompaction: Bool)
    /// Input ended inside a value (e.g. "{" or "[1,") - more lines could complete it.
    /// The reason is always "unexpected end of input", positioned at the end.
    case incomplete(JSONError)
    /// Not JSON: the error points at the first offending byte.
    case invalid(JSONError)

    /// True for `.valid`.
    public var isValid: Bool {
        if case .valid = self { return true }
        return false
    }

    /// The error of an incomplete or invalid text, nil when valid.
    public var error: JSONError? {
        switch self {
        case .valid: return nil
        case .incomplete(let error), .invalid(let error): return error
        }
    }
}
