/// Where a route sends its lines (wspipe(1): ROUTING), as parsed from the DEST of
/// `--route VALUE=DEST`. Nothing is opened here: `RouteTable` does that.
public enum DestinationSpec: Equatable, Sendable, CustomStringConvertible {
    case stdout
    case stderr
    case drop
    /// An fd inherited from the shell (`3>log`), written to as is.
    case fd(Int32)
    /// A path, appended to and created (0644) when missing.
    case file(String)
    /// `|COMMAND`: run once with `sh -c COMMAND`; its stdin receives the lines.
    case command(String)

    /// "stdout" "stderr" "drop" "fd:N" "|COMMAND", anything else is a file path.
    /// Fails on "" and "|" with only blanks after it, and on an "fd:" that is
    /// not followed by a decimal descriptor number.
    public static func parse(_ text: String) -> Result<DestinationSpec, RouteSpecError> {
        switch text {
        case "": return .failure(RouteSpecError("empty destination (use stdout, stderr, drop, fd:N, a file or |COMMAND)"))
        case "stdout": return .success(.stdout)
        case "stderr": return .success(.stderr)
        case "drop": return .success(.drop)
        default: break
        }
        if text.hasPrefix("fd:") {
            let digits = text.dropFirst(3)
            guard let fd = parseDescriptor(digits) else {
                return .failure(RouteSpecError("invalid file descriptor '\(digits)' in '\(text)' (expected fd:N, e.g. fd:3)"))
            }
            return .success(.fd(fd))
        }
        if text.hasPrefix("|") {
            let command = String(text.dropFirst())
            guard command.utf8.contains(where: { $0 != 0x20 && $0 != 0x09 }) else {
                return .failure(RouteSpecError("missing command after '|' in '\(text)'"))
            }
            // Kept verbatim: sh parses it, and its spelling names the route in messages.
            return .success(.command(command))
        }
        return .success(.file(text))
    }

    /// Only ASCII digits (no sign, no blanks), within Int32.
    private static func parseDescriptor(_ digits: Substring) -> Int32? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int32(digits)
    }

    /// The DEST as the user writes it ("fd:3", "|jq -c .", "/tmp/x.log").
    public var description: String {
        switch self {
        case .stdout: return "stdout"
        case .stderr: return "stderr"
        case .drop: return "drop"
        case .fd(let fd): return "fd:\(fd)"
        case .file(let path): return path
        case .command(let command): return "|" + command
        }
    }
}
