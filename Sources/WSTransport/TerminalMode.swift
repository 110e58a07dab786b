#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal settings found before raw mode, and where to put them back.
/// Globals, allocated before any handler that reads them is installed,
/// because the restore runs from signal handlers and atexit, which carry no
/// context.
nonisolated(unsafe) private var savedTermios = termios()
nonisolated(unsafe) private var terminalInputFD: Int32 = -1
nonisolated(unsafe) private var terminalOutputFD: Int32 = -1
/// 1 while the terminal is in raw mode. Read and written only with plain
/// loads and stores, so the restore is safe to run from a signal handler.
nonisolated(unsafe) private var terminalIsRaw: Int32 = 0
nonisolated(unsafe) private var exitHookInstalled = false
/// The actions our fatal-signal handler replaced, indexed by signal number,
/// so that the signal is passed on to them (the Swift runtime's backtracer,
/// or the default core dump) once the terminal is restored.
nonisolated(unsafe) private var previousActions = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)

/// xterm's bracketed paste mode (DEC private mode 2004): pasted text arrives
/// between ESC [ 200 ~ and ESC [ 201 ~, so a pasted line break is not Enter.
private let bracketedPasteOn: StaticString = "\u{1B}[?2004h"
private let bracketedPasteOff: StaticString = "\u{1B}[?2004l"

/// Async-signal-safe: tcsetattr(3) and write(2) only (POSIX.1-2008 §2.4.3
/// lists both), on state that is never allocated here. Idempotent.
private func restoreTerminal() {
    guard terminalIsRaw == 1 else { return }
    let saved = errno
    writeSequence(terminalOutputFD, bracketedPasteOff)
    while tcsetattr(terminalInputFD, TCSANOW, &savedTermios) != 0 && errno == EINTR {}
    terminalIsRaw = 0
    errno = saved
}

/// One write(2) of a control sequence: a few bytes to a terminal are not
/// written short, and there is nothing to do if the terminal is gone.
@inline(__always) private func writeSequence(_ fd: Int32, _ sequence: StaticString) {
    _ = sysWrite(fd, UnsafeRawPointer(sequence.utf8Start), sequence.utf8CodeUnitCount)
}

/// A crash (a Swift runtime trap is SIGILL or SIGTRAP, abort() SIGABRT):
/// restore the terminal, put back the handler we replaced, and raise the
/// signal again so it ends the process as it would have.
private func fatalSignalHandler(_ signal: Int32) {
    restoreTerminal()
    sigaction(signal, previousActions + Int(signal), nil)
    raise(signal)
}

/// Raw mode for the interactive line editor, and getting the terminal back.
///
/// `enterRaw` turns off canonical input, echo, signal keys (Ctrl-C and
/// Ctrl-Z arrive as bytes, for the editor to handle), IEXTEN (Ctrl-V and
/// Ctrl-O), XON/XOFF (Ctrl-S and Ctrl-Q arrive too) and the CR to LF mapping
/// (Enter arrives as CR); characters are 8 bits; read(2) returns as soon as
/// one byte is there (VMIN 1, VTIME 0). Output processing (OPOST) stays on,
/// unlike linenoise: the editor writes CR LF itself, but anything else that
/// writes a plain LF to the terminal meanwhile (a diagnostic on stderr)
/// still starts at column 0 instead of drawing a staircase.
///
/// `restore` puts back exactly the settings found and turns bracketed paste
/// off; it is idempotent and async-signal-safe. It runs from
/// `StdioMode.restoreAll()` (every session's exit path, SIGINT and SIGTERM
/// included), from exit(3), and on crashes (`installCrashHandlers`).
public enum TerminalMode {
    /// Enters raw mode on `input` and turns on bracketed paste on `output`.
    /// Does nothing when already raw. Fails when `input` is not a terminal.
    public static func enterRaw(input: Int32 = 0, output: Int32 = 1) throws {
        guard terminalIsRaw == 0 else { return }
        var original = termios()
        guard tcgetattr(input, &original) == 0 else { throw TransportError.posix("tcgetattr") }
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        savedTermios = original
        terminalInputFD = input
        terminalOutputFD = output
        installExitHook()
        // TCSANOW keeps what was typed ahead: it becomes the editor's first input.
        while tcsetattr(input, TCSANOW, &raw) != 0 {
            guard errno == EINTR else { throw TransportError.posix("tcsetattr") }
        }
        terminalIsRaw = 1
        writeSequence(output, bracketedPasteOn)
    }

    /// Puts the terminal back as `enterRaw` found it. Idempotent; safe in a
    /// signal handler.
    public static func restore() {
        restoreTerminal()
    }

    public static var isRaw: Bool { terminalIsRaw == 1 }

    /// The terminal's size in columns and rows (TIOCGWINSZ), nil when `fd`
    /// is not a terminal or reports 0.
    public static func windowSize(_ fd: Int32 = 1) -> (columns: Int, rows: Int)? {
        var size = winsize()
        guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return (Int(size.ws_col), Int(size.ws_row))
    }

    /// Ctrl-Z in raw mode: restores the terminal, stops the process as the
    /// terminal would have (SIGTSTP), and enters raw mode again once the
    /// shell continues it. The caller redraws.
    public static func suspend() {
        guard terminalIsRaw == 1 else { return }
        let input = terminalInputFD
        let output = terminalOutputFD
        restoreTerminal()
        raise(SIGTSTP)
        try? enterRaw(input: input, output: output)
    }

    /// Restores the terminal before a crash ends the process (SIGSEGV,
    /// SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE), then lets the signal do
    /// what it did before. SIGINT and SIGTERM are the session's: its
    /// SignalWatcher turns them into a clean exit through `restoreAll`.
    public static func installCrashHandlers() {
        // Touch the globals the handler reads, so that it never runs their
        // one-time initialisation itself.
        _ = (savedTermios, terminalInputFD, terminalOutputFD, terminalIsRaw, previousActions)
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            var action = sigaction()
            #if os(Linux)
            action.__sigaction_handler.sa_handler = { fatalSignalHandler($0) }
            #else
            action.__sigaction_u.__sa_handler = { fatalSignalHandler($0) }
            #endif
            action.sa_flags = 0
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, previousActions + Int(signal))
        }
    }

    /// exit(3) from anywhere (a fatal error path) restores the terminal too.
    private static func installExitHook() {
        guard !exitHookInstalled else { return }
        exitHookInstalled = true
        atexit { restoreTerminal() }
    }
}
