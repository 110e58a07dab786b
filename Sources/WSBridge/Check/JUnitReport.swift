/// --junit FILE (wspipe(1): CHECKING A SERVER): the run as JUnit XML, the
/// format GitHub Actions (through a report action), GitLab and Jenkins
/// render: one `<testsuite>` in a `<testsuites>`, one `<testcase>` per
/// recording (per recording and run with --repeat), named after the file,
/// its classname the file's folder with dots for slashes; a failed check has
/// a `<failure>` whose message is the report's first line and whose text is
/// the whole report, a recording that could not be checked (no connection,
/// a broken one) an `<error>` instead. Times are in seconds.
struct JUnitReport {
    struct Case {
        var name: String
        var classname: String
        var file: String
        var seconds: Double
        /// The report's lines, empty when it passed.
        var lines: [String] = []
        /// An error (the check could not run) rather than a failure.
        var isError = false
    }

    var cases: [Case] = []
    var timestamp: String = ""

    var failures: Int { cases.count { !$0.lines.isEmpty && !$0.isError } }
    var errors: Int { cases.count { !$0.lines.isEmpty && $0.isError } }

    func xml(totalSeconds: Double) -> String {
        var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let counts = #"tests="\#(cases.count)" failures="\#(failures)" errors="\#(errors)""#
        let time = Self.seconds(totalSeconds)
        out += #"<testsuites name="wspipe --check" \#(counts) time="\#(time)">"# + "\n"
        out += #"  <testsuite name="wspipe --check" \#(counts) skipped="0" time="\#(time)""#
        if !timestamp.isEmpty { out += #" timestamp="\#(Self.escaped(timestamp))""# }
        out += ">\n"
        for item in cases {
            out += #"    <testcase name="\#(Self.escaped(item.name))" classname="\#(Self.escaped(item.classname))""#
            out += #" file="\#(Self.escaped(item.file))" time="\#(Self.seconds(item.seconds))""#
            guard let headline = item.lines.first else {
                out += "/>\n"
                continue
            }
            out += ">\n"
            let element = item.isError ? "error" : "failure"
            let type = item.isError ? "connection" : "check"
            out += #"      <\#(element) message="\#(Self.escaped(headline))" type="\#(type)">"#
            out += Self.escaped(item.lines.joined(separator: "\n"))
            out += "</\(element)>\n"
            out += "    </testcase>\n"
        }
        out += "  </testsuite>\n</testsuites>\n"
        return out
    }

    /// The test's classname: the file's folder as written, with dots for
    /// slashes ("tests/ws/chat.ndjson" is tests.ws); `current` for a file
    /// in the current directory.
    static func classname(of path: String, current: String) -> String {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        parts.removeLast()
        parts.removeAll { $0 == "." }
        if path.hasPrefix("/") && parts.isEmpty { return "root" }
        return parts.isEmpty ? current : parts.joined(separator: ".")
    }

    /// The file's name without its folder.
    static func baseName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// Seconds with three decimals.
    static func seconds(_ value: Double) -> String {
        let millis = Int64((max(0, value) * 1000).rounded())
        let fraction = String(millis % 1000 + 1000).dropFirst()
        return "\(millis / 1000).\(fraction)"
    }

    /// Text for an attribute or element: the five XML entities, and the
    /// characters XML 1.0 cannot hold at all (controls other than tab and
    /// line breaks) written as `\u{XX}`, so that peer text can never make the
    /// file unreadable (a NUL or ESC from the server stays visible).
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF || (value >= 0x7F && value < 0xA0) {
                    out += "\\u{" + String(value, radix: 16) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
