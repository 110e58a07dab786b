import WSCore
import WSJSON
import WSTerminal
import WSTransport
import WSMessages

/// Which way a message in the transcript went.
public enum TranscriptDirection: Sendable { case sent, received }

/// How messages are drawn (`/pretty`, `/compact`).
enum TranscriptMode: Equatable, Sendable {
    /// One row when the message fits the terminal's width, else
    /// pretty-printed (JSONLayout); a message taller than the screen folded.
    case pretty
    /// Every message on one row, cut with "…" at the terminal's edge.
    case compact
}

/// Turns messages and notes into the transcript lines printed above the
/// prompt: `> 12:01:02.123 …` for a message sent, `< …` for one received,
/// `- …` for a note; further rows are indented under the first.
///
/// The body of a message is laid out for the terminal's width (`columns`
/// less the 15 of the mark and the time; see `Header` for a narrow
/// terminal, where no row may be wider than the screen): JSON by `JSONLayout`, text that is
/// not JSON as a quoted JSON string after `text`, binary as its size and
/// its first bytes in hex. Nothing is ever written raw: what a terminal
/// would act on is escaped (TerminalEscaping). A message of more rows than
/// the screen has is folded: its first rows, then "… N more lines, /show K".
struct TranscriptFormatter {
    typealias Direction = TranscriptDirection

    let colors: Bool
    var columns: Int
    /// The screen's height; folding keeps a message within it.
    var screenRows: Int
    var mode = TranscriptMode.pretty

    static let hexPreviewBytes = 16
    /// Larger messages are not laid out in the transcript (a row of their
    /// start and their size); `/show` lays them out whole.
    static let layoutMaxBytes = 256 << 10

    private static let reset = RowWriter.reset
    private static let dim = RowWriter.dimStyle
    private static let sentMark = Array("\u{1B}[1;36m".utf8)       // bold cyan
    private static let receivedMark = Array("\u{1B}[1;35m".utf8)   // bold magenta
    private static let good = Array("\u{1B}[32m".utf8)
    private static let bad = Array("\u{1B}[31m".utf8)
    private static let pending = Array("\u{1B}[33m".utf8)

    /// Width of "> 12:01:02.123 ": where the body starts, and the indent of its later lines.
    static let margin = 15
    /// Fewer columns than this leave a body beside the mark and the time too
    /// narrow to read (10): the body goes under them (`Header`).
    static let inlineHeaderColumns = margin + 10
    /// Where a narrow terminal's body starts: under the mark.
    static let narrowIndent = 2

    /// Where a message's mark and time go, for the terminal's width: every
    /// row, theirs included, within the screen (a row wider than it would
    /// be wrapped by the terminal, and the rows after it misplaced).
    enum Header: Equatable {
        /// "> 12:01:02.123 " then the body, continued 15 columns in.
        case inline
        /// Under 25 columns: "> 12:01:02.123" on a row of its own, the body
        /// on the rows under it, 2 columns in.
        case above
        /// Under the 14 columns of the mark and the time: "> " and the body
        /// after it, 2 columns in; no time.
        case markOnly
    }

    var headerLayout: Header {
        if columns >= Self.inlineHeaderColumns { return .inline }
        return columns >= Self.margin - 1 ? .above : .markOnly
    }

    /// Columns before a body row.
    var bodyIndent: Int { headerLayout == .inline ? Self.margin : Self.narrowIndent }

    init(colors: Bool, columns: Int = 80, screenRows: Int = 24) {
        self.colors = colors
        self.columns = columns
        self.screenRows = screenRows
    }

    /// Columns for a message's body.
    var bodyWidth: Int { max(columns - bodyIndent, 1) }

    /// Rows a message may take before it is folded (the prompt and the
    /// status line keep theirs, and a header of its own its row).
    var foldRows: Int { max(screenRows - 3 - (headerLayout == .above ? 1 : 0), 4) }

    // MARK: messages

