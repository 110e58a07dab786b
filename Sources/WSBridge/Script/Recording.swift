import WSJSON
import WSCore
import WSCodecs
import WSMessages

/// A --record file read back for --replay and --check (wspipe(1): SCRIPTED
/// PEER, CHECKING A SERVER): its messages and the connection starts, in file
/// order. Read and checked whole at start-up: a line that is not a record
/// line is a usage error naming it. A HAR file is read into the same shape
/// (`Recording(parsingHAR:)`).
public struct Recording: Sendable {
    struct Entry: Sendable {
        var tMs: Int64
        var direction: RecordLine.Direction
        var conn: Int
        /// The message (nil for an event).
        var message: OutboundQueue.Message?
        /// "src": a message wspipe made from a flag (not replayed).
        var source: String?
        /// An event's name ("connected", "client_connected"...).
        var event: String?
        /// The line of the file (a HAR file: the frame's number in its connection).
        var line: Int = 0
        /// A connected event's "url".
        var url: String? = nil
        /// A disconnected event's "code" and "by".
        var closeCode: Int? = nil
        var closedBy: String? = nil
        /// "msg" is a JSON value, not a `$text` or `$binary` envelope: the
        /// line a --codec session encoded (or decoded), or a --socketio
        /// session's event line, rather than a message taken as it is.
        var isLine = false
    }

    /// What a file is: wspipe's own NDJSON, or a browser's HAR.
    public enum Format: Sendable {
        case record, har
    }

    let entries: [Entry]
    public let format: Format
    /// How each connection was opened, as far as the file tells (by connection number).
    public internal(set) var requests: [Int: RecordedRequest] = [:]

    public var messageCount: (in: Int, out: Int) {
        (entries.filter { $0.direction == .in }.count, entries.filter { $0.direction == .out }.count)
    }

