import WSCore
import WSTerminal

/// The interactive mode's commands (wspipe(1): INTERACTIVE MODE): a line
/// starting with "/" is a command, never a message; JSON cannot start with
/// "/", so no message is lost to this. A line starting with "//" is a message
/// starting with "/" (one slash removed), for raw text mode (-t), where a
/// message may well start with a slash.
enum SlashCommand: Equatable {
    case ping(String)
    case close(code: UInt16, reason: String)
    case binary(path: String)
    case text(String)
    case reconnect
    case help
    case quit

    /// What a submitted line is.
    enum Parsed: Equatable {
        /// Not a command: send the line as it is.
        case message
        /// "//…": send this text (the line without its first slash).
        case escapedMessage(String)
        case command(SlashCommand)
        /// A command that cannot run as typed; `offset` is the UTF-8 offset
        /// in the line of what is wrong, for the cursor.
        case error(String, offset: Int)
    }

    static let names = ["ping", "close", "binary", "text", "reconnect", "help", "quit"]

    /// The /help text.
    static let helpText = """
        /ping [TEXT]            send a ping; the pong shows the round trip
        /close [CODE [REASON]]  close the connection (default 1000)
        /binary FILE            send a file as one binary message
        /text TEXT              send TEXT as a text message, as it is
        /reconnect              drop the connection and connect again
        /quit                   close and exit (also Ctrl-D, or Ctrl-C on an empty line)
        //TEXT                  send a line starting with /
        Keys: Up/Down history, Ctrl-R search, Alt-Enter new line, Ctrl-C clear line
        """

    /// RFC 6455 §5.5: control frame payloads are at most 125 bytes; a Close
    /// frame's reason shares them with its 2-byte code.
    static let maxPingBytes = 125
    static let maxReasonBytes = 123

    static func parse(_ line: String) -> Parsed {
        guard line.hasPrefix("/") else { return .message }
        if line.hasPrefix("//") { return .escapedMessage(String(line.dropFirst())) }
        let body = line.dropFirst()
        let name = String(body.prefix { $0 != " " && $0 != "\n" })
        // The argument is everything after the single separator, as typed.
        let argument = String(body.dropFirst(name.count).dropFirst())
        let argumentOffset = 1 + name.utf8.count + 1
        switch name {
        case "ping":
            guard argument.utf8.count <= maxPingBytes else {
                return .error("a ping carries at most \(maxPingBytes) bytes", offset: argumentOffset + maxPingBytes)
            }
            return .command(.ping(argument))
        case "close": return parseClose(argument, offset: argumentOffset)
        case "binary":
            let path = trimmed(argument)
            guard !path.isEmpty else { return .error("usage: /binary FILE", offset: line.utf8.count) }
            return .command(.binary(path: path))
        case "text": return .command(.text(argument))
        case "reconnect", "help", "quit":
            guard trimmed(argument).isEmpty else {
                return .error("/\(name) takes no argument", offset: argumentOffset)
            }
            return .command(name == "quit" ? .quit : name == "help" ? .help : .reconnect)
        default:
            return .error(unknown(name), offset: 1)
        }
    }

    /// "/close", "/close 4000", "/close 4000 bye now".
    private static func parseClose(_ argument: String, offset: Int) -> Parsed {
        let rest = argument.drop { $0 == " " }
        let leading = argument.utf8.count - rest.utf8.count
        guard !rest.isEmpty else { return .command(.close(code: CloseCode.normal.rawValue, reason: "")) }
        let codeText = String(rest.prefix { $0 != " " })
        let reason = String(rest.dropFirst(codeText.count).drop { $0 == " " })
        guard let value = UInt16(codeText), CloseCode(rawValue: value).isValidOnWire else {
            return .error("close code must be 1000-1003, 1007-1014 or 3000-4999 (not \(TerminalEscaping.escaping(codeText)))",
                          offset: offset + leading)
        }
        guard reason.utf8.count <= maxReasonBytes else {
            let reasonOffset = offset + leading + codeText.utf8.count + 1
            return .error("a close reason has at most \(maxReasonBytes) bytes", offset: reasonOffset + maxReasonBytes)
        }
        return .command(.close(code: value, reason: reason))
    }

    private static func unknown(_ name: String) -> String {
        if name.isEmpty { return "a line starting with / is a command (/help lists them); // sends a line starting with /" }
        let candidates = names.filter { $0.hasPrefix(name) }
        let hint = candidates.count == 1 ? " (did you mean /\(candidates[0])?)" : ""
        return "unknown command /\(TerminalEscaping.escaping(name))\(hint); /help lists the commands"
    }

    private static func trimmed(_ s: String) -> String {
        String(s.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
