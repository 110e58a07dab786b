import WSCore
import WSTransport
import WSCodecs
import WSMessages

/// Reads a line source on the event loop (wspipe's stdin, or an --exec
/// program's stdout), cuts it into lines and hands the messages they
/// translate to to `deliver`. One read per readiness callback keeps the loop
/// fair when stdin is a fast regular file; `pause()` is the back-pressure
/// valve the sessions turn when the socket cannot keep up. Its phase is one
/// enum (`StdinPumpPhases`); what a closure it calls does to it follows the
/// re-entrancy rule of Sources/README.md: the phase is read again after
/// every call out.
final class StdinPump {
    private let fd: Int32
    private let loop: EventLoop
    /// The pacer's timers and time: the loop, or a test's manual clock.
    private let clock: TimerScheduling
    private var splitter: LineSplitter
    private var translator: InputTranslator
    /// --codec: the lines sent as their JSON text, not encoded (`InputTranslator.keepsAsJSON`).
    var keepsAsJSON: ((UnsafeRawBufferPointer) -> Bool)? {
        get { translator.keepsAsJSON }
        set { translator.keepsAsJSON = newValue }
    }
    private let strict: Bool
    private let wrapping: Bool
    private let socketIOLines: Bool
    private let maxWholeInput: Int
    private let readChunk: Int
    private let log: Diagnostics
    /// Sends one message; returns false when it could not be sent.
    private let deliver: (OutgoingMessage) -> Bool
    private let onEnd: () -> Void
    /// `--events`: an `invalid_input` event for every rejected line.
    var events: EventSink?
    /// Set for a source other than stdin (an --exec program's output): it
    /// hears of rejected lines instead of stdin's warnings, events and --strict.
    var onRejected: ((InputTranslator.Rejection) -> Void)?
    /// Set for a source other than stdin: a read error ends it as EOF does,
    /// reported here rather than as stdin's fatal error.
    var onReadError: ((IOError) -> Void)?
    /// Set for a source other than stdin: called once when a line (or, with
    /// --no-line, the whole input) outgrows the message limit; the rest of
    /// the source is then read and dropped.
    var onOverflow: (() -> Void)?
    /// Called after each batch of lines, so the sends go out in one write.
    private let afterBatch: () -> Void
    private var phases = StdinPumpPhases()
    private(set) var rejectedLines = 0
    /// Lines read after the session stopped taking them (counted as not sent).
    private(set) var unsent = LineTally()
    var unsentLines: Int { unsent.count }
    /// --rate: lines wait in the splitter until their message is due, and
    /// the source is not read meanwhile (so at most one read is ever buffered).
    private var pacer: InputPacer?
    private var paceTimer: EventLoop.TimerID?
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
        /// --socketio: each JSON line must be a Socket.IO event (or an ack's answer).
        var socketIOLines = false
        /// --codec: JSON lines are sent as binary messages in this format.
        var codec: BinaryFormat? = nil
        /// The most one read takes.
        var readChunk = 256 << 10
    }

    /// `preparing`: make `fd` non-blocking (and restore it at exit) as for
    /// an inherited stdin; a pipe wspipe made itself is left as it is.
    init(fd: Int32 = 0, loop: EventLoop, clock: TimerScheduling? = nil, preparing: Bool = true,
         settings: Settings, log: Diagnostics,
         deliver: @escaping (OutgoingMessage) -> Bool, afterBatch: @escaping () -> Void,
         onEnd: @escaping () -> Void) {
        self.fd = fd
        self.loop = loop
        self.clock = clock ?? loop
        self.splitter = LineSplitter(separator: settings.separator)
        self.translator = InputTranslator(format: settings.format, lenient: settings.lenient,
                                          maxPendingBytes: settings.maxPendingBytes, codec: settings.codec)
        if settings.wrapping { translator.invalidTextHint = "--wrap sends each line as text" }
        translator.socketIOLines = settings.socketIOLines
        wrapping = settings.wrapping
        socketIOLines = settings.socketIOLines
        self.strict = settings.strict
        self.maxWholeInput = settings.maxPendingBytes
        self.readChunk = settings.readChunk
        self.log = log
        self.deliver = deliver
        self.onEnd = onEnd
        self.afterBatch = afterBatch
        pacer = settings.rateIntervalNanos.map { InputPacer(intervalNanos: $0) }
        if preparing { StdioMode.prepare(fd) }
    }

    var phase: StdinPumpPhases.Phase { phases.phase }
    /// Nothing more is read (EOF, an error, a stop).
    var finished: Bool { phases.isFinished }

    func resume() { apply(.resume) }

    /// Stops watching the source altogether: a paused pipe whose writer has
    /// gone would otherwise keep reporting POLLHUP and spin the loop.
    func pause() { apply(.pause) }

    /// Read and drop everything from now on, so the writer never blocks on
    /// a full pipe while it ends (an --exec program whose client left).
    func discard() { apply(.discard) }

    /// The number of the line being delivered (for messages about it). Kept
    /// here rather than read from the translator, which is busy (mutating)
    /// while it delivers.
    private(set) var lineNumber = 0

    /// Stop reading for good (server closed, SIGINT, --strict).
    func stop() { apply(.stop) }

    /// Feeds the phase machine and performs what it answers.
    private func apply(_ event: StdinPumpPhases.Event) {
        let actions = phases.handle(event)
        if actions.isEmpty { return }
        if actions.contains(.unwatch) { loop.unwatch(fd) }
        if actions.contains(.cancelPace), let paceTimer {
            clock.cancel(paceTimer)
            self.paceTimer = nil
        }
        if actions.contains(.watch) { loop.watch(fd, .read) { [unowned self] _ in self.readOnce() } }
        if actions.contains(.schedulePace) { schedulePace() }
    }

    /// Reads what the source holds now without waiting for more, then stops:
    /// a client's --replay has been played, and the stdin lines already
    /// written are counted, while lines written later are left unread (the
    /// writer learns of it as from any reader that exits). At most
    /// `maxChunks` reads, so a writer that never pauses cannot hold it.
    func drainAvailable(maxChunks: Int = 64) {
        var chunks = 0
        while chunks < maxChunks, case .reading = phase, readOnce() { chunks += 1 }
        stop()
    }

    /// One read; true when it brought bytes (there may be more).
    @discardableResult
    private func readOnce() -> Bool {
        switch phase {
        case .reading, .discarding: break
        default: return false
        }
        switch splitter.read(from: fd, chunk: readChunk) {
        case .bytes:
            if case .discarding = phase { splitter.finish { _ in }; return true }
            let held = processLines()
            if onOverflow == nil && splitter.separator == nil && splitter.bufferedBytes > maxWholeInput {
                wholeInputTooLarge()
                return false
            }
            afterBatch()
            if let onOverflow, splitter.bufferedBytes > maxWholeInput {
                // A line still unfinished this long would grow the buffer without bound.
                onOverflow()
                discard()
                return false
            }
            if held { apply(.hold(.lines)) }
            return true
        case .wouldBlock:
            return false
        case .eof:
            if case .reading = phase, pacer != nil && splitter.bufferedBytes > 0 {
                apply(.hold(.end))
                return false
            }
            endOfInput()
            return false
        case .error(let error):
            if let onReadError { onReadError(error) } else { log.fatal("reading stdin: \(error.reason)") }
            endOfInput()
            return false
        }
    }

    /// Delivers the complete lines the pacer lets go now (all of them,
    /// without --rate). True when lines are held for the pacer.
    private func processLines() -> Bool {
        // --rate: one message per turn; the lines after it wait in the splitter.
        if !paced() { return true }
        var held = false
        // The closures hold the pump unretained: a retain and a release per
        // line each (UnretainedReferences.swift).
        let pump = unretainedSelf
        // JSON lines: the splitter's search for the end checks the line too.
        splitter.forEachLine(checkingJSON: translator.format == .json) { line, verdict in
            pump.use { $0.processLine(line, verdict: verdict, held: &held) }
        }
        return held
    }

    /// One complete line; false when the loop stops after it.
    @inline(__always)
    private func processLine(_ line: UnsafeRawBufferPointer, verdict: Int, held: inout Bool) -> Bool {
        lineNumber += 1
        let pump = unretainedSelf
        // A sent line (nearly all of them) has nothing to report: no
        // call, and no reference to self kept for one.
        switch translator.translate(line, verdict: verdict, { message in pump.use { $0.send(message) } }) {
        case .sent: break
        case let outcome: handle(outcome)
        }
        if sentThisLine {
            sentThisLine = false
            pacer?.sent(now: clock.nowNanos)
            held = true
            return false
        }
        return !phases.isFinished
    }

    // MARK: --rate

    /// May the next line go now? (Always, without --rate.)
    private func paced() -> Bool {
        guard let pacer else { return true }
        return pacer.delay(now: clock.nowNanos) == 0
    }

    private func schedulePace() {
        guard paceTimer == nil, let pacer else { return }
        paceTimer = clock.schedule(afterNanos: pacer.delay(now: clock.nowNanos)) { [unowned self] in
            self.paceTimer = nil
            self.paceDue()
        }
    }

    /// The pacer's turn: the held lines go (one), or the end comes.
    private func paceDue() {
        guard case .pacing(let held) = phase else { return }
        switch held {
        case .lines:
            let stillHeld = processLines()
            afterBatch()
            // Delivery may have paused or stopped the pump: the machine
            // takes these events in whatever phase that left it.
            apply(stillHeld ? .hold(.lines) : .released)
        case .end:
            guard paced() else { return apply(.hold(.end)) }
            endOfInput()
        }
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
        if phases.isFinished { return }
        if case .discarding = phase {
            splitter.finish { _ in }
        } else {
            splitter.finish { line in
                lineNumber += 1
                handle(translator.translate(line) { message in self.send(message) })
            }
            if !phases.isFinished, let outcome = translator.finish({ message in self.send(message) }) { handle(outcome) }
            if phases.isFinished { return }   // --strict already ended the input
        }
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
        if let onRejected { return onRejected(rejection) }
        guard !phases.isFinished else { return }   // --strict stopped at an earlier one
        rejectedLines += 1
        // The first report says how to send such lines anyway; the rest stay short.
        let how = rejectedLines > 1 || wrapping ? ""
            : socketIOLines ? "; see SOCKET.IO in wspipe(1) for the lines Socket.IO takes"
            : "; --lenient sends invalid lines as text, -t sends every line as is"
        log.warning("\(rejection.message) (not sent\(how))")
        events?.emit(EventLine.invalidInput(line: rejection.line, column: rejection.column, reason: rejection.reason))
        if strict {
            log.warning("stopping at the first invalid line (--strict)")
            stop()
            onEnd()
        }
    }
}
