import WSCore
import WSTransport

/// Reads stdin on the event loop, cuts it into lines and hands the messages
/// they translate to to `deliver`. One read per readiness callback keeps the
/// loop fair when stdin is a fast regular file; `pause()` is the
/// back-pressure valve the sessions turn when the socket cannot keep up.
final class StdinPump {
    private let fd: Int32
    private let loop: EventLoop
    private var splitter: LineSplitter
    private var translator: InputTranslator
    private let strict: Bool
    private let wrapping: Bool
    private let maxWholeInput: Int
    private let log: Diagnostics
    /// Sends one message; returns false when it could not be sent.
    private let deliver: (OutgoingMessage) -> Bool
    private let onEnd: () -> Void
    /// `--events`: an `invalid_input` event for every rejected line.
    var events: EventSink?
    /// Called after each batch of lines, so the sends go out in one write.
    private let afterBatch: () -> Void
    private var watching = false
    private var paused = true
    private(set) var finished = false
    private(set) var rejectedLines = 0
    /// Lines read after the session stopped taking them (counted as not sent).
    private(set) var unsent = LineTally()
    var unsentLines: Int { unsent.count }
    /// --rate: lines wait in the splitter until their message is due, and
    /// stdin is not read meanwhile (so at most one read is ever buffered).
    private var pacer: InputPacer?
    private var paceTimer: EventLoop.TimerID?
    /// Complete lines are buffered, waiting for the pacer.
    private var linesWaiting = false
    /// EOF was read while lines were waiting: the ending waits too.
    private var endWaiting = false
    private var sentThisLine = false

    struct Settings {
        var format: LineFormat
        /// nil with --no-line: all of stdin is one message.
        var separator: UInt8?
        var lenient: Bool
        var strict: Bool
        var maxPendingBytes: Int
        /// --rate: the interval between messages; nil = as fast as they come.
        var rateIntervalNanos: Int64? = nil
        /// --wrap: lines are raw text for a template (the hints say so).
        var wrapping = false
    }

    init(fd: Int32 = 0, loop: EventLoop, settings: Settings, log: Diagnostics,
         deliver: @escaping (OutgoingMessage) -> Bool, afterBatch: @escaping () -> Void,
         onEnd: @escaping () -> Void) {
        self.fd = fd
        self.loop = loop
        self.splitter = LineSplitter(separator: settings.separator)
        self.translator = InputTranslator(format: settings.format, lenient: settings.lenient,
                                          maxPendingBytes: settings.maxPendingBytes)
        if settings.wrapping { translator.invalidTextHint = "--wrap sends each line as text" }
        wrapping = settings.wrapping
        self.strict = settings.strict
        self.maxWholeInput = settings.maxPendingBytes
        self.log = log
        self.deliver = deliver
        self.onEnd = onEnd
        self.afterBatch = afterBatch
        pacer = settings.rateIntervalNanos.map { InputPacer(intervalNanos: $0) }
        StdioMode.prepare(fd)
    }

    func resume() {
        guard paused, !finished else { return }
        paused = false
        if linesWaiting || endWaiting { return schedulePace() }
        watching = true
        loop.watch(fd, .read) { [unowned self] _ in self.readOnce() }
    }

    /// Stops watching stdin altogether: a paused pipe whose writer has gone
    /// would otherwise keep reporting POLLHUP and spin the loop.
    func pause() {
        guard !paused, !finished else { return }
        paused = true
        if watching { loop.unwatch(fd); watching = false }
    }

    /// The number of the line being delivered (for messages about it). Kept
    /// here rather than read from the translator, which is busy (mutating)
    /// while it delivers.
    private(set) var lineNumber = 0

    /// Stop reading for good (server closed, SIGINT, --strict).
    func stop() {
        guard !finished else { return }
        finished = true
        if watching { loop.unwatch(fd); watching = false }
        if let paceTimer { loop.cancel(paceTimer) }
        paceTimer = nil
    }

