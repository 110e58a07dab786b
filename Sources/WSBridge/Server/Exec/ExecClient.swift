import WSCore
import WSTransport
import WSMessages

/// One --exec client and its own `sh -c CMD` (wspipe(1): OPTIONS, Server
/// mode): the client's messages become lines on the program's stdin, the
/// program's stdout lines become messages to this client only, with
/// back-pressure both ways. `ExecLifecycle` decides how the pair ends; this
/// class turns I/O into its events and performs its actions. The program's
/// stdout is a line source like wspipe's stdin (a `StdinPump`), its stdin a
/// destination like a `|COMMAND` route's (a `Destination`).
final class ExecClient {
    /// Above this many bytes unwritten to the program the client is no
    /// longer read, until the program has taken them below the low water: a
    /// program that does not read costs at most this, and nothing is dropped.
    static let inputHighWater = 1 << 20
    static let inputLowWater = 256 << 10

    let client: ServerClient
    private let process: Subprocess
    private let shell: SessionShell
    private let input: Destination
    private var output: StdinPump!
    /// The program's stderr, copied to wspipe's when it could not share it.
    private var errorCopy: ChildOutput?
    private let formatter: OutputFormatter
    /// Feeds `ExecLifecycle` and arms its timer (`PhaseDriver`).
    private let lifecycle: PhaseDriver<ExecLifecycle>
    /// The pair is over: the program was reaped and the client is gone.
    var onReleased: (ExecClient) -> Void = { _ in }
    /// A program line was not sent; true for the server's first (which
    /// says how to send such lines).
    var onRejected: () -> Bool = { false }

    private var loop: EventLoop { shell.loop }
    private var log: Diagnostics { shell.log }
    private var channel: WebSocketChannel? { client.channel }

    /// `process`, started for `client` before its upgrade (`ExecTable.prepare`).
    init(client: ServerClient, process: Subprocess, shell: SessionShell, graceNanos: Int64) {
        self.client = client
        self.shell = shell
        self.process = process
        if process.errorFD >= 0 {
            if let destination = try? shell.output.routes.inheritedDestination(.stderr) {
                errorCopy = ChildOutput(.errors, of: process, to: destination, loop: shell.loop)
            } else {
                process.closeErrors()
            }
        }
        input = Destination(name: "the program's stdin", spec: .command(process.command), target: .command(process),
                            loop: shell.loop, highWater: Self.inputHighWater, lowWater: Self.inputLowWater)
        let bridge = shell.bridge
        formatter = OutputFormatter(format: bridge.format, binaryOutput: bridge.binaryOutput, separator: bridge.separator)
        lifecycle = PhaseDriver(ExecLifecycle(closeTimeoutNanos: bridge.closeTimeoutNanos, graceNanos: graceNanos),
                                clock: shell.loop) { .timerFired }
        lifecycle.perform = { [unowned self] action in self.perform(action) }
        // Read as stdin is, but unpaced and without stdin's own reports.
        var settings = bridge.stdinSettings
        settings.rateIntervalNanos = nil
        settings.strict = false
        settings.wrapping = false
        settings.readChunk = 64 << 10
        output = StdinPump(
            fd: process.outputFD, loop: shell.loop, preparing: false, settings: settings, log: shell.log,
            deliver: { [unowned self] message in self.send(message); return true },
            afterBatch: { [unowned self] in self.outputBatchDone() },
            onEnd: { [unowned self] in
                self.outputBatchDone()
                self.handle(.outputEnded)
            })
        output.onRejected = { [unowned self] rejection in self.rejected(rejection) }
        output.onReadError = { _ in }   // as EOF: the program's output is over
        output.onOverflow = { [unowned self] in
            self.log.warning("client \(self.client.id): the program wrote a line longer than --max-message-size; the rest of its output is dropped")
        }
        output.resume()
        input.onDrained = { [unowned self] in self.channel?.setReadPaused(false) }
        input.onFailure = { [unowned self] _, _ in
            // Usually the program is exiting; one that closes its stdin and
            // goes on has chosen not to read the client any more.
            self.log.info("client \(self.client.id): the program closed its stdin; the client's messages are dropped from now on")
        }
        log.info("client \(client.id): started pid \(process.pid): \(process.command)")
    }

    var pid: Int32 { process.pid }
    var programRunning: Bool { lifecycle.machine.programRunning }

