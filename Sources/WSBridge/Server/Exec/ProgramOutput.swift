import WSCore
import WSTransport

/// The stdout of an --exec program, read on the loop: cut into lines and
/// translated into messages exactly like wspipe's own stdin (JSON with the
/// `$text`/`$binary` envelopes, or -t/-b raw lines). `pause()` is the valve
/// the client's back-pressure turns: a program whose client does not read
/// stops being read, and blocks on its full pipe.
final class ProgramOutput {
    private let fd: Int32
    private let loop: EventLoop
    private var splitter: LineSplitter
    private var translator: InputTranslator
    private let deliver: (OutgoingMessage) -> Void
    private let afterBatch: () -> Void
    private let onRejected: (InputTranslator.Rejection) -> Void
    private let onEnd: () -> Void
    /// Called once when a line (or, with --no-line, the whole output) grows
    /// past the message size limit: the rest of the output is then dropped.
    var onOverflow: () -> Void = {}
    private let maxLineBytes: Int
    private var watching = false
    private var paused = false
    private var discarding = false
    /// EOF (or a read error): no more lines.
    private(set) var finished = false

    /// Reads `fd` (non-blocking, owned by the caller). `deliver` gets each
    /// message, `afterBatch` runs after each read, `onEnd` once at EOF.
    init(fd: Int32, loop: EventLoop, settings: StdinPump.Settings,
         deliver: @escaping (OutgoingMessage) -> Void, afterBatch: @escaping () -> Void,
         onRejected: @escaping (InputTranslator.Rejection) -> Void, onEnd: @escaping () -> Void) {
        self.fd = fd
        self.loop = loop
        splitter = LineSplitter(separator: settings.separator)
        translator = InputTranslator(format: settings.format, lenient: settings.lenient,
                                     maxPendingBytes: settings.maxPendingBytes)
        maxLineBytes = settings.maxPendingBytes
        self.deliver = deliver
        self.afterBatch = afterBatch
        self.onRejected = onRejected
        self.onEnd = onEnd
        watch()
    }

    func pause() {
        guard !paused, !discarding else { return }
        paused = true
        unwatch()
    }

    func resume() {
        guard paused else { return }
        paused = false
        watch()
    }

    /// Nobody takes the lines any more (the client left): read and drop
    /// everything, so the program never blocks on a full pipe while it ends.
    func discard() {
        discarding = true
        paused = false
        watch()
    }

    /// Stop reading for good (the pair is released; the fd is closed by its owner).
    func stop() {
        finished = true
        unwatch()
    }

    private func readOnce() {
        guard !finished, !paused else { return }
        switch splitter.read(from: fd, chunk: 64 << 10) {
        case .bytes:
            if discarding { splitter.finish { _ in }; return }
            splitter.forEachLine { line in
                handle(translator.translate(line) { deliver($0) })
                return !finished
            }
            afterBatch()
            // A line still unfinished this long would grow the buffer without bound.
            if splitter.bufferedBytes > maxLineBytes {
                onOverflow()
                discard()
            }
        case .wouldBlock:
            return
        case .eof, .error:
            endOfOutput()
        }
    }

    private func endOfOutput() {
        unwatch()
        finished = true
        if !discarding {
            splitter.finish { line in handle(translator.translate(line) { deliver($0) }) }
            if let outcome = translator.finish({ deliver($0) }) { handle(outcome) }
            afterBatch()
        }
        onEnd()
    }

    private func handle(_ outcome: InputTranslator.Outcome) {
        outcome.forEachRejection { onRejected($0) }
    }

    private func watch() {
        guard !watching, !finished else { return }
        watching = true
        loop.watch(fd, .read) { [unowned self] _ in self.readOnce() }
    }

    private func unwatch() {
        guard watching else { return }
        watching = false
        loop.unwatch(fd)
    }
}
