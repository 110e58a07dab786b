/// How many messages are in one state (unconfirmed, not sent, dropped), and
/// the range of stdin lines they came from, for the events, --stats and the
/// warnings (wspipe(1): RECONNECT AND REPLAY): `stdin:15259-16290`.
///
/// A message is counted with the tag it was sent with (`MessageTag`): a stdin
/// line number, `MessageTag.unnumbered` (counted, no line: a typed message),
/// or `MessageTag.uncounted` (an --on-connect message, sent again on every
/// connection; a message held for --ack, sent again until acknowledged).
/// The range spans the lines counted; lines in it that were never in this
/// state (invalid lines, lines confirmed on another connection) are possible
/// only when `count` is smaller than the range.
public struct LineTally: Equatable, Sendable {
    public private(set) var count = 0
    /// First and last stdin line counted; 0 when none was a stdin line.
    public private(set) var first = 0
    public private(set) var last = 0
    /// First and last line of the --replay file counted; 0 when none.
    public private(set) var replayFirst = 0
    public private(set) var replayLast = 0

    public init() {}

    /// `count` messages whose stdin lines run from `first` to `last` (0: none).
    init(count: Int, first: Int, last: Int) {
        self.count = count
        self.first = first
        self.last = last
    }

    public var isEmpty: Bool { count == 0 }

    /// Counts one message sent with `tag`. (Inlined: once per message uploaded.)
    @inline(__always)
    public mutating func add(tag: Int) {
        guard tag >= 0, tag & MessageTag.attachment == 0 else { return }
        count += 1
        let replayed = MessageTag.replayLine(of: tag)
        if replayed > 0 {
            if replayFirst == 0 || replayed < replayFirst { replayFirst = replayed }
            if replayed > replayLast { replayLast = replayed }
            return
        }
        let line = MessageTag.line(of: tag)
        guard line > 0 else { return }
        if first == 0 || line < first { first = line }
        if line > last { last = line }
    }

    /// Counts `count` messages without stdin lines.
    public mutating func add(unnumbered count: Int) {
        self.count += count
    }

    public mutating func add(_ other: LineTally) {
        count += other.count
        if other.first > 0 && (first == 0 || other.first < first) { first = other.first }
        if other.last > last { last = other.last }
        if other.replayFirst > 0 && (replayFirst == 0 || other.replayFirst < replayFirst) { replayFirst = other.replayFirst }
        if other.replayLast > replayLast { replayLast = other.replayLast }
    }

    /// This tally without `suffix`, the last messages it counted (lines
    /// only grow along a connection). The range then ends just before the
    /// suffix's first line: lines in between that were never counted (an
    /// invalid line) make `count` smaller than the range, as allowed.
    func droppingLast(_ suffix: LineTally) -> LineTally {
        guard suffix.count < count else { return LineTally() }
        guard suffix.first > 0 else { return LineTally(count: count - suffix.count, first: first, last: last) }
        let end = suffix.first - 1
        return LineTally(count: count - suffix.count, first: end >= first ? first : 0, last: end >= first ? end : 0)
    }

    /// `stdin:15259-16290`, `stdin:12`, `--replay:40-52` (lines of the
    /// recording), both, or nil when no line is counted.
    public var lines: String? {
        var parts: [String] = []
        if first > 0 { parts.append(first == last ? "stdin:\(first)" : "stdin:\(first)-\(last)") }
        if replayFirst > 0 {
            parts.append(replayFirst == replayLast ? "--replay:\(replayFirst)" : "--replay:\(replayFirst)-\(replayLast)")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// "1032 message(s) (stdin:15259-16290)".
    public var phrase: String {
        "\(count) message(s)" + (lines.map { " (\($0))" } ?? "")
    }
}

/// The tag a message is sent with: its stdin line (1, 2, ...), or one of these.
public enum MessageTag {
    /// Counted, but not from a stdin line (typed in the interactive mode).
    public static let unnumbered = 0
    /// Not counted: it is sent again anyway (--on-connect, held for --ack),
    /// or it is not the user's (a --relay copy of another client's message).
    public static let uncounted = -1
    /// Added to a counted tag: the message was written to an earlier
    /// connection, which dropped before its peer acknowledged it. Sent again,
    /// it is no longer "not sent" if the run ends before it goes out.
    public static let writtenBefore = 1 << 60
    /// Added to a counted tag (--socketio): the message is a Socket.IO packet
    /// already, sent again as it is (not translated again).
    public static let packet = 1 << 59
    /// Added to a counted tag (--socketio): a binary attachment of the packet
    /// before it, which counts for both (sent again with it, not counted).
    public static let attachment = 1 << 58

    /// Added to a line of the --replay file: the message is that line's
    /// (counted, and reported with the recording's line, not stdin's).
    public static let replayed = 1 << 57
    /// The bits of a counted tag below the marks above: the line number.
    static let lineMask = replayed - 1

    /// The tag of the message of line `number` of the --replay file.
    public static func replayed(line number: Int) -> Int { replayed | number }

    /// The stdin line of a counted tag (0: none, a replayed message included).
    public static func line(of tag: Int) -> Int {
        tag < 0 || tag & replayed != 0 ? 0 : tag & lineMask
    }

    /// The --replay file's line of a counted tag (0: none).
    public static func replayLine(of tag: Int) -> Int {
        tag < 0 || tag & replayed == 0 ? 0 : tag & lineMask
    }
}