    private func readOnce() {
        guard !paused, !finished else { return }
        switch splitter.read(from: fd, chunk: 256 << 10) {
        case .bytes:
            processLines()
            if splitter.separator == nil && splitter.bufferedBytes > maxWholeInput { return wholeInputTooLarge() }
            afterBatch()
            if linesWaiting { waitForPace() }
        case .wouldBlock:
            return
        case .eof:
            if pacer != nil && splitter.bufferedBytes > 0 { endWaiting = true; return waitForPace() }
            endOfInput()
        case .error(let error):
            log.fatal("reading stdin: \(error.reason)")
            endOfInput()
        }
    }

    private func processLines() {
        linesWaiting = false
        // --rate: one message per turn; the lines after it wait in the splitter.
        if !paced() { linesWaiting = true; return }
        splitter.forEachLine { line in
            lineNumber += 1
            // A sent line (nearly all of them) has nothing to report: no
            // call, and no reference to self kept for one.
            switch translator.translate(line, { message in self.send(message) }) {
            case .sent: break
            case let outcome: handle(outcome)
            }
            if sentThisLine {
                sentThisLine = false
                pacer?.sent(now: monotonicNanos())
                linesWaiting = true
                return false
            }
            return !finished
        }
    }

    // MARK: --rate

    /// May the next line go now? (Always, without --rate.)
    private func paced() -> Bool {
        guard let pacer else { return true }
        return pacer.delay(now: monotonicNanos()) == 0
    }

    /// Lines (or the last one, at EOF) wait for their turn: stdin is not
    /// read meanwhile.
    private func waitForPace() {
        if watching { loop.unwatch(fd); watching = false }
        schedulePace()
    }

    private func schedulePace() {
        guard paceTimer == nil, let pacer, !finished else { return }
        paceTimer = loop.schedule(afterNanos: pacer.delay(now: monotonicNanos())) { [unowned self] in
            self.paceTimer = nil
            self.paceDue()
        }
    }

    private func paceDue() {
        guard !paused, !finished else { return }   // resume() schedules again
        if linesWaiting {
            processLines()
            afterBatch()
            if finished { return }
            if linesWaiting { return schedulePace() }
        }
        if endWaiting {
            guard paced() else { return schedulePace() }
            endWaiting = false
            return endOfInput()
        }
        guard !paused, !watching, !finished else { return }
        watching = true
        loop.watch(fd, .read) { [unowned self] _ in self.readOnce() }
    }

    /// --no-line: the one message stdin makes may not pass the message limit.
    private func wholeInputTooLarge() {
        rejectedLines += 1
        log.warning("stdin: input larger than --max-message-size (\(maxWholeInput) bytes); not sent")
        splitter = LineSplitter(separator: nil)
        stop()
        onEnd()
    }

    private func endOfInput() {
        guard !finished else { return }
        splitter.finish { line in
            lineNumber += 1
            handle(translator.translate(line) { message in self.send(message) })
        }
        if !finished, let outcome = translator.finish({ message in self.send(message) }) { handle(outcome) }
        guard !finished else { return }   // --strict already ended the input
        stop()
        onEnd()
    }

    private func send(_ message: OutgoingMessage) {
        if pacer != nil { sentThisLine = true }
        if !deliver(message) { unsent.add(tag: lineNumber) }
    }

    private func handle(_ outcome: InputTranslator.Outcome) {
        outcome.forEachRejection { rejected($0) }
    }

    private func rejected(_ rejection: InputTranslator.Rejection) {
        guard !finished else { return }   // --strict stopped at an earlier one
        rejectedLines += 1
        // The first report says how to send such lines anyway; the rest stay short.
        let how = rejectedLines == 1 && !wrapping ? "; --lenient sends invalid lines as text, -t sends every line as is" : ""
        log.warning("\(rejection.message) (not sent\(how))")
        events?.emit(EventLine.invalidInput(line: rejection.line, column: rejection.column, reason: rejection.reason))
        if strict {
            log.warning("stopping at the first invalid line (--strict)")
            stop()
            onEnd()
        }
    }
}