    /// A message's lines for the transcript. `number` is what `/show` takes
    /// (nil when the message is not kept); `full` lays out all of it, never folded.
    /// `replyNanos`: the message is a reply that came this long after its
    /// request (wspipe(1): INTERACTIVE MODE), shown after it.
    func message(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: Direction, at time: TimeOfDay,
                 number: Int? = nil, full: Bool = false, replyNanos: Int64? = nil) -> [UInt8] {
        var out = header(mark: direction == .sent ? ">" : "<",
                         style: direction == .sent ? Self.sentMark : Self.receivedMark, time: time)
        var writer = RowWriter(width: bodyWidth, colors: colors)
        var laidOut = true
        if binary {
            if full { writeHexDump(payload, into: &writer) } else { writeBinary(payload, into: &writer) }
        } else {
            laidOut = writeText(payload, into: &writer, full: full)
        }
        var (rows, widths) = writer.finish()
        let laidOutRows = rows.count
        if !full { fold(&rows, laidOut: laidOut, size: payload.count, number: number) }
        if let replyNanos {
            appendLatency(replyNanos, to: &rows, lastWidth: rows.count == laidOutRows ? widths.last : nil)
        }
        appendRows(rows, to: &out)
        return out
    }

    /// "(reply in 12.3 ms)", dim, on the message's last row when it fits
    /// there, else on a row of its own.
    private func appendLatency(_ nanos: Int64, to rows: inout [[UInt8]], lastWidth: Int?) {
        let text = Array("(reply in \(LatencyHistogram.milliseconds(nanos)))".utf8)
        var styled: [UInt8] = colors ? Self.dim : []
        styled += text
        if colors { styled += Self.reset }
        if let lastWidth, !rows.isEmpty, lastWidth + 2 + text.count <= bodyWidth {
            rows[rows.count - 1] += [0x20, 0x20] + styled
        } else if text.count <= bodyWidth {
            rows.append(styled)
        }
    }

    /// Writes a text message; false when only its start was laid out (too large).
    private func writeText(_ payload: UnsafeRawBufferPointer, into writer: inout RowWriter, full: Bool) -> Bool {
        let whole = full || payload.count <= Self.layoutMaxBytes
        // /show lays a message out whole, /compact or not: its row was cut.
        let cut = mode == .compact && !full
        guard case .valid = JSONScanner.validate(payload) else {
            writeQuoted(payload, into: &writer, whole: whole, cut: cut)
            return whole
        }
        if !whole || cut {
            // One row of its start (a column takes a byte or more): the
            // tokenizer reads a value cut short safely.
            let start = UnsafeRawBufferPointer(rebasing: payload[..<Self.utf8Prefix(payload, maxBytes: 4 * writer.width)])
            JSONLayout(start).writeCompact(into: &writer, more: start.count < payload.count)
            return whole
        }
        if writeOneRow(payload, into: &writer) { return true }
        JSONLayout(payload).writePretty(into: &writer)
        return true
    }

    /// The common case: a compact message that fits on the row, coloured as
    /// stdout colours a line, without laying out tokens. False when it does not fit.
    private func writeOneRow(_ payload: UnsafeRawBufferPointer, into writer: inout RowWriter) -> Bool {
        // Not worth compacting what could only fit with a mass of blanks.
        guard payload.count <= 64 * writer.width else { return false }
        var compact: [UInt8] = []
        compact.reserveCapacity(payload.count)
        JSONScanner.compact(payload, into: &compact)
        guard compact.count <= 4 * writer.width else { return false }
        compact = TerminalEscaping.escaped(compact, in: .json)
        let columns = TextUnits.columns(compact)
        guard columns <= writer.room else { return false }
        if colors {
            var coloured: [UInt8] = []
            compact.withUnsafeBytes { JSONColorizer.append($0, to: &coloured) }
            writer.write(coloured, columns: columns)
        } else {
            writer.write(compact, columns: columns)
        }
        return true
    }

