import WSJSON
import WSCodecs
import WSSocketIO
import WSMessages

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
    /// recording's own are not awaited either. `codec` (--codec): the
    /// recording holds the JSON of the binary messages, which are sent
    /// encoded and compared as values once the server's are decoded.
    /// `socketIO` (--socketio): it holds event lines, sent as packets; a
    /// line that is no Socket.IO event is refused here, with its line.
    public init(path: String, recording: Recording, allowExtra: [String], typeKey: [String],
                codec: BinaryFormat? = nil, socketIO: Bool = false) throws(RecordingError) {
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
        let decoder = codec.map { Transcoder($0, maxJSONBytes: Int.max / 2) }
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
                    let form: OutgoingTemplate.Form = message.isBinary ? .binary
                        : socketIO || (codec != nil && entry.isLine) ? .line : .text
                    let template: OutgoingTemplate
                    do {
                        template = try OutgoingTemplate(message, form: form, captures: captures)
                    } catch {
                        throw fail(error.reason)
                    }
                    if let reason = Self.unsendable(template, socketIO: socketIO, codec: codec) { throw fail(reason) }
                    script.steps.append(.send(template, line: entry.line))
                    continue
                }
                let expected: ExpectedMessage
                do {
                    expected = try Self.expected(message, captures: &captures, decoder: decoder)
                } catch {
                    throw fail(error.reason)
                }
                if !skippedTypes.isEmpty, case .json(let value) = expected,
                   let type = CheckConversation.type(of: value, at: typePath), skippedTypes.contains(type) {
                    continue
                }
                script.steps.append(.expect(expected, line: entry.line))
            }
            connections.append(script)
        }
        guard connections.contains(where: { !$0.steps.isEmpty }) else {
            throw RecordingError(line: 0, reason: "no message to send or to expect")
        }
        self.connections = connections
    }

    /// `decoder` (--codec): a binary message that holds a value of its
    /// format is expected as that value, as the server's are compared.
    private static func expected(_ message: OutboundQueue.Message, captures: inout Set<String>,
                                 decoder: Transcoder?) throws(ExpectedValue.MatcherError) -> ExpectedMessage {
        var bytes = message.bytes
        if message.isBinary {
            guard let decoder, let json = message.bytes.withUnsafeBytes({ try? Array(decoder.decode($0)) }) else {
                return .binary(message.bytes)
            }
            bytes = json
        }
        guard let tree = try? JSONTree.parse(bytes) else { return .text(bytes) }
        return .json(try ExpectedValue.expected(tree, captures: &captures))
    }

    /// Why a message to send could never go (not an event line with
    /// --socketio, no value of the format with --codec), nil when it can.
    /// A message with captures' places is checked when it is sent, with
    /// their values.
    private static func unsendable(_ template: OutgoingTemplate, socketIO: Bool, codec: BinaryFormat?) -> String? {
        if socketIO && template.form == .binary {
            return "a binary message is no Socket.IO event (--socketio sends event lines: put {\"$binary\":…} in an event's data)"
        }
        guard template.form == .line, template.substitutions.isEmpty else { return nil }
        return template.bytes.withUnsafeBytes { line in
            if socketIO { return SocketIOLineCheck.check(line).map { "not a Socket.IO event line (--socketio): \($0)" } }
            guard let codec else { return nil }
            do throws(CodecError) {
                _ = try Transcoder(codec, maxJSONBytes: Int.max / 2).encode(line)
                return nil
            } catch {
                return "\(error.reason) (--codec \(codec.rawValue))"
            }
        }
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
    /// How the message goes on the wire.
    enum Form: Sendable, Equatable {
        case text, binary
        /// A JSON line the session translates: --codec encodes it into a
        /// binary message, --socketio makes it the event's packet.
        case line
    }

    var form: Form
    var isBinary: Bool { form == .binary }
    var bytes: [UInt8]
    var substitutions: [Substitution] = []

    struct Substitution: Sendable {
        var range: Range<Int>
        /// A capture's name, or nil for a literal.
        var capture: String?
        /// The literal's JSON string.
        var literal: [UInt8] = []
    }

    init(_ message: OutboundQueue.Message, form: Form? = nil,
         captures: Set<String>) throws(ExpectedValue.MatcherError) {
        self.form = form ?? (message.isBinary ? .binary : .text)
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
