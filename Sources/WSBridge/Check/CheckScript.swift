import WSJSON

/// A recording made ready for --check (wspipe(1): CHECKING A SERVER): each
/// recorded connection as a list of steps, messages to send and messages to
/// expect, in the recording's order; the expected messages read into values
/// with their matchers, the sent ones with their `${NAME}` places. Built once
/// at start-up: whatever is wrong with the file is a usage error naming its line.
public struct CheckScript: Sendable {
    /// The file as given on the command line.
    public let path: String
    public let format: Recording.Format
    let connections: [ConnectionScript]

    /// How each connection was opened, in order (`Plan` chooses the URL and headers from it).
    public var requests: [RecordedRequest?] { connections.map(\.request) }

    struct ConnectionScript: Sendable {
        /// The recording's connection number.
        var number: Int
        var request: RecordedRequest?
        var steps: [Step]
        /// The recording's connection ended with the server's Close, with this
        /// code (1006: the server dropped it without one).
        var serverCloseCode: Int?

        var expectedCount: Int { steps.count { if case .expect = $0 { true } else { false } } }
    }

    enum Step: Sendable {
        case send(OutgoingTemplate, line: Int)
        case expect(ExpectedMessage, line: Int)

        var line: Int {
            switch self {
            case .send(_, let line), .expect(_, let line): return line
            }
        }
    }

    /// `allowExtra`: types (at `typeKey`) of messages the check skips, so the
    /// recording's own are not awaited either.
    public init(path: String, recording: Recording, allowExtra: [String], typeKey: [String]) throws(RecordingError) {
        self.path = path
        format = recording.format
        if recording.entries.contains(where: { $0.event == "client_connected" }) {
            throw RecordingError(line: 0, reason: "a server's recording (--listen --record): --check plays what a "
                                 + "client sent and compares what it received")
        }
        var captures: Set<String> = []
        var connections: [ConnectionScript] = []
        let skippedTypes = Set(allowExtra.map { Array($0.utf8) })
        let typePath = typeKey.map { Array($0.utf8) }
        for number in recording.connectionNumbers {
            var script = ConnectionScript(number: number, request: recording.requests[number], steps: [])
            for entry in recording.entries where entry.conn == number {
                if entry.direction == .event {
                    if entry.event == "disconnected", entry.closedBy == "server", let code = entry.closeCode,
                       code != 1001 {
                        script.serverCloseCode = code
                    }
                    continue
                }
                guard let message = entry.message else { continue }
                func fail(_ reason: String) -> RecordingError {
                    RecordingError(line: recording.format == .har ? 0 : entry.line, reason: recording.format == .har
                                   ? "connection \(number), frame \(entry.line): \(reason)" : reason)
                }
                if entry.direction == .out {
                    do {
                        script.steps.append(.send(try OutgoingTemplate(message, captures: captures), line: entry.line))
                    } catch {
                        throw fail(error.reason)
                    }
                    continue
                }
                if !skippedTypes.isEmpty, !message.isBinary,
                   let type = Self.type(of: message.bytes, at: typePath), skippedTypes.contains(type) {
                    continue
                }
                do {
                    script.steps.append(.expect(try Self.expected(message, captures: &captures), line: entry.line))
                } catch {
                    throw fail(error.reason)
                }
            }
            connections.append(script)
        }
        guard connections.contains(where: { !$0.steps.isEmpty }) else {
            throw RecordingError(line: 0, reason: "no message to send or to expect")
        }
        self.connections = connections
    }

    private static func expected(_ message: OutboundQueue.Message,
                                 captures: inout Set<String>) throws(ExpectedValue.MatcherError) -> ExpectedMessage {
        if message.isBinary { return .binary(message.bytes) }
        guard let tree = try? JSONTree.parse(message.bytes) else { return .text(message.bytes) }
        return .json(try ExpectedValue.expected(tree, captures: &captures))
    }

    /// The string at `path` of a JSON message, nil when there is none.
    static func type(of bytes: [UInt8], at path: [[UInt8]]) -> [UInt8]? {
        bytes.withUnsafeBytes { raw in
            guard case .valid = JSONScanner.validate(raw), let range = JSONScanner.valueRange(atPath: path, in: raw),
                  raw[range.lowerBound] == 0x22 else { return nil }
            var out: [UInt8] = []
            JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: raw[range]), into: &out)
            return out
        }
    }
}

/// A message of the recording to send, with the string values that are
/// exactly `"${NAME}"` replaced by what `${capture:NAME}` bound (any JSON
/// value), and `"$${...}"` by the text `"${...}"`.
struct OutgoingTemplate: Sendable {
    var isBinary: Bool
    var bytes: [UInt8]
    var substitutions: [Substitution] = []

    struct Substitution: Sendable {
        var range: Range<Int>
        /// A capture's name, or nil for a literal.
        var capture: String?
        /// The literal's JSON string.
        var literal: [UInt8] = []
    }

    init(_ message: OutboundQueue.Message, captures: Set<String>) throws(ExpectedValue.MatcherError) {
        isBinary = message.isBinary
        bytes = message.bytes
        guard !isBinary, bytes.contains(UInt8(ascii: "$")) else { return }
        let found = bytes.withUnsafeBytes { raw in try? JSONTree.parseWithPlaceholders(raw) }
        guard let (_, placeholders) = found else { return }
        for (range, text) in placeholders {
            switch try Placeholder.read(text) {
            case .none: continue
            case .literal(let literal):
                var quoted: [UInt8] = []
                literal.withUnsafeBytes { JSONScanner.appendQuoted($0, into: &quoted) }
                substitutions.append(Substitution(range: range, capture: nil, literal: quoted))
            case .matcher(.captured(let name)):
                guard captures.contains(name) else {
                    throw ExpectedValue.MatcherError(
                        reason: "\"${\(name)}\": no \"${capture:\(name)}\" in a message expected before it")
                }
                substitutions.append(Substitution(range: range, capture: name))
            case .matcher(let matcher):
                throw ExpectedValue.MatcherError(
                    reason: "\"\(matcher.spelling)\" in a message to send: matchers are for the messages expected "
                        + "(a sent message may hold \"${NAME}\" of a capture)")
            }
        }
    }

    /// The message to send, with the captures' values in place (null for one not bound).
    func render(_ captures: [String: CapturedValue]) -> [UInt8] {
        guard !substitutions.isEmpty else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var copied = 0
        for substitution in substitutions {
            out.append(contentsOf: bytes[copied ..< substitution.range.lowerBound])
            if let name = substitution.capture {
                out.append(contentsOf: captures[name]?.json ?? Array("null".utf8))
            } else {
                out.append(contentsOf: substitution.literal)
            }
            copied = substitution.range.upperBound
        }
        out.append(contentsOf: bytes[copied...])
        return out
    }
}
