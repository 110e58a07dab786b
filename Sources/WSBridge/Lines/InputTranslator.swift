import WSCore

/// Turns stdin lines into outgoing messages (wspipe(1): LINES AND MESSAGES, "Outgoing"): validates
/// JSON, unwraps `{"$text":…}` / `{"$binary":…}`, joins a pretty-printed value
/// spread over several lines, and reports every line it cannot send with its
/// position, so that no line is ever dropped silently.
struct InputTranslator {
    struct Rejection {
        var line: Int
        var column: Int
        var reason: String
        var message: String { "stdin:\(line):\(column): \(reason)" }
    }

    enum Outcome { case sent, skipped, pending, rejected(Rejection) }

    let format: LineFormat
    let lenient: Bool
    /// Largest value accepted while joining lines; beyond it the value is rejected.
    let maxPendingBytes: Int

    private(set) var lineNumber = 0
    /// A JSON value not finished yet (its lines joined with '\n').
    private var pending: [UInt8] = []
    private var pendingFirstLine = 0
    /// Reused for compacted JSON.
    private var scratch: [UInt8] = []
    private var envelopes = EnvelopeDecoder()

    init(format: LineFormat, lenient: Bool, maxPendingBytes: Int) {
        self.format = format
        self.lenient = lenient
        self.maxPendingBytes = maxPendingBytes
    }

    var hasPendingValue: Bool { !pending.isEmpty }

    mutating func translate(_ line: UnsafeRawBufferPointer, _ send: (OutgoingMessage) -> Void) -> Outcome {
        lineNumber += 1
        switch format {
        case .text:
            // A text frame must be UTF-8 (RFC 6455 §5.6): another byte would
            // make the peer fail the connection, so the line is refused here.
            guard UTF8Validator.isValid(line) else {
                return .rejected(Rejection(line: lineNumber, column: 1, reason: "not valid UTF-8 (-b sends lines as binary)"))
            }
            send(.text(line)); return .sent
        case .binary:
            send(.binary(line)); return .sent
        case .json:
            if pending.isEmpty && line.isEmpty { return .skipped }
            return pending.isEmpty ? translateLine(line, send) : continuePending(line, send)
        }
    }

    /// stdin ended: a value still unfinished is reported, never dropped.
    mutating func finish(_ send: (OutgoingMessage) -> Void) -> Outcome? {
        guard !pending.isEmpty else { return nil }
        defer { pending.removeAll(keepingCapacity: false) }
        let outcome: Outcome = pending.withUnsafeBytes { bytes in
            switch JSONScanner.validate(bytes) {
            case .valid(let needsCompaction):
                return sendJSON(bytes, needsCompaction: needsCompaction, firstLine: pendingFirstLine, send)
            case .incomplete(let e), .invalid(let e):
                return reject(e, firstLine: pendingFirstLine, raw: bytes, send)
            }
        }
        return outcome
    }

    private mutating func translateLine(_ line: UnsafeRawBufferPointer, _ send: (OutgoingMessage) -> Void) -> Outcome {
        switch JSONScanner.validate(line) {
        case .valid(let needsCompaction):
            return sendJSON(line, needsCompaction: needsCompaction, firstLine: lineNumber, send)
        case .invalid(let e):
            return reject(e, firstLine: lineNumber, raw: line, send)
        case .incomplete(let e):
            // Keep the line only if more lines can complete it: a line that
            // ends inside a string never can (raw newlines are not allowed there).
            pending.append(contentsOf: line)
            pending.append(10)
            pendingFirstLine = lineNumber
            let joinable = pending.withUnsafeBytes { bytes -> Bool in
                if case .incomplete = JSONScanner.validate(bytes) { return true }
                return false
            }
            if joinable { return .pending }
            pending.removeAll(keepingCapacity: true)
            return reject(e, firstLine: lineNumber, raw: line, send)
        }
    }

    private mutating func continuePending(_ line: UnsafeRawBufferPointer, _ send: (OutgoingMessage) -> Void) -> Outcome {
        pending.append(contentsOf: line)
        pending.append(10)
        // A top-level object or array can only end on a line whose last
        // non-blank byte closes it; skipping the other lines keeps a long
        // pretty-printed document from being rescanned once per line.
        guard endsWithCloser(line) || pending.count > maxPendingBytes else { return .pending }
        let first = pendingFirstLine
        let outcome: Outcome = pending.withUnsafeBytes { bytes in
            switch JSONScanner.validate(bytes) {
            case .valid(let needsCompaction):
                return sendJSON(bytes, needsCompaction: needsCompaction, firstLine: first, send)
            case .invalid(let e):
                return reject(e, firstLine: first, raw: bytes, send)
            case .incomplete(let e):
                if bytes.count <= maxPendingBytes { return .pending }
                var tooLong = e
                tooLong.reason = "unterminated JSON value longer than \(maxPendingBytes) bytes"
                return reject(tooLong, firstLine: first, raw: bytes, send)
            }
        }
        if case .pending = outcome { return outcome }
        pending.removeAll(keepingCapacity: false)
        return outcome
    }

    private func endsWithCloser(_ line: UnsafeRawBufferPointer) -> Bool {
        var i = line.count - 1
        while i >= 0, line[i] == 32 || line[i] == 9 || line[i] == 13 { i -= 1 }
        return i >= 0 && (line[i] == UInt8(ascii: "}") || line[i] == UInt8(ascii: "]"))
    }

    private mutating func reject(_ e: JSONError, firstLine: Int, raw: UnsafeRawBufferPointer,
                                 _ send: (OutgoingMessage) -> Void) -> Outcome {
        if lenient { send(.text(raw)); return .sent }
        return .rejected(Rejection(line: firstLine + e.line - 1, column: e.column, reason: e.reason))
    }

    private mutating func sendJSON(_ json: UnsafeRawBufferPointer, needsCompaction: Bool, firstLine: Int,
                                   _ send: (OutgoingMessage) -> Void) -> Outcome {
        // The cheap test first: most lines are no envelope.
        if EnvelopeDecoder.mayBeEnvelope(json) {
            let enveloped: Outcome? = envelopes.decode(json) { outcome in
                switch outcome {
                case .notEnvelope: return nil
                case .text(let text): send(.text(text)); return .sent
                case .binary(let bytes): send(.binary(bytes)); return .sent
                case .invalidBase64(let offset):
                    // Columns are 1-based: the first byte inside the quotes.
                    return .rejected(Rejection(line: firstLine, column: offset + 1, reason: "invalid base64 in $binary"))
                }
            }
            if let enveloped { return enveloped }
        }
        if needsCompaction {
            scratch.removeAll(keepingCapacity: true)
            JSONScanner.compact(json, into: &scratch)
            scratch.withUnsafeBytes { send(.text($0)) }
        } else {
            send(.text(json))
        }
        return .sent
    }
}
