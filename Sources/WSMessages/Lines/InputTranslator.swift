import WSCore
import WSJSON
import WSCodecs

/// Turns stdin lines into outgoing messages (wspipe(1): LINES AND MESSAGES, "Outgoing"): validates
/// JSON, unwraps `{"$text":…}` / `{"$binary":…}`, joins a pretty-printed value
/// spread over several lines, and reports every line it cannot send with its
/// position, so that no line is ever dropped silently.
package struct InputTranslator {
    package struct Rejection {
        package var line: Int
        package var column: Int
        package var reason: String
        package var message: String { "stdin:\(line):\(column): \(reason)" }
    }

    package enum Outcome {
        case sent, skipped, pending, rejected(Rejection)
        /// The line could not continue a pending multi-line value: that value
        /// was reported at its first line, and the lines after it were
        /// translated again on their own. Their outcomes, in order.
        case several([Outcome])

        /// Calls `body` with every rejection this outcome holds, in order.
        package func forEachRejection(_ body: (Rejection) -> Void) {
            switch self {
            case .rejected(let rejection): body(rejection)
            case .several(let outcomes): for outcome in outcomes { outcome.forEachRejection(body) }
            case .sent, .skipped, .pending: break
            }
        }
    }

    package let format: LineFormat
    let lenient: Bool
    /// Largest value accepted while joining lines; beyond it the value is rejected.
    let maxPendingBytes: Int
    /// What the report of a text line that is not UTF-8 suggests.
    package var invalidTextHint = "-b sends lines as binary"
    /// --socketio: a JSON line is sent only if it is a Socket.IO event (or
    /// an ack's answer); envelopes are no lines of its (wspipe(1): SOCKET.IO).
    package var socketIOLines = false

    private(set) var lineNumber = 0
    /// A JSON value not finished yet.
    private var pending = PendingValue()
    /// Reused for compacted JSON.
    private var scratch: [UInt8] = []
    private var envelopes = EnvelopeDecoder()
    /// --codec: a JSON line (other than a `$text` or `$binary` envelope) is
    /// sent as a binary message holding its value in this format
    /// (wspipe(1): BINARY CODECS). A class: a copy of the translator shares it.
    private let encoder: Transcoder?
    /// --codec: a JSON line this says yes to is sent as the JSON text itself,
    /// for its owner to look into first (a server's `"$client"` lines, which
    /// it encodes once the member is removed).
    package var keepsAsJSON: ((UnsafeRawBufferPointer) -> Bool)?

    package init(format: LineFormat, lenient: Bool, maxPendingBytes: Int, codec: BinaryFormat? = nil) {
        self.format = format
        self.lenient = lenient
        self.maxPendingBytes = maxPendingBytes
        encoder = codec.map { Transcoder($0, maxJSONBytes: Int.max / 2) }
    }

    /// `verdict`: the JSON check's answer for the line when its reader made
    /// it (`JSONScanner.quickCheck`: 0 or 1, valid), -1 when not known.
    package mutating func translate(_ line: UnsafeRawBufferPointer, verdict: Int = -1,
                                    _ send: (OutgoingMessage) -> Void) -> Outcome {
        lineNumber += 1
        switch format {
        case .text:
            // A text frame must be UTF-8 (RFC 6455 §5.6): another byte would
            // make the peer fail the connection, so the line is refused here.
            guard UTF8Validator.isValid(line) else {
                return .rejected(Rejection(line: lineNumber, column: 1, reason: "not valid UTF-8 (\(invalidTextHint))"))
            }
            send(.text(line)); return .sent
        case .binary:
            send(.binary(line)); return .sent
        case .json:
            // Known valid, not part of a value spread over lines: as
            // `translateLine` would send it, without checking it again.
            if verdict >= 0 && pending.isEmpty {
                return sendJSON(line, needsCompaction: verdict == 1, firstLine: lineNumber, send)
            }
            return translateJSON(line, send)
        }
    }

    private mutating func translateJSON(_ line: UnsafeRawBufferPointer, _ send: (OutgoingMessage) -> Void) -> Outcome {
        if pending.isEmpty && line.isEmpty { return .skipped }
        return pending.isEmpty ? translateLine(line, send) : continuePending(line, send)
    }

    /// stdin ended: a value still unfinished is reported, never dropped. When
    /// a later line of it is a complete value on its own, the first line was
    /// a stray one: it alone is reported and the rest translated again.
    package mutating func finish(_ send: (OutgoingMessage) -> Void) -> Outcome? {
        guard !pending.isEmpty else { return nil }
        var laterLineIsValue = false
        pending.forEachLaterLine { _, line in
            if !laterLineIsValue, case .valid = JSONScanner.validate(line) { laterLineIsValue = true }
        }
        if laterLineIsValue {
            let outcome = abandonPending(before: nil, send)
            guard let rest = finish(send) else { return outcome }
            return .several([outcome, rest])
        }
        let value = pending.take()
        return value.bytes.withUnsafeBytes { bytes in
            switch JSONScanner.validate(bytes) {
            case .valid(let needsCompaction):
                return sendJSON(bytes, needsCompaction: needsCompaction, firstLine: value.firstLine, send)
            case .incomplete(let e), .invalid(let e):
                return reject(e, firstLine: value.firstLine, raw: bytes, send)
            }
        }
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
            pending.start(line, number: lineNumber)
            let joinable = pending.bytes.withUnsafeBytes { bytes -> Bool in
                if case .incomplete = JSONScanner.validate(bytes) { return true }
                return false
            }
            if joinable { return .pending }
            _ = pending.take()
            return reject(e, firstLine: lineNumber, raw: line, send)
        }
    }

    /// A line while a value is pending. The joined text is validated only on
    /// a line that may end the value (its last non-blank byte closes an
    /// object or array) or that is a complete value on its own (it may be
    /// NDJSON after a stray line), so a long pretty-printed document is not
    /// rescanned once per line.
    private mutating func continuePending(_ line: UnsafeRawBufferPointer, _ send: (OutgoingMessage) -> Void) -> Outcome {
        let lineStart = pending.count
        pending.append(line)
        var alone: Bool?
        func isValueAlone() -> Bool {
            if let alone { return alone }
            if case .valid = JSONScanner.validate(line) { alone = true } else { alone = false }
            return alone!
        }
        guard endsWithCloser(line) || pending.count > maxPendingBytes || isValueAlone() else { return .pending }
        let first = pending.firstLine
        let validation = pending.bytes.withUnsafeBytes { JSONScanner.validate($0) }
        switch validation {
        case .valid(let needsCompaction):
            let value = pending.take()
            return value.bytes.withUnsafeBytes { sendJSON($0, needsCompaction: needsCompaction, firstLine: first, send) }
        case .incomplete:
            if pending.count <= maxPendingBytes { return .pending }
            // Reported where the value began.
            let tooLong = JSONError(offset: 0, line: 1, column: 1,
                                    reason: "unterminated JSON value longer than \(maxPendingBytes) bytes")
            let value = pending.take()
            return value.bytes.withUnsafeBytes { reject(tooLong, firstLine: first, raw: $0, send) }
        case .invalid(let e):
            // The value was a valid beginning until this line, which breaks
            // it and stands on its own: the first line was stray.
            if e.offset >= lineStart && isValueAlone() { return abandonPending(before: lineNumber, send) }
            let value = pending.take()
            return value.bytes.withUnsafeBytes { reject(e, firstLine: first, raw: $0, send) }
        }
    }

    /// Reports the pending value's first line as a value that never ended
    /// (line `breaking` could not continue it; nil at the end of input) and
    /// translates each later line again on its own, as if the first had not
    /// been there.
    private mutating func abandonPending(before breaking: Int?, _ send: (OutgoingMessage) -> Void) -> Outcome {
        let value = pending.take()
        let current = lineNumber
        let why = breaking.map { "line \($0) cannot continue it" } ?? "input ended"
        let stray = JSONError(offset: value.firstLineLength, line: 1, column: value.firstLineLength + 1,
                              reason: "unterminated JSON value (\(why))")
        var outcomes = [value.withFirstLine { reject(stray, firstLine: value.firstLine, raw: $0, send) }]
        value.forEachLaterLine { number, line in
            lineNumber = number
            outcomes.append(translateJSON(line, send))
        }
        lineNumber = current
        return .several(outcomes)
    }

    /// --codec: the line's value in the format, or why it has no form
    /// there (a `$int` out of MessagePack's range, bad base64 in `$bytes`…),
    /// reported at its line and column as an invalid line is.
    private func encode(_ json: UnsafeRawBufferPointer, with encoder: Transcoder, firstLine: Int,
                        _ send: (OutgoingMessage) -> Void) -> Outcome {
        do throws(CodecError) {
            send(.binary(try encoder.encode(json)))
            return .sent
        } catch {
            // (Column in characters, as for JSON errors.)
            var line = firstLine
            var column = 1
            for byte in json.prefix(max(0, min(error.offset, json.count))) {
                if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
            }
            return .rejected(Rejection(line: line, column: column, reason: error.reason + " (--codec \(encoder.format.rawValue))"))
        }
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
        if socketIOLines, let error = SocketIOLineCheck.check(json) {
            return .rejected(Rejection(line: firstLine, column: error.offset + 1, reason: error.reason))
        }
        if encoder != nil, let keepsAsJSON, keepsAsJSON(json) { return sendAsIs(json, needsCompaction: needsCompaction, send) }
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
                case .loneSurrogate(let offset):
                    let escape = String(decoding: json[offset ..< min(offset + 6, json.count)], as: UTF8.self)
                    return .rejected(Rejection(line: firstLine, column: offset + 1, reason: "invalid $text: lone surrogate \(escape)"))
                }
            }
            if let enveloped { return enveloped }
        }
        if let encoder { return encode(json, with: encoder, firstLine: firstLine, send) }
        return sendAsIs(json, needsCompaction: needsCompaction, send)
    }

    /// The JSON text as a text message, on one line.
    private mutating func sendAsIs(_ json: UnsafeRawBufferPointer, needsCompaction: Bool,
                                   _ send: (OutgoingMessage) -> Void) -> Outcome {
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