    /// Text that is not JSON: `text "…"`, the quoted string wrapped (pretty,
    /// and /show), or `cut` to its row (compact).
    private func writeQuoted(_ payload: UnsafeRawBufferPointer, into writer: inout RowWriter, whole: Bool,
                             cut: Bool) {
        let end = whole ? payload.count : Self.utf8Prefix(payload, maxBytes: Self.layoutMaxBytes)
        var quoted: [UInt8] = []
        JSONScanner.appendQuoted(UnsafeRawBufferPointer(rebasing: payload[..<end]), into: &quoted)
        quoted = TerminalEscaping.escaped(quoted, in: .json)
        writer.write(Array("text ".utf8), columns: 5, style: .dim)
        if cut {
            if !writer.writeCut(quoted, columns: TextUnits.columns(quoted), style: .string) { writer.writeEllipsis() }
        } else {
            writer.writeWrapping(quoted, style: .string, indent: JSONLayout.indent, isString: true)
        }
    }

    private func writeBinary(_ payload: UnsafeRawBufferPointer, into writer: inout RowWriter) {
        var text = "binary \(payload.count) byte" + (payload.count == 1 ? "" : "s")
        if payload.count > 0 {
            text += ": " + payload.prefix(Self.hexPreviewBytes).map { TerminalEscaping.hex($0) }.joined(separator: " ")
            if payload.count > Self.hexPreviewBytes { text += " …" }
        }
        let bytes = Array(text.utf8)
        if !writer.writeCut(bytes, columns: TextUnits.columns(bytes), style: .plain) { writer.writeEllipsis() }
    }

    /// `/show` of a binary message: its size, then 16 bytes a row with their
    /// offset (8, 4, 2 or 1 on a terminal too narrow for 16).
    private func writeHexDump(_ payload: UnsafeRawBufferPointer, into writer: inout RowWriter) {
        let size = Array("binary \(payload.count) byte\(payload.count == 1 ? "" : "s")".utf8)
        if !writer.writeCut(size, columns: size.count, style: .plain) { writer.writeEllipsis() }
        // "00000010  " then "xx " a byte, the last without its blank.
        var perRow = 16
        while perRow > 1 && 10 + 3 * perRow - 1 > writer.width { perRow /= 2 }
        var offset = 0
        while offset < payload.count {
            let row = payload[offset..<min(offset + perRow, payload.count)]
            let hexOffset = String(offset, radix: 16)
            let text = String(repeating: "0", count: max(0, 8 - hexOffset.count)) + hexOffset + "  "
                + row.map { TerminalEscaping.hex($0) }.joined(separator: " ")
            writer.newRow()
            writer.writeWrapping(Array(text.utf8), style: .plain, indent: 0)
            offset += perRow
        }
    }

    /// A message on the writer's current row, cut with "…" at its end (the /find list).
    private func writeSummary(_ payload: UnsafeRawBufferPointer, binary: Bool, into writer: inout RowWriter) {
        if binary { return writeBinary(payload, into: &writer) }
        let start = UnsafeRawBufferPointer(rebasing: payload[..<Self.utf8Prefix(payload, maxBytes: 4 * bodyWidth)])
        if case .valid = JSONScanner.validate(payload) {
            JSONLayout(start).writeCompact(into: &writer, more: start.count < payload.count)
            return
        }
        var compact = self
        compact.mode = .compact
        compact.writeQuoted(start, into: &writer, whole: true, cut: true)
    }

    /// Cuts `rows` to `foldRows`, the last saying how much is not shown.
    private func fold(_ rows: inout [[UInt8]], laidOut: Bool, size: Int, number: Int?) {
        guard rows.count > foldRows || !laidOut else { return }
        let show = number.map { ", /show \($0)" } ?? " (no longer kept)"
        let text: String
        if laidOut {
            let hidden = rows.count - (foldRows - 1)
            rows.removeLast(hidden)
            text = "… \(hidden) more lines" + show
        } else {
            text = "… \(size) bytes in all" + show
        }
        var writer = RowWriter(width: bodyWidth, colors: colors)
        let bytes = Array(text.utf8)
        if !writer.writeCut(bytes, columns: TextUnits.columns(bytes), style: .dim) { writer.writeEllipsis() }
        rows.append(writer.finish().rows[0])
    }

