import WSCore
import WSJSON
import WSTerminal
import WSTransport

/// Which way a message in the transcript went.
public enum TranscriptDirection: Sendable { case sent, received }

/// Turns messages and notes into the transcript lines printed above the
/// prompt: `> 12:01:02.123 …` for a message sent, `< …` for one received,
/// `- …` for a note; further lines are indented under the first.
///
/// A JSON message is pretty-printed (and coloured) when that stays readable
/// (at most `prettyMaxLines` lines and `prettyMaxBytes` bytes), compact
/// otherwise; text that is not JSON is shown as a quoted JSON string after
/// `text`; binary as its size and the first bytes in hex. Nothing is ever
/// written raw: control characters are escaped, and a long message is cut
/// after `displayMaxBytes` bytes with its full size.
struct TranscriptFormatter {
    typealias Direction = TranscriptDirection

    let colors: Bool
    static let prettyMaxLines = 20
    static let prettyMaxBytes = 2048
    static let displayMaxBytes = 4096
    static let hexPreviewBytes = 16

    private static let reset = Array("\u{1B}[0m".utf8)
    private static let dim = Array("\u{1B}[2m".utf8)
    private static let sentMark = Array("\u{1B}[1;36m".utf8)       // bold cyan
    private static let receivedMark = Array("\u{1B}[1;35m".utf8)   // bold magenta
    private static let good = Array("\u{1B}[32m".utf8)
    private static let bad = Array("\u{1B}[31m".utf8)
    private static let pending = Array("\u{1B}[33m".utf8)

    /// Width of "> 12:01:02.123 ": where the body starts, and the indent of its later lines.
    static let margin = 15
    private static let lineBreak: [UInt8] = [0x0D, 0x0A] + Array(repeating: 0x20, count: margin)

    // MARK: messages

