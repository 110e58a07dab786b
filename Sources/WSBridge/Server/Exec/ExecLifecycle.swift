import WSCore
import WSTransport

/// One --exec client and its program as a pure state machine (wspipe(1):
/// OPTIONS, Server mode): events in, actions out, at most one timer per
/// phase. `ExecClient` feeds it and performs what it returns.
///
///     serving ─program exited, output over─▶ closingClient ─client gone, timer─▶ ended
///        │    ─program exited─▶ draining ─output over─▶ closingClient
///        │ client left
///        ▼
///     stoppingProgram ─grace─▶ terminating ─grace─▶ killing ─exited─▶ ended
///
/// The client is closed with 1000 once the program has exited and its
/// stdout is over (every line it wrote has gone to the client first), 1011
/// when it exited with a non-zero status or a signal. A client that leaves
/// closes the program's stdin (once what it sent is written); a program that
/// does not exit within the grace period gets SIGTERM, then SIGKILL.
struct ExecLifecycle: PhaseMachine {
    enum Phase: Equatable {
        /// The client and its program talk.
        case serving
        /// The program exited; what is left in its stdout still goes to the client.
        case draining(CloseCode)
        /// The Close is out; waiting for the client's (at most the close timeout).
        case closingClient
        /// The client is gone; the program's stdin is closed: waiting for it to exit.
        case stoppingProgram
        /// SIGTERM sent.
        case terminating
        /// SIGKILL sent: waiting for the exit, which cannot fail to come.
        case killing
        case ended
    }

    enum Event: Equatable {
        /// The program was reaped; `outputOver`: its stdout already reached EOF.
        case programExited(success: Bool, outputOver: Bool)
        /// The program's stdout reached EOF.
        case outputEnded
        /// The client's connection ended (or it sent its Close).
        case clientLeft
        case timerFired
    }

    enum Action: Equatable {
        case closeClient(CloseCode)
        /// The close timeout ran out: drop the client's transport.
        case dropClient
        /// Close the program's stdin once what is queued for it is written.
        case closeProgramInput
        /// Keep reading the program's stdout, for nobody (so it never blocks
        /// on a full pipe while it winds down).
        case discardOutput
        /// SIGTERM.
        case terminateProgram
        /// SIGKILL.
        case killProgram
        /// Close whatever is left (pipes) and forget the pair.
        case release
    }

    let closeTimeoutNanos: Int64
    /// How long a program whose client left has to exit, before SIGTERM, and
    /// again before SIGKILL.
    let graceNanos: Int64
    private(set) var phase: Phase = .serving

    init(closeTimeoutNanos: Int64, graceNanos: Int64) {
        self.closeTimeoutNanos = closeTimeoutNanos
        self.graceNanos = graceNanos
    }

    var timerNanos: Int64? {
        switch phase {
        case .closingClient: return closeTimeoutNanos
        case .stoppingProgram, .terminating: return graceNanos
        default: return nil
        }
    }

    /// The program has not been reaped yet.
    var programRunning: Bool {
        switch phase {
        case .serving, .stoppingProgram, .terminating, .killing: return true
        default: return false
        }
    }

    mutating func handle(_ event: Event) -> [Action] {
        switch (phase, event) {
        case (.serving, .programExited(let success, let outputOver)):
            let code: CloseCode = success ? .normal : .internalError
            if outputOver { return closeClient(code) }
            phase = .draining(code)
            return []
        case (.draining(let code), .outputEnded):
            return closeClient(code)
        case (.serving, .clientLeft):
            phase = .stoppingProgram
            return [.closeProgramInput, .discardOutput]
        case (.draining, .clientLeft), (.closingClient, .clientLeft):
            return end()
        case (.closingClient, .timerFired):
            return [.dropClient]
        case (.stoppingProgram, .timerFired):
            phase = .terminating
            return [.terminateProgram]
        case (.terminating, .timerFired):
            phase = .killing
            return [.killProgram]
        case (.stoppingProgram, .programExited), (.terminating, .programExited), (.killing, .programExited):
            return end()
        default:
            return []
        }
    }

    private mutating func closeClient(_ code: CloseCode) -> [Action] {
        phase = .closingClient
        return [.closeClient(code)]
    }

    private mutating func end() -> [Action] {
        phase = .ended
        return [.release]
    }
}
