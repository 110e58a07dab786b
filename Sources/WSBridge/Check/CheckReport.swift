/// What --check says about each recording (wspipe(1): CHECKING A SERVER),
/// on stderr, laid out like a pytest assertion: the recording's file and
/// line, where the first difference is (KEYPATH), expected and actual
/// values, then the two whole messages, `-` expected and `+` actual. The
/// lines quote the server: the writer escapes them as all peer text is.
struct CheckReport {
    /// The file's name as given, and whether its places are lines (NDJSON) or frames (HAR).
    var path: String
    var format: Recording.Format
    /// The recording has more than one connection: places name theirs.
    var connections: Int
    var settleNanos: Int64
    var typeKey: [String]

    /// `file:line`, or for a HAR file `file: connection C, frame N`.
    func place(line: Int, connection: Int) -> String {
        switch format {
        case .record: return line > 0 ? "\(path):\(line)" : path
        case .har: return line > 0 ? "\(path): connection \(connection), frame \(line)" : "\(path): connection \(connection)"
        }
    }

    /// The lines of a failure, the first one the headline (JUnit's message).
    func lines(for failure: CheckFailure) -> [String] {
        let here = place(line: failure.line, connection: failure.connection)
        let which = failure.messageNumber > 0
            ? (connections > 1 ? "connection \(failure.connection), " : "")
                + "message \(failure.messageNumber) of \(failure.messageCount)"
            : (connections > 1 ? "connection \(failure.connection)" : "")
        let expectedLine = failure.expected.map { "  - " + Self.text($0) }
        switch failure.kind {
        case .differs(let difference, let actual, let early):
            var lines = ["\(here): \(which) differs at \(difference.path.description)" + Self.kindNote(difference.kind)]
            lines.append("  expected: " + (difference.expected.map(Self.text) ?? "(no such key)")
                         + (difference.wanted.map { " (\($0))" } ?? ""))
            lines.append("  actual:   " + (difference.actual.map(Self.text) ?? "(no such key)"))
            if let expectedLine { lines.append(expectedLine) }
            lines.append("  + " + Self.text(actual))
            if let early {
                lines.append("  it is the message expected at \(place(line: early.line, connection: failure.connection)), "
                             + "and the one expected here came after it: the server answered out of order "
                             + "(--check-order any accepts the messages between two sent ones in any order)")
            } else if difference.kind == .extra && !difference.path.isRoot {
                lines.append("  --ignore \(difference.path.description) leaves it out of the comparison")
            } else if difference.path.description == typeKey.joined(separator: "."),
                      let type = Self.typeHint(actual, typeKey: typeKey) {
                lines.append("  a message the recording does not have here? --allow-extra \(type) would skip messages of this type")
            }
            return lines
        case .unexpected(let actual):
            let after = failure.line > 0 ? " (the last one expected is at \(here))" : ""
            var lines = ["\(place(line: 0, connection: failure.connection)): "
                         + "a message the recording does not have, after the last one expected\(after)"]
            lines.append("  + " + Self.text(actual))
            if let type = Self.typeHint(actual, typeKey: typeKey) {
                lines.append("  --allow-extra \(type) would skip messages of this type")
            }
            return lines
        case .timedOut(let nanos, let instead):
            var lines = ["\(here): \(which) did not come within \(Self.duration(nanos)) (--check-timeout)"]
            if let expectedLine { lines.append(expectedLine) }
            if let instead {
                lines.append("  the message expected later, at \(place(line: instead.line, connection: failure.connection)), "
                             + "came in its place")
            }
            return lines
        case .closed(let code, let reason, let expected):
            let closing = "the server closed the connection (\(code)\(reason.isEmpty ? "" : " \"\(reason)\""))"
            if failure.messageNumber > 0 {
                var lines = ["\(here): \(closing) while \(which) was expected"]
                if let expectedLine { lines.append(expectedLine) }
                return lines
            }
            let wanted = expected.map { "; the recording's connection ended with its Close \($0)" } ?? ""
            return ["\(place(line: 0, connection: failure.connection)): \(closing)\(wanted)"]
        case .noClose(let code, let nanos):
            return ["\(place(line: 0, connection: failure.connection)): the recording's connection ended with the "
                    + "server's Close \(code == 1006 ? "(a drop)" : String(code)), which did not come within "
                    + "\(Self.duration(nanos)) (--check-timeout)"]
        case .lost(let reason, let whileWaiting):
            var lines = ["\(whileWaiting ? here : place(line: 0, connection: failure.connection)): "
                         + "the connection was lost (\(reason))" + (whileWaiting ? " while \(which) was expected" : "")]
            if whileWaiting, let expectedLine { lines.append(expectedLine) }
            return lines
        case .connectFailed(let reason):
            return ["\(place(line: 0, connection: failure.connection)): could not connect: \(reason)"]
        case .unsendable(let reason):
            return ["\(here): the message to send could not be sent: \(reason)"]
        }
    }

    private static func kindNote(_ kind: Difference.Kind) -> String {
        switch kind {
        case .differs: return ""
        case .missing: return ": the message has no such key"
        case .extra: return ": the recording has no such key"
        }
    }

    /// The type (at --type-key) of a message, for the --allow-extra hint.
    private static func typeHint(_ json: [UInt8], typeKey: [String]) -> String? {
        CheckScript.type(of: json, at: typeKey.map { Array($0.utf8) }).map { String(decoding: $0, as: UTF8.self) }
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// "5s", "100ms", "1.5s".
    static func duration(_ nanos: Int64) -> String {
        let millis = nanos / 1_000_000
        if millis < 1000 { return "\(millis)ms" }
        var fraction = String(millis % 1000 + 1000).dropFirst()
        while fraction.last == "0" { fraction = fraction.dropLast() }
        return "\(millis / 1000)" + (fraction.isEmpty ? "" : "." + fraction) + "s"
    }

    /// "2 passed, 1 failed" (the line CI tools read).
    static func summary(passed: Int, failed: Int) -> String {
        "\(passed) passed, \(failed) failed"
    }

    /// "1.23 s" for a recording's time.
    static func seconds(_ nanos: Int64) -> String {
        let hundredths = (max(0, nanos) + 5_000_000) / 10_000_000
        let fraction = String(hundredths % 100)
        return "\(hundredths / 100).\(fraction.count == 1 ? "0" + fraction : fraction) s"
    }
}