    func message(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: Direction, at time: TimeOfDay) -> [UInt8] {
        var out = header(mark: direction == .sent ? ">" : "<",
                         style: direction == .sent ? Self.sentMark : Self.receivedMark, time: time)
        if binary {
            appendBinary(payload, to: &out)
        } else {
            appendText(payload, to: &out)
        }
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

    private func appendText(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var body: [UInt8] = []
        // Only the start of a large message is shown: only the start is formatted.
        var inputCut = false
        switch JSONScanner.validate(payload) {
        case .valid:
            if payload.count <= 16 * Self.prettyMaxBytes {
                let lines = JSONScanner.appendPretty(payload, into: &body)
                if lines > Self.prettyMaxLines || body.count > Self.prettyMaxBytes { body.removeAll() }
            }
            if body.isEmpty {
                let end = Self.utf8Prefix(payload, maxBytes: 16 * Self.displayMaxBytes)
                inputCut = end < payload.count
                JSONScanner.compact(UnsafeRawBufferPointer(rebasing: payload[..<end]), into: &body)
            }
        case .invalid, .incomplete:
            appendLabel("text ", to: &out)
            let end = Self.utf8Prefix(payload, maxBytes: Self.displayMaxBytes)
            inputCut = end < payload.count
            JSONScanner.appendQuoted(UnsafeRawBufferPointer(rebasing: payload[..<end]), into: &body)
        }
        let end = Self.utf8Prefix(body, maxBytes: Self.displayMaxBytes)
        let cut = inputCut || end < body.count
        body.removeSubrange(end...)
        body = TerminalEscaping.escaped(body, in: .json)
        appendIndented(colored(body), to: &out)
        if cut { appendLabel(" … (\(payload.count) bytes)", to: &out) }
    }

    private func appendBinary(_ payload: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var text = "binary \(payload.count) byte" + (payload.count == 1 ? "" : "s")
        if payload.count > 0 {
            text += ": " + payload.prefix(Self.hexPreviewBytes).map { TerminalEscaping.hex($0) }.joined(separator: " ")
            if payload.count > Self.hexPreviewBytes { text += " …" }
        }
        out.append(contentsOf: Array(text.utf8))
    }

    private func colored(_ json: [UInt8]) -> [UInt8] {
        guard colors else { return json }
        var out: [UInt8] = []
        json.withUnsafeBytes { JSONColorizer.append($0, to: &out) }
        return out
    }

    /// Appends `body`, each "\n" becoming CR LF and the margin.
    private func appendIndented(_ body: [UInt8], to out: inout [UInt8]) {
        for b in body {
            if b == 0x0A { out.append(contentsOf: Self.lineBreak) } else { out.append(b) }
        }
    }

    /// Length of the longest prefix of `bytes` of at most `maxBytes` that does
    /// not end inside a UTF-8 sequence.
    static func utf8Prefix(_ bytes: some RandomAccessCollection<UInt8>, maxBytes: Int) -> Int {
        guard bytes.count > maxBytes else { return bytes.count }
        var end = maxBytes
        while end > 0 && bytes[bytes.index(bytes.startIndex, offsetBy: end)] & 0xC0 == 0x80 { end -= 1 }
        return end
    }

    // MARK: notes

    func note(_ note: ConsoleNote, at time: TimeOfDay) -> [UInt8] {
        let (text, style) = Self.describe(note)
        return self.note(text: text, style: style, at: time)
    }

    /// A note of several lines (the /help text) or any other text of ours.
    func note(text: String, style: [UInt8]? = nil, at time: TimeOfDay) -> [UInt8] {
        var out = header(mark: "-", style: Self.dim, time: time)
        if colors, let style { out.append(contentsOf: style) }
        appendIndented(Array(text.utf8), to: &out)
        if colors, style != nil { out.append(contentsOf: Self.reset) }
        out.append(contentsOf: [0x0D, 0x0A])
        return out
    }

    private static func describe(_ note: ConsoleNote) -> (String, [UInt8]?) {
        switch note {
        case .connecting(let url, let attempt):
            return ("connecting to \(safe(url))" + (attempt > 1 ? " (attempt \(attempt))" : ""), pending)
        case .connected(let url, let status, let subprotocol, let extensions):
            var details = ["HTTP \(status)"]
            if let subprotocol { details.append("subprotocol \(safe(subprotocol))") }
            if let extensions, !extensions.isEmpty { details.append("extensions \(safe(extensions))") }
            return ("connected to \(safe(url)) (" + details.joined(separator: ", ") + ")", good)
        case .disconnected(let code, let reason, let by):
            var text = "disconnected: \(code)" + closeCodeName(code)
            if !reason.isEmpty { text += " \"\(safe(reason))\"" }
            text += by.map { ", closed by the \(safe($0))" } ?? ", connection lost"
            return (text, bad)
        case .reconnecting(let attempt, let delayMillis):
            return ("reconnecting in \(seconds(delayMillis)) (attempt \(attempt))", pending)
        case .failed(let message):
            return (safe(message), bad)
        case .pong(let payload, let nanos):
            return ("pong" + (payload.isEmpty ? "" : " \"\(safe(payload))\"") + " in \(milliseconds(nanos))", good)
        case .info(let message):
            return (safe(message), nil)
        case .warning(let message):
            return (safe(message), bad)
        }
    }

    private static func closeCodeName(_ code: UInt16) -> String {
        switch code {
        case CloseCode.noStatus.rawValue: return " (no status code)"
        case CloseCode.abnormal.rawValue: return " (no Close frame)"
        default: return CloseCode(rawValue: code).name.map { " (\($0))" } ?? ""
        }
    }

    private static func safe(_ text: String) -> String { TerminalEscaping.escaping(text) }

    /// "2.5 s", "0.4 s": reconnect delays to a tenth of a second.
    static func seconds(_ millis: Int) -> String {
        let tenths = (max(millis, 0) + 50) / 100
        return "\(tenths / 10).\(tenths % 10) s"
    }

    /// "12.3 ms": round trips to a tenth of a millisecond.
    static func milliseconds(_ nanos: Int64) -> String {
        let tenths = (max(nanos, 0) + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) ms"
    }

    // MARK: pieces

    private func header(mark: String, style: [UInt8], time: TimeOfDay) -> [UInt8] {
        var out: [UInt8] = []
        if colors { out.append(contentsOf: style) }
        out.append(contentsOf: Array(mark.utf8))
        if colors { out.append(contentsOf: Self.reset) }
        out.append(0x20)
        if colors { out.append(contentsOf: Self.dim) }
        out.append(contentsOf: Array(time.description.utf8))
        if colors { out.append(contentsOf: Self.reset) }
        out.append(0x20)
        return out
    }

    private func appendLabel(_ label: String, to out: inout [UInt8]) {
        if colors { out.append(contentsOf: Self.dim) }
        out.append(contentsOf: Array(label.utf8))
        if colors { out.append(contentsOf: Self.reset) }
    }
}
