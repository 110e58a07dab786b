import WSCore
import WSTransport
import WSMessages

/// --record FILE (wspipe(1): SCRIPTED PEER): every message sent and
/// received and every lifecycle event, appended to FILE as `RecordLine`s,
/// each written with one write(2) as it happens (nothing is buffered, so a
/// killed run keeps all it recorded). Bounded by nothing but the disk: the
/// first write that fails is reported, the recording stops there (a line
/// never half written is followed by more), the run goes on and exits 1.
final class MessageRecorder {
    private let file: AppendFile
    private let log: Diagnostics
    private let startNanos: Int64
    private(set) var failed = false
    /// --codec: a binary message is recorded as the JSON of its value (as
    /// the line it was made from, or the line it became), and a text
    /// message always in its `{"$text":…}` envelope: a JSON line stands for
    /// a binary message there, so text that is JSON would come back as one
    /// (--replay and --check with --codec encode the JSON lines).
    private let codec: MessageCodec?

    init(path: String, log: Diagnostics, codec: MessageCodec? = nil) throws(IOError) {
        file = try AppendFile(path: path)
        self.log = log
        self.codec = codec
        startNanos = monotonicNanos()
    }

    var path: String { file.path }

    private var tMs: Int64 { (monotonicNanos() - startNanos) / 1_000_000 }

    func sent(_ message: OutgoingMessage, conn: Int, source: MessageSource) {
        guard !failed else { return }
        viewed(message) { write(RecordLine.message(tMs: tMs, .out, conn: conn, $0, source: source, textForm: $1)) }
    }

    /// `decoded`: a text message that is the JSON --codec made of the
    /// binary message that came (recorded as that value).
    func received(_ message: OutgoingMessage, conn: Int, decoded: Bool = false) {
        guard !failed else { return }
        if decoded { return write(RecordLine.message(tMs: tMs, .in, conn: conn, message, textForm: .value)) }
        viewed(message) { write(RecordLine.message(tMs: tMs, .in, conn: conn, $0, textForm: $1)) }
    }

    /// The message as it is recorded: with --codec, a binary one that holds
    /// a value as the JSON of that value (a text message, in the recording).
    private func viewed(_ message: OutgoingMessage, _ body: (OutgoingMessage, RecordLine.TextForm) -> Void) {
        guard let codec else { return body(message, .exact) }
        switch message {
        case .binary(let payload):
            // The codec's JSON is compact and never a `$text`/`$binary` envelope (it writes such a map as `$map`).
            if let json = codec.view(of: payload) { return body(.text(json), .value) }
            body(message, .exact)
        case .text:
            body(message, .envelope)
        }
    }

    func event(_ line: [UInt8], conn: Int) {
        guard !failed else { return }
        write(RecordLine.event(tMs: tMs, conn: conn, line))
    }

    private func write(_ line: [UInt8]) {
        guard let error = line.withUnsafeBytes({ file.append($0) }) else { return }
        failed = true
        file.close()
        log.warning("--record \(file.path): \(error); recording stopped (the run goes on, and exits 1)")
    }

    /// A failed recording makes the exit status 1.
    func finalReport(_ status: inout ExitStatus) {
        if failed { status = status.combined(with: .runtimeError) }
    }
}
