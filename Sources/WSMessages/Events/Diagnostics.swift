import WSTransport
import WSTerminal

/// Everything wspipe says on stderr goes through here, as `wspipe: message`
/// lines (wspipe(1): OPTIONS, Diagnostics), so stdout only ever carries message lines.
/// Messages quote peers (close reasons, status lines, subprotocols, header
/// values): each is escaped (`TerminalEscaping`, one line) before it is
/// written or shown, whoever built it.
public final class Diagnostics {
    public enum Level: Int, Comparable, Sendable {
        /// Always shown: the reason wspipe stops with an error.
        case fatal = 0
        /// Problems that do not stop the run (a rejected input line).
        case warning = 1
        /// -v: the connection's lifecycle.
        case info = 2
        /// -vv: protocol detail.
        case debug = 3
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    public let threshold: Level
    /// Interactive mode: messages go here, to be shown above the prompt,
    /// instead of to stderr, where they would break the edit area.
    package var divert: ((Level, String) -> Void)?

    /// -q keeps only fatal errors; each -v adds a level.
    public init(verbosity: Int, quiet: Bool) {
        if quiet { threshold = .fatal }
        else { threshold = Level(rawValue: min(1 + verbosity, Level.debug.rawValue)) ?? .warning }
    }

    public func enabled(_ level: Level) -> Bool { level <= threshold }

    public func fatal(_ message: String) { emit(.fatal, message) }

    /// A fatal error with lines of detail below it (a rejected handshake's
    /// body), each escaped on its own and indented, so that none of them can
    /// pass for a line of wspipe's own.
    public func fatal(_ message: String, details: [String]) {
        emit(.fatal, message)
        for detail in details {
            let text = "  " + TerminalEscaping.escaping(detail)
            if let divert { divert(.fatal, text); continue }
            Array((text + "\n").utf8).withUnsafeBytes { Diagnostics.writeAll(2, $0) }
        }
    }
    public func warning(_ message: String) { emit(.warning, message) }
    public func info(_ message: @autoclosure () -> String) { if enabled(.info) { emit(.info, message()) } }
    public func debug(_ message: @autoclosure () -> String) { if enabled(.debug) { emit(.debug, message()) } }

    /// --trace lines: asked for explicitly, so shown whatever the verbosity.
    public func trace(_ message: String) { emit(.fatal, message) }

    private func emit(_ level: Level, _ message: String) {
        guard enabled(level) else { return }
        let message = TerminalEscaping.escaping(message)
        if let divert { return divert(level, message) }
        var line = Array("wspipe: ".utf8)
        line.append(contentsOf: message.utf8)
        line.append(10)
        line.withUnsafeBytes { Diagnostics.writeAll(2, $0) }
    }

    /// Writes every byte, waiting when the fd is a non-blocking pipe that is
    /// full (stderr, once routing made it so). A vanished fd is ignored:
    /// there is nothing better to do with a diagnostic that cannot be written.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        FD.writeAll(fd, bytes)
    }
}
