import WSTerminal
import WSMessages

/// -w/--write-out FORMAT (wspipe(1): OPTIONS, Diagnostics): what the run
/// says about itself at exit, in curl's syntax. `%{name}` is a value,
/// `%{json}` all of them as one JSON object, `%{stderr}` and `%{stdout}`
/// send what follows to that stream (stdout first), `%%` is a '%', and
/// `\n`, `\r`, `\t` and `\\` are escapes. Any other text is written as it is.
public struct WriteOutFormat: Sendable, Equatable {
    enum Piece: Equatable, Sendable {
        case text(String)
        case variable(WriteOutVariable)
        case json
        case toStdout, toStderr
    }

    let pieces: [Piece]

    public struct ParseError: Error, Equatable {
        public let message: String
    }

    public init(parsing format: String) throws(ParseError) {
        var pieces: [Piece] = []
        var text = ""
        var rest = Substring(format)
        while let character = rest.first {
            rest = rest.dropFirst()
            if character == "\\", let escaped = rest.first, let meaning = Self.escapes[escaped] {
                text.append(meaning)
                rest = rest.dropFirst()
            } else if character == "%" && rest.first == "%" {
                text.append("%")
                rest = rest.dropFirst()
            } else if character == "%" && rest.first == "{" {
                guard let close = rest.firstIndex(of: "}") else {
                    throw ParseError(message: "'%{' without its '}' in '\(format)'")
                }
                let name = String(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                if !text.isEmpty { pieces.append(.text(text)); text = "" }
                pieces.append(try Self.piece(named: name))
            } else {
                text.append(character)
            }
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        self.pieces = pieces
    }

    private static let escapes: [Character: Character] = ["n": "\n", "r": "\r", "t": "\t", "\\": "\\"]

    private static func piece(named name: String) throws(ParseError) -> Piece {
        switch name {
        case "json": return .json
        case "stdout": return .toStdout
        case "stderr": return .toStderr
        default:
            guard let variable = WriteOutVariable(rawValue: name) else {
                throw ParseError(message: "unknown variable %{\(name)} (known: "
                    + (WriteOutVariable.allCases.map(\.rawValue) + ["json", "stdout", "stderr"]).joined(separator: ", ") + ")")
            }
            return .variable(variable)
        }
    }

    /// The output, as pieces for fd 1 or fd 2 in order. `escapes(fd)`: the
    /// values bound for that fd are escaped for a terminal (`TerminalEscaping`),
    /// since some come from the peer (a redirect's Location is url_effective);
    /// the format's own text is the user's and stays as written.
    public func render(_ values: WriteOutValues, escapes: (Int32) -> Bool = { _ in false }) -> [(fd: Int32, bytes: [UInt8])] {
        var out: [(fd: Int32, bytes: [UInt8])] = []
        var fd: Int32 = 1
        for piece in pieces {
            switch piece {
            case .text(let text): out.append((fd, Array(text.utf8)))
            case .variable(let variable):
                let value = Array(values.text(of: variable).utf8)
                out.append((fd, escapes(fd) ? TerminalEscaping.escaped(value, in: .line) : value))
            case .json: out.append((fd, escapes(fd) ? TerminalEscaping.escaped(values.json(), in: .json) : values.json()))
            case .toStdout: fd = 1
            case .toStderr: fd = 2
            }
        }
        return out
    }
}

/// The values -w knows, by their curl names where curl has one; times are
/// seconds from the start of the run, with microseconds.
public enum WriteOutVariable: String, CaseIterable, Sendable {
    case url, url_effective, num_redirects, http_code, remote_ip, remote_port
    case time_namelookup, time_connect, time_appconnect, time_redirect, time_upgrade, time_first_message, time_total
    case close_code, messages_in, messages_out, bytes_in, bytes_out, reconnects, rtt_last
    case time_reply_p50, time_reply_p90, time_reply_p99, time_reply_max
    case exitcode

    /// One sentence for the man page.
    public var meaning: String {
        switch self {
        case .url: return "The URL given."
        case .url_effective: return "The URL of the first connection, after any redirects (-L)."
        case .num_redirects: return "The redirects followed to get there."
        case .http_code: return "The status of the last HTTP response (101 for an upgrade), 0 when none came."
        case .remote_ip: return "The IP address the first connection's TCP went to (the proxy's, through one)."
        case .remote_port: return "Its port."
        case .time_namelookup: return "When the name of the first connection's host was resolved."
        case .time_connect: return "When its TCP connection was made."
        case .time_appconnect: return "When its TLS handshake was done (0 without TLS)."
        case .time_redirect: return "When its last request started, after the redirects (0 without any)."
        case .time_upgrade: return "When its 101 response came."
        case .time_first_message: return "When the first message came in, on any connection (0 if none did)."
        case .time_total: return "When the run ended."
        case .close_code: return "The close code of the last connection's end, as in the disconnected event (0 if none opened)."
        case .messages_in: return "Messages received, as --stats counts them."
        case .messages_out: return "Messages sent, as --stats counts them."
        case .bytes_in: return "The payload bytes of the messages received."
        case .bytes_out: return "The payload bytes of the messages sent."
        case .reconnects: return "Connections after the first."
        case .rtt_last: return "The round trip of the last --ping-interval ping, in seconds (0 without one)."
        case .time_reply_p50: return "The median reply latency, in seconds: replies matched by --reply, by the one-shot rule (an id, an echo) or by --check, each from its request (0 without any)."
        case .time_reply_p90: return "The 90th percentile of the reply latencies, in seconds."
        case .time_reply_p99: return "The 99th percentile of the reply latencies, in seconds."
        case .time_reply_max: return "The longest reply latency, in seconds."
        case .exitcode: return "The exit status."
        }
    }
}

/// What a run reports through -w, collected as it goes (`SessionMetrics`).
/// Times are monotonic nanoseconds from the start; 0 for what did not happen.
public struct WriteOutValues: Equatable, Sendable {
    public var url = "", urlEffective = ""
    public var numRedirects = 0, httpCode = 0
    public var remoteIP = "", remotePort = 0
    public var timeNamelookup: Int64 = 0, timeConnect: Int64 = 0, timeAppconnect: Int64 = 0
    public var timeRedirect: Int64 = 0, timeUpgrade: Int64 = 0, timeFirstMessage: Int64 = 0, timeTotal: Int64 = 0
    public var closeCode = 0
    public var messagesIn = 0, messagesOut = 0, bytesIn = 0, bytesOut = 0, reconnects = 0
    public var rttLast: Int64 = 0
    /// Reply latencies (nanoseconds), 0 without replies.
    public var replyP50: Int64 = 0, replyP90: Int64 = 0, replyP99: Int64 = 0, replyMax: Int64 = 0
    public var exitCode = 0

    public init() {}

    /// The reply latencies' percentiles (`time_reply_*`).
    public mutating func setReplies(_ latency: LatencyHistogram) {
        replyP50 = latency.percentileNanos(50)
        replyP90 = latency.percentileNanos(90)
        replyP99 = latency.percentileNanos(99)
        replyMax = latency.maxNanos
    }

    enum Value { case string(String), int(Int), seconds(Int64) }

    func value(of variable: WriteOutVariable) -> Value {
        switch variable {
        case .url: return .string(url)
        case .url_effective: return .string(urlEffective)
        case .num_redirects: return .int(numRedirects)
        case .http_code: return .int(httpCode)
        case .remote_ip: return .string(remoteIP)
        case .remote_port: return .int(remotePort)
        case .time_namelookup: return .seconds(timeNamelookup)
        case .time_connect: return .seconds(timeConnect)
        case .time_appconnect: return .seconds(timeAppconnect)
        case .time_redirect: return .seconds(timeRedirect)
        case .time_upgrade: return .seconds(timeUpgrade)
        case .time_first_message: return .seconds(timeFirstMessage)
        case .time_total: return .seconds(timeTotal)
        case .close_code: return .int(closeCode)
        case .messages_in: return .int(messagesIn)
        case .messages_out: return .int(messagesOut)
        case .bytes_in: return .int(bytesIn)
        case .bytes_out: return .int(bytesOut)
        case .reconnects: return .int(reconnects)
        case .rtt_last: return .seconds(rttLast)
        case .time_reply_p50: return .seconds(replyP50)
        case .time_reply_p90: return .seconds(replyP90)
        case .time_reply_p99: return .seconds(replyP99)
        case .time_reply_max: return .seconds(replyMax)
        case .exitcode: return .int(exitCode)
        }
    }

    /// As %{name} writes it: strings as they are, seconds as curl writes
    /// them ("0.012345").
    func text(of variable: WriteOutVariable) -> String {
        switch value(of: variable) {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .seconds(let nanos): return Self.seconds(nanos)
        }
    }

    /// %{json}: every variable, in the order of `WriteOutVariable`, no newline.
    func json() -> [UInt8] {
        var object = JSONObjectWriter(capacity: 640)
        for variable in WriteOutVariable.allCases {
            switch value(of: variable) {
            case .string(let text): object.string(variable.rawValue, text)
            case .int(let number): object.int(variable.rawValue, number)
            case .seconds(let nanos): object.raw(variable.rawValue, Array(Self.seconds(nanos).utf8))
            }
        }
        var line = object.finishLine()
        line.removeLast()
        return line
    }

    /// Nanoseconds as seconds with six decimals ("1.000250"); negative as 0.
    static func seconds(_ nanos: Int64) -> String {
        let micros = max(nanos, 0) / 1000
        let fraction = String(micros % 1_000_000)
        return String(micros / 1_000_000) + "." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }
}