    /// Appends the rows, each after the body's indent but the first (which
    /// the header placed), CR LF after each.
    private func appendRows(_ rows: [[UInt8]], to out: inout [UInt8]) {
        let lineBreak: [UInt8] = [0x0D, 0x0A] + Array(repeating: 0x20, count: bodyIndent)
        for (k, row) in rows.enumerated() {
            if k > 0 { out.append(contentsOf: lineBreak) }
            out.append(contentsOf: row)
        }
        out.append(contentsOf: [0x0D, 0x0A])
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

    /// A note of several lines (the /help text) or any other text of ours,
    /// each line wrapped at the terminal's width under the margin.
    func note(text: String, style: [UInt8]? = nil, at time: TimeOfDay) -> [UInt8] {
        var out = header(mark: "-", style: Self.dim, time: time)
        var writer = RowWriter(width: bodyWidth, colors: colors)
        for (k, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if k > 0 { writer.newRow() }
            writer.writeProse(Array(line.utf8), style: style.map { .sgr($0) } ?? .plain, indent: 0)
        }
        appendRows(writer.finish().rows, to: &out)
        return out
    }

    /// Rows of our own (the /find list), under a note's mark and time.
    func note(rows: [[UInt8]], at time: TimeOfDay) -> [UInt8] {
        var out = header(mark: "-", style: Self.dim, time: time)
        appendRows(rows, to: &out)
        return out
    }

    /// `/find`: a heading, then a row for each message: its number, its
    /// direction, its time, and as much of it as fits.
    func listing(heading: String, entries: [Transcript.Entry], at time: TimeOfDay) -> [UInt8] {
        var writer = RowWriter(width: bodyWidth, colors: colors)
        writer.writeProse(Array(heading.utf8), style: .plain, indent: 0)
        for entry in entries {
            writer.newRow()
            let mark = "#\(entry.number) \(entry.direction == .sent ? ">" : "<") "
            // The time only where it leaves room for some of the message.
            var label = Array((mark + "\(entry.time) ").utf8)
            if label.count + Self.summaryMinimum > writer.width { label = Array(mark.utf8) }
            guard writer.writeCut(label, columns: label.count, style: .dim) else {
                writer.writeEllipsis()
                continue
            }
            entry.payload.withUnsafeBytes { writeSummary($0, binary: entry.binary, into: &writer) }
        }
        return note(rows: writer.finish().rows, at: time)
    }

    /// Columns of a message a /find row keeps for it before it drops the time.
    static let summaryMinimum = 10

    /// `/help`: the commands, then the keys, the descriptions in a column
    /// of their own (below the usage on a narrow terminal).
    func help(at time: TimeOfDay) -> [UInt8] {
        var writer = RowWriter(width: bodyWidth, colors: colors)
        let usageWidth = (InteractiveHelp.commands + InteractiveHelp.keys).map(\.usage.count).max() ?? 0
        let column = usageWidth + 2 <= bodyWidth / 2 ? usageWidth + 2 : min(4, bodyWidth / 2)
        func write(_ entries: [InteractiveHelp.Entry]) {
            for entry in entries {
                if writer.column > 0 { writer.newRow() }
                writer.writeProse(Array(entry.usage.utf8), style: .punctuation, indent: 0)
                if writer.column + 1 > column { writer.newRow(indent: column) } else { writer.blanks(column - writer.column) }
                writer.writeProse(Array(entry.text.utf8), style: .plain, indent: column)
            }
        }
        write(InteractiveHelp.commands)
        writer.newRow()
        writer.write(Array("Keys:".utf8), columns: 5, style: .plain)
        write(InteractiveHelp.keys)
        return note(rows: writer.finish().rows, at: time)
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

    /// The mark and the time, up to where the body's first row starts.
    private func header(mark: String, style: [UInt8], time: TimeOfDay) -> [UInt8] {
        var out: [UInt8] = []
        if colors { out.append(contentsOf: style) }
        out.append(contentsOf: Array(mark.utf8))
        if colors { out.append(contentsOf: Self.reset) }
        out.append(0x20)
        if headerLayout == .markOnly { return out }
        if colors { out.append(contentsOf: Self.dim) }
        out.append(contentsOf: Array(time.description.utf8))
        if colors { out.append(contentsOf: Self.reset) }
        if headerLayout == .above {
            out.append(contentsOf: [0x0D, 0x0A] + Array(repeating: 0x20, count: Self.narrowIndent))
        } else {
            out.append(0x20)
        }
        return out
    }
}