    // MARK: client -> program

    /// A data message from the client, as one line on the program's stdin.
    func deliver(_ message: ConnectionEvent) {
        switch message {
        case .text(let payload, let verdict): formatter.appendText(payload, verdict: verdict, to: &input.pending)
        case .binary(let payload):
            // --codec: the program reads the JSON line of the value.
            if let codec = shell.codec, let json = codec.decode(payload, from: "client \(client.id)") {
                return formatter.appendText(json, verdict: 0, to: &input.pending)
            }
            formatter.appendBinary(payload, to: &input.pending)
        default: return
        }
    }

    /// The client's read batch is over: write it to the program, and stop
    /// reading the client while the program is behind.
    func clientBatchDone() {
        input.flush()
        channel?.setReadPaused(input.isBackedUp)
    }

    // MARK: program -> client

    private func send(_ message: OutgoingMessage) {
        guard let channel, channel.isOpen else { return }
        channel.send(message)
        switch message {
        case .text(let bytes), .binary(let bytes): shell.sent(bytes: bytes.count)
        }
    }

    /// A read of the program's stdout is out: stop reading it while the
    /// client is behind; `clientDrained` resumes.
    private func outputBatchDone() {
        guard let channel else { return }
        channel.flush()
        if channel.outputBytes > ClientRegistry.highWater { output.pause() }
    }

    /// The client's socket took everything queued for it.
    func clientDrained() {
        output.resume()
    }

    private func rejected(_ rejection: InputTranslator.Rejection) {
        // The first report says what to do; the server goes on either way.
        let how = onRejected()
            ? "; in JSON mode the program must print JSON lines: -t sends each line as text (--lenient only those that are not JSON)"
            : ""
        log.warning("client \(client.id): program output:\(rejection.line):\(rejection.column): \(rejection.reason) (line not sent\(how))")
    }

    // MARK: ending

    /// The client's connection is over.
    func clientLeft() { handle(.clientLeft) }

    /// SIGCHLD: reap the program if it is the one that exited.
    func childrenExited() {
        guard lifecycle.machine.programRunning, process.reapIfExited() else { return }
        errorCopy?.finishAfterExit()
        let success = process.exitCode == 0
        if !success { log.info("client \(client.id): the program \(process.exitDescription)") }
        handle(.programExited(success: success, outputOver: output.finished))
    }

    /// After the loop: make sure the program is gone and reaped. SIGTERM,
    /// a second for it to exit, then SIGKILL; never leaves a zombie.
    func reapBlocking() {
        output.stop()
        closeInput()
        Self.reapBlocking(process)
        errorCopy?.finishAfterExit()
        errorCopy?.destination.writePendingBlocking()
    }

    /// SIGTERM to its process group, up to a second for it to exit, then
    /// SIGKILL and a wait.
    static func reapBlocking(_ process: Subprocess) {
        process.closeInput()
        process.closeOutput()
        process.terminate(graceNanos: 1_000_000_000)
    }

    private func handle(_ event: ExecLifecycle.Event) {
        lifecycle.handle(event)
    }

    private func perform(_ action: ExecLifecycle.Action) {
        switch action {
        case .closeClient(let code):
            channel?.close(code: code, reason: code == .normal ? "" : "program failed")
        case .dropClient:
            channel?.terminate()
        case .closeProgramInput:
            closeInputAfterWriting()
        case .discardOutput:
            output.discard()
        case .terminateProgram:
            log.info("client \(client.id): the program did not exit after its client left; SIGTERM")
            process.send(.terminate)
        case .killProgram:
            log.info("client \(client.id): the program did not exit after SIGTERM; SIGKILL")
            process.send(.kill)
        case .release:
            output.stop()
            closeInput()
            process.closeOutput()
            onReleased(self)
        }
    }

    /// The client left: the program reads EOF once everything it sent is
    /// written (or the program's stdin failed), never blocking the loop.
    private func closeInputAfterWriting() {
        if input.isEmpty || input.failed { return closeInput() }
        input.onEmptied = { [unowned self] in self.closeInput() }
        input.flush()
    }

    /// Closes the program's stdin now; what is unwritten is dropped (the
    /// program is gone or being stopped). Idempotent.
    private func closeInput() {
        input.onEmptied = nil
        _ = input.abandonPending()
        input.finish(waitForCommand: false)
    }
}

