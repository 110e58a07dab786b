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
    /// nil: show the filter; "off": clear it.
    case filter(String?)
    /// Empty: the last messages.
    case find(String)
    case show(Int)
    /// nil: the last message sent.
    case resend(Int?)
    case pretty
    case compact
    /// nil message: the last message sent.
    case save(name: String, message: String?)
    /// nil: list the saved messages.
    case send(name: String?)

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

    static let names = ["ping", "close", "binary", "text", "filter", "find", "show", "resend", "pretty", "compact",
                        "save", "send", "reconnect", "help", "quit"]

    /// The commands that take no argument: Tab completes them without a blank after.
    static let takesNoArgument: Set<String> = ["pretty", "compact", "reconnect", "help", "quit"]

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
        case "filter":
            let expression = trimmed(argument)
            return .command(.filter(expression.isEmpty ? nil : expression))
        case "find": return .command(.find(trimmed(argument)))
        case "show":
            guard let number = Int(trimmed(argument)), number > 0 else {
                return .error("usage: /show N, a message's number (/find lists them)", offset: line.utf8.count)
            }
            return .command(.show(number))
        case "resend":
            let text = trimmed(argument)
            if text.isEmpty { return .command(.resend(nil)) }
            guard let number = Int(text), number > 0 else {
                return .error("usage: /resend [N], a sent message's number (/find out lists them)", offset: line.utf8.count)
            }
            return .command(.resend(number))
        case "save": return parseSave(argument, line: line)
        case "send":
            let saved = trimmed(argument)
            guard !saved.contains(" ") else {
                return .error("usage: /send [NAME]; a name has no blanks", offset: line.utf8.count)
            }
            return .command(.send(name: saved.isEmpty ? nil : saved))
        case "reconnect", "help", "quit", "pretty", "compact":
            guard trimmed(argument).isEmpty else {
                return .error("/\(name) takes no argument", offset: argumentOffset)
            }
            switch name {
            case "quit": return .command(.quit)
            case "help": return .command(.help)
            case "pretty": return .command(.pretty)
            case "compact": return .command(.compact)
            default: return .command(.reconnect)
            }
        default:
            return .error(unknown(name), offset: 1)
        }
    }

    /// "/save NAME" (the last message sent), "/save NAME MESSAGE" (as typed,
    /// ${...} included: a template is not JSON until it is filled in).
    private static func parseSave(_ argument: String, line: String) -> Parsed {
        let rest = argument.drop { $0 == " " }
        let name = String(rest.prefix { $0 != " " && $0 != "\n" })
        guard !name.isEmpty else {
            return .error("usage: /save NAME [MESSAGE]; without MESSAGE, the last message sent", offset: line.utf8.count)
        }
        let message = String(rest.dropFirst(name.count).dropFirst())
        return .command(.save(name: name, message: trimmed(message).isEmpty ? nil : message))
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