    /// Parses a recording. `bytes` is the whole file. With `codec` (--codec)
    /// a message that is JSON (no `$text` or `$binary` envelope) is sent
    /// encoded, as the line it was recorded from would be.
    public init(parsing bytes: [UInt8], codec: BinaryFormat? = nil) throws(RecordingError) {
        var entries: [Entry] = []
        var envelopes = EnvelopeDecoder()
        let encoder = codec.map { Transcoder($0, maxJSONBytes: Int.max / 2) }
        var number = 0
        var start = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: 0x0A) ?? bytes.count
            number += 1
            let line = bytes[start ..< end]
            start = end + 1
            if line.allSatisfy({ JSONSkipper.isWhitespace($0) }) { continue }
            let parsed = Array(line).withUnsafeBytes { raw in
                Result { () throws(RecordingError) in try Self.entry(raw, line: number, &envelopes, encoder) }
            }
            entries.append(try parsed.get())
        }
        self.entries = entries
        format = .record
        for entry in entries where entry.event == "connected" && requests[entry.conn] == nil {
            requests[entry.conn] = RecordedRequest(url: entry.url)
        }
    }

    init(entries: [Entry], format: Format, requests: [Int: RecordedRequest]) {
        self.entries = entries
        self.format = format
        self.requests = requests
    }

    /// The connections in the order they first appear.
    public var connectionNumbers: [Int] {
        var seen: Set<Int> = []
        return entries.compactMap { seen.insert($0.conn).inserted ? $0.conn : nil }
    }

    private static func entry(_ line: UnsafeRawBufferPointer, line number: Int,
                              _ envelopes: inout EnvelopeDecoder, _ encoder: Transcoder?) throws(RecordingError) -> Entry {
        func fail(_ reason: String) -> RecordingError { RecordingError(line: number, reason: reason) }
        if let error = JSONScanner.validate(line).error { throw fail("column \(error.column): \(error.reason)") }
        guard let dirText = string(at: ["dir"], line), let direction = RecordLine.Direction(rawValue: dirText) else {
            throw fail("expected \"dir\": \"in\", \"out\" or \"event\"")
        }
        guard let tMs = integer(at: ["t_ms"], line), tMs >= 0 else { throw fail("expected \"t_ms\": a number of milliseconds") }
        guard tMs <= DurationLimit.maxMillis else {
            throw fail("\"t_ms\" is more than \(DurationLimit.maxMillis) (\(DurationLimit.text)), the longest recording wspipe replays")
        }
        let conn = integer(at: ["conn"], line) ?? 0
        guard let msg = JSONScanner.valueRange(atPath: [Array("msg".utf8)], in: line) else { throw fail("no \"msg\"") }
        var entry = Entry(tMs: tMs, direction: direction, conn: Int(clamping: conn), message: nil,
                          source: string(at: ["src"], line), event: nil)
        entry.line = number
        if direction == .event {
            entry.event = string(at: ["msg", "$event"], line)
            entry.url = string(at: ["msg", "url"], line)
            entry.closeCode = integer(at: ["msg", "code"], line).map { Int(clamping: $0) }
            entry.closedBy = string(at: ["msg", "by"], line)
            return entry
        }
        let value = UnsafeRawBufferPointer(rebasing: line[msg])
        var rejected: String?
        var isLine = false
        // Tagged with its line of the file: a report of it names that line.
        let tag = MessageTag.replayed(line: number)
        entry.message = envelopes.decode(value) { outcome -> OutboundQueue.Message? in
            switch outcome {
            case .notEnvelope:
                isLine = true
                guard let encoder else { return OutboundQueue.copy(.text(value), line: tag) }
                do throws(CodecError) {
                    return OutboundQueue.copy(.binary(try encoder.encode(value)), line: tag)
                } catch {
                    rejected = "\"msg\": \(error.reason) (--codec \(encoder.format.rawValue))"
                    return nil
                }
            case .text(let text): return OutboundQueue.copy(.text(text), line: tag)
            case .binary(let data): return OutboundQueue.copy(.binary(data), line: tag)
            case .invalidBase64: rejected = "invalid base64 in \"$binary\""; return nil
            case .loneSurrogate: rejected = "a lone surrogate in \"$text\""; return nil
            }
        }
        if let rejected { throw fail(rejected) }
        entry.isLine = isLine
        return entry
    }

    private static func string(at path: [String], _ line: UnsafeRawBufferPointer) -> String? {
        guard let range = JSONScanner.valueRange(atPath: path.map { Array($0.utf8) }, in: line),
              line[range.lowerBound] == UInt8(ascii: "\"") else { return nil }
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: line[range]), into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON number's whole part (a fraction is dropped); nil when it is no
    /// number, or has an exponent (1e3 is not read as 1).
    private static func integer(at path: [String], _ line: UnsafeRawBufferPointer) -> Int64? {
        guard let range = JSONScanner.valueRange(atPath: path.map { Array($0.utf8) }, in: line) else { return nil }
        var value: Int64 = 0
        var negative = false
        var digits = 0
        for byte in line[range] {
            if byte == UInt8(ascii: "-") && digits == 0 && !negative { negative = true; continue }
            guard byte >= 0x30 && byte <= 0x39 else { break }
            // Past Int64: the largest, which every range check refuses.
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            value = overflow || overflow2 ? Int64.max : sum
            digits += 1
        }
        guard digits > 0, !line[range].contains(where: { $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
        return negative ? -value : value
    }
}

/// A --replay file that cannot be replayed: which line, and why.
public struct RecordingError: Error, Equatable, CustomStringConvertible {
    public var line: Int
    public var reason: String
    public var description: String { "line \(line): \(reason)" }
}

/// How a recorded connection was opened (wspipe(1): CHECKING A SERVER): a
/// --record file keeps the URL (its connected event); a HAR file the
/// request's URL and headers too.
public struct RecordedRequest: Sendable {
    public var url: String?
    /// Headers to send, with those the handshake writes itself left out.
    public var headers: [(name: String, value: String)] = []
    /// The subprotocols the request offered (Sec-WebSocket-Protocol).
    public var protocols: [String] = []
    /// The Origin header.
    public var origin: String? = nil
    /// Cookie, Authorization and the other headers that carry credentials
    /// (`HARRecording.isCredential`): sent only with --har-credentials.
    public var credentials: [(name: String, value: String)] = []

    public init(url: String?) {
        self.url = url
    }
}
