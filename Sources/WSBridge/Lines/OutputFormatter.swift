import WSCore
import WSJSON
import WSTerminal
import WSMessages

/// Turns incoming messages into stdout bytes (wspipe(1): LINES AND MESSAGES, "Incoming"): in JSON
/// mode exactly one NDJSON line per message; in raw mode the payload and the
/// separator. Appends to the caller's buffer so a burst of messages becomes
/// one write(2).
struct OutputFormatter {
    let format: LineFormat
    let binaryOutput: BinaryOutputMode
    /// nil with --no-line: a message is written exactly as it arrived.
    let separator: UInt8?
    /// JSON lines for a person at a terminal get ANSI colours.
    var colorize = false
    /// The lines go to a terminal: the message's bytes are escaped
    /// (`TerminalEscaping`: JSON escapes in JSON mode, `\xHH` in raw mode);
    /// the separator is not.
    var escapesForTerminal = false

    private static let textPrefix = Array(#"{"$text":"#.utf8)
    private static let binaryPrefix = Array(#"{"$binary":""#.utf8)
    private static let binarySuffix = Array(#""}"#.utf8)

    func appendText(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        appendText(payload, verdict: -1, to: &out)
    }

    /// `verdict`: what the JSON check already answered for these bytes (an
    /// incoming message carries it), -1 when nothing is known.
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, to out: inout [UInt8]) {
        if forTerminal { return appendForTerminal(out: &out) { plain.appendText(payload, verdict: verdict, to: &$0) } }
        guard format == .json else {
            Self.append(payload, to: &out)
            if let separator { out.append(separator) }
            return
        }
        appendJSONLine(payload, JSONScanner.validate(payload, verdict: verdict), to: &out)
    }

    /// JSON mode, uncoloured, with the payload's validation at hand. A text
    /// that is not JSON, or that is JSON of an envelope's shape
    /// (`{"$binary":"3q2+7w=="}` sent as text), is written in a `$text`
    /// envelope: read back as stdin, every line gives back its message.
    @inline(__always)
    func appendJSONLine(_ payload: UnsafeRawBufferPointer, _ validation: JSONValidation, to out: inout [UInt8]) {
        switch validation {
        case .valid where Self.looksLikeEnvelope(payload):
            appendTextEnvelope(payload, to: &out)
        case .valid(needsCompaction: false):
            Self.append(payload, to: &out)
        case .valid(needsCompaction: true):
            JSONScanner.compact(payload, into: &out)
        case .invalid, .incomplete:
            appendTextEnvelope(payload, to: &out)
        }
        out.append(10)
    }

    /// Valid JSON that stdin would unwrap instead of sending as it is. The
    /// first test costs a few loads (most lines do not start `{"$`).
    @inline(__always)
    static func looksLikeEnvelope(_ json: UnsafeRawBufferPointer) -> Bool {
        EnvelopeDecoder.mayBeEnvelope(json) && EnvelopeDecoder.isEnvelope(json)
    }

    private func appendTextEnvelope(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(contentsOf: Self.textPrefix)
        JSONScanner.appendQuoted(payload, into: &out)
        out.append(UInt8(ascii: "}"))
    }

    /// --tag: the line with `"$client":N` put first (`ClientTag.insert`).
    /// The member goes into the plain line, before any escape or colour, so
    /// a line for a terminal is tagged like a line for a pipe.
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, taggedWith client: Int, to out: inout [UInt8]) {
        appendTagged(client, to: &out) { plain.appendText(payload, verdict: verdict, to: &$0) }
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer, taggedWith client: Int, to out: inout [UInt8]) {
        appendTagged(client, to: &out) { plain.appendBinary(payload, to: &$0) }
    }

    private func appendTagged(_ client: Int, to out: inout [UInt8], _ formatPlain: (inout [UInt8]) -> Void) {
        func tagged(_ line: inout [UInt8]) {
            let start = line.count
            formatPlain(&line)
            ClientTag.insert(client: client, into: &line, lineStart: start)
        }
        if forTerminal { appendForTerminal(out: &out, tagged) } else { tagged(&out) }
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        if forTerminal { return appendForTerminal(out: &out) { plain.appendBinary(payload, to: &$0) } }
        switch (format, binaryOutput) {
        case (.json, _):
            out.append(contentsOf: Self.binaryPrefix)
            Base64.encode(payload, into: &out)
            out.append(contentsOf: Self.binarySuffix)
            out.append(10)
        case (_, .raw):
            Self.append(payload, to: &out)
            if let separator { out.append(separator) }
        case (_, .base64):
            Base64.encode(payload, into: &out)
            if let separator { out.append(separator) }
        case (_, .drop):
            break
        }
    }

    /// One memcpy: appending an UnsafeRawBufferPointer as a sequence goes
    /// byte by byte.
    @inline(__always)
    private static func append(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        out.append(contentsOf: bytes.assumingMemoryBound(to: UInt8.self))
    }

    /// Lines made for a person: escaped, coloured, or both.
    var forTerminal: Bool { escapesForTerminal || (colorize && format == .json) }

    private var plain: OutputFormatter {
        var copy = self
        copy.colorize = false
        copy.escapesForTerminal = false
        return copy
    }

    /// The plain line, then its escapes (before the colours: the colourist's
    /// own escape sequences must stay), then its colours.
    private func appendForTerminal(out: inout [UInt8], _ formatLine: (inout [UInt8]) -> Void) {
        var line: [UInt8] = []
        formatLine(&line)
        guard !line.isEmpty else { return }
        if escapesForTerminal {
            let terminator = format == .json ? 10 : separator
            let bodyEnd = terminator != nil && line.last == terminator ? line.count - 1 : line.count
            var escaped: [UInt8] = []
            escaped.reserveCapacity(line.count + 16)
            line.withUnsafeBytes { bytes in
                TerminalEscaping.append(UnsafeRawBufferPointer(rebasing: bytes[..<bodyEnd]), to: &escaped,
                                        in: format == .json ? .json : .lines)
            }
            escaped.append(contentsOf: line[bodyEnd...])
            line = escaped
        }
        if colorize && format == .json {
            line.withUnsafeBytes { JSONColorizer.append($0, to: &out) }
        } else {
            out.append(contentsOf: line)
        }
    }
}
