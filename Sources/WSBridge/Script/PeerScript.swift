import WSTransport
import WSMessages

/// What --answer, --heartbeat, --wrap, --record and --replay (and a
/// server's --on-connect) make a session do (wspipe(1): SCRIPTED PEER),
/// shared by the client and the server. A session without any of these
/// flags has none, and each of its hooks costs one nil check.
final class PeerScript {
    let options: ScriptOptions
    let scheduler: TimerScheduling
    let log: Diagnostics
    private(set) var recorder: MessageRecorder?
    var answers: AnswerTable
    var renderer: TemplateRenderer
    /// --codec: the messages made are encoded (`renderer`), and the
    /// recording shows the JSON of binary ones.
    let codec: MessageCodec?
    /// Client mode: the --capture values for `${NAME}`.
    var captures: (() -> any TemplateCaptures)?

    // What spans the client's connections (the open one's script is on
    // its `ClientConnection`).
    /// Connections opened so far: the current one's number.
    var connections = 0
    /// `${seq}` of the client: restarted when a connection ends.
    let sequence = SequenceCounter()
    /// Client: the --replay taking the place of stdin.
    var player: ReplayPlayer?
    /// stdin lines whose --wrap message could not be sent (an envelope with bad base64).
    var wrapRejected = 0
    /// Client --replay: the stdin lines that came anyway, never sent.
    var stdinBesideReplay = LineTally()
    /// A client's --replay: what its input still waits for.
    var replayInput = ReplayInput.recordingAndStdin

    /// Nil when `options` asks for nothing (and a server `greets` no client).
    init?(options: ScriptOptions, typeKey: [String], scheduler: TimerScheduling, log: Diagnostics,
          greets: Bool = false, codec: MessageCodec? = nil) {
        guard !options.isEmpty || greets else { return nil }
        self.options = options
        self.scheduler = scheduler
        self.log = log
        self.codec = codec
        renderer = TemplateRenderer(codec: codec?.format)
        answers = AnswerTable(rules: options.answers, typeKey: typeKey)
    }

    /// Opens the --record file (when the session starts: a file that cannot
    /// be opened ends the run with status 1, as a --route file does).
    func openRecording() throws {
        guard let path = options.recordPath, recorder == nil else { return }
        do { recorder = try MessageRecorder(path: path, log: log, codec: codec) } catch { throw RecordingOpenError(path: path, error: error) }
    }

    /// --wrap is on: stdin lines are raw text to wrap.
    var wraps: Bool { options.wrap != nil }

    /// An empty line (or a lone CR, from CRLF text) is skipped by --wrap, as
    /// stdin skips one: it is no message.
    static func isBlankWrapLine(_ line: UnsafeRawBufferPointer) -> Bool {
        line.isEmpty || (line.count == 1 && line[0] == 0x0D)
    }

    /// The messages of --replay that a client sends (.out) or a server plays to each client (.in).
    func replaySchedule(_ direction: RecordLine.Direction, rateIntervalNanos: Int64?) -> ReplaySchedule? {
        options.replay.map {
            ReplaySchedule($0, direction: direction, speed: options.replaySpeed, rateIntervalNanos: rateIntervalNanos)
        }
    }

    /// Renders the --wrap message of `line` (valid UTF-8) with `sequence`.
    func wrap(_ line: UnsafeRawBufferPointer, sequence: SequenceCounter,
              _ body: (OutgoingMessage) -> Void) -> String? {
        guard let template = options.wrap else { return nil }
        var values = TemplateValues(seq: template.usesSeq ? sequence.next() : 0, nowMs: TemplateRenderer.nowMillis())
        values.line = line
        values.captures = captures?()
        return renderer.render(template, values, body)
    }

    func finalReport(_ status: inout ExitStatus, stats: inout SessionStats) {
        stats.invalidLines += wrapRejected
        if wrapRejected > 0 { status = status.combined(with: .inputRejected) }
        recorder?.finalReport(&status)
    }
}

/// --record FILE could not be opened.
struct RecordingOpenError: Error, CustomStringConvertible {
    var path: String
    var error: IOError
    var description: String { "--record \(path): \(error)" }
}

/// Where a client's --replay input stands: the recording, and stdin read
/// beside it to report its lines. Once the recording has been played
/// (`.stdin`), what stdin already holds is read and the input ends.
enum ReplayInput: Equatable {
    case recordingAndStdin, recording, stdin, ended

    /// `recording`: the recording has been played (else stdin reached its end).
    func after(recordingEnded recording: Bool) -> ReplayInput {
        switch self {
        case .recordingAndStdin: return recording ? .stdin : .recording
        case .recording: return recording ? .ended : self
        case .stdin: return recording ? self : .ended
        case .ended: return self
        }
    }
}
