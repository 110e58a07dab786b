import WSJSON
import WSCore
import WSMessages

/// One line of a --record file (wspipe(1): SCRIPTED PEER):
/// `{"t_ms":T,"dir":"out"|"in"|"event","conn":C,"msg":M}` and, for a
/// message wspipe made itself from a flag, `"src":"answer"` (or
/// "heartbeat", "on_connect"). T counts milliseconds from the start of the
/// run; C is the connection (client mode: 1 for the first, 2 after the
/// first reconnect...) or the client's id (server mode).
///
/// M is the message as a JSON value that gives back its exact bytes: text
/// that is compact JSON (no line break, no blank around it, no envelope) as
/// itself, other text as `{"$text":"..."}`, binary as `{"$binary":"..."}`;
/// an event is its event object.
enum RecordLine {
    enum Direction: String {
        case out, `in`, event
    }

    /// How a text message is written: as the JSON it is when that gives
    /// its bytes back, else in a `$text` envelope (`exact`); always in the
    /// envelope (`envelope`: with --codec, where a JSON line stands for a
    /// binary message); or as itself (`value`: the compact JSON --codec
    /// made of a binary message, which is no `$text`/`$binary` envelope).
    enum TextForm {
        case exact, envelope, value
    }

    static func message(tMs: Int64, _ direction: Direction, conn: Int, _ message: OutgoingMessage,
                        source: MessageSource = .input, textForm: TextForm = .exact) -> [UInt8] {
        var line = start(tMs: tMs, direction, conn: conn)
        switch message {
        case .text(let text):
            switch textForm {
            case .exact: appendText(text, into: &line)
            case .envelope: appendTextEnvelope(text, into: &line)
            case .value: line.append(contentsOf: text)
            }
        case .binary(let bytes): appendBinary(bytes, into: &line)
        }
        if source != .input {
            line.append(contentsOf: #","src":""#.utf8)
            line.append(contentsOf: source.rawValue.utf8)
            line.append(UInt8(ascii: "\""))
        }
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    /// `event`: an event line (with or without its newline).
    static func event(tMs: Int64, conn: Int, _ event: [UInt8]) -> [UInt8] {
        var line = start(tMs: tMs, .event, conn: conn)
        line.append(contentsOf: event.last == 0x0A ? event.dropLast() : event[...])
        line.append(contentsOf: "}\n".utf8)
        return line
    }

    private static func start(tMs: Int64, _ direction: Direction, conn: Int) -> [UInt8] {
        var line: [UInt8] = []
        line.append(contentsOf: #"{"t_ms":"#.utf8)
        MessageTemplate.appendDecimal(tMs, into: &line)
        line.append(contentsOf: #","dir":""#.utf8)
        line.append(contentsOf: direction.rawValue.utf8)
        line.append(contentsOf: #"","conn":"#.utf8)
        MessageTemplate.appendDecimal(Int64(conn), into: &line)
        line.append(contentsOf: #","msg":"#.utf8)
        return line
    }

    /// Text as the JSON value that replays it exactly.
    static func appendText(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        if isExactJSON(text) { return out.append(contentsOf: text) }
        appendTextEnvelope(text, into: &out)
    }

    static func appendTextEnvelope(_ text: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"$text":"#.utf8)
        JSONScanner.appendQuoted(text, into: &out)   // a text frame's payload is UTF-8
        out.append(UInt8(ascii: "}"))
    }

    static func appendBinary(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        out.append(contentsOf: #"{"$binary":""#.utf8)
        Base64.encode(bytes, into: &out)
        out.append(contentsOf: #""}"#.utf8)
    }

    /// JSON that reads back as the same bytes: one line, nothing around it,
    /// and not something the replay would take for an envelope.
    private static func isExactJSON(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let first = text.first, let last = text.last, !JSONSkipper.isWhitespace(first),
              !JSONSkipper.isWhitespace(last), JSONScanner.validate(text) == .valid(needsCompaction: false)
        else { return false }
        return !EnvelopeDecoder.mayBeEnvelope(text)
    }
}
