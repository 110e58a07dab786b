import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import WSTransport

/// Raw mode on a real pseudo-terminal: the master side plays the terminal.
final class TerminalModeTests: XCTestCase {
    private var master: Int32 = -1
    private var slave: Int32 = -1

    override func setUpWithError() throws {
        let terminal = try PseudoTerminal()
        master = terminal.master
        slave = terminal.slave
    }

    override func tearDown() {
        TerminalMode.restore()
        close(slave)
        close(master)
    }

    private func settings(_ fd: Int32) -> termios {
        var t = termios()
        XCTAssertEqual(tcgetattr(fd, &t), 0)
        return t
    }

    private func same(_ a: termios, _ b: termios) -> Bool {
        withUnsafeBytes(of: a) { x in withUnsafeBytes(of: b) { y in x.elementsEqual(y) } }
    }

    /// What the program wrote to the terminal, as the terminal received it.
    private func screen() -> String {
        var bytes: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 256)
        while true {
            let n = buf.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
            guard n > 0 else { break }
            bytes += buf[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func testRawModeAndExactRestore() throws {
        let original = settings(slave)
        try TerminalMode.enterRaw(input: slave, output: slave)
        XCTAssertTrue(TerminalMode.isRaw)
        let raw = settings(slave)
        XCTAssertEqual(raw.c_lflag & tcflag_t(ICANON | ECHO | ISIG | IEXTEN), 0)
        XCTAssertEqual(raw.c_iflag & tcflag_t(ICRNL | IXON), 0)
        XCTAssertNotEqual(raw.c_oflag & tcflag_t(OPOST), 0, "output processing kept")
        XCTAssertEqual(screen(), "\u{1B}[?2004h", "bracketed paste on")

        // Enter arrives as CR, at once, and Ctrl-C is a byte, not a signal.
        XCTAssertEqual(write(master, "a\r\u{03}", 3), 3)
        var typed = [UInt8](repeating: 0, count: 8)
        var got: [UInt8] = []
        while got.count < 3 {
            let n = typed.withUnsafeMutableBytes { read(slave, $0.baseAddress, $0.count) }
            XCTAssertGreaterThan(n, 0)
            got += typed[0..<max(n, 0)]
        }
        XCTAssertEqual(got, [0x61, 0x0D, 0x03])

        try TerminalMode.enterRaw(input: slave, output: slave)
        XCTAssertEqual(screen(), "", "entering twice changes nothing")
        TerminalMode.restore()
        XCTAssertFalse(TerminalMode.isRaw)
        XCTAssertTrue(same(settings(slave), original), "exactly the settings found")
        XCTAssertEqual(screen(), "\u{1B}[?2004l", "bracketed paste off")
        TerminalMode.restore()
        XCTAssertEqual(screen(), "", "restoring twice writes nothing")
    }

    func testRestoreAllRestoresTheTerminal() throws {
        let original = settings(slave)
        try TerminalMode.enterRaw(input: slave, output: slave)
        StdioMode.restoreAll()
        XCTAssertTrue(same(settings(slave), original))
    }

    func testCrashSignalRestoresTheTerminalThenGoesToThePreviousHandler() throws {
        // SIGTRAP ignored beforehand stands for "what the signal did before":
        // the handler restores the terminal, then passes the signal on to it.
        let previous = signal(SIGTRAP, SIG_IGN)
        defer { signal(SIGTRAP, previous) }
        let original = settings(slave)
        try TerminalMode.enterRaw(input: slave, output: slave)
        _ = screen()
        TerminalMode.installCrashHandlers()
        raise(SIGTRAP)
        XCTAssertTrue(same(settings(slave), original), "restored from the signal handler")
        XCTAssertEqual(screen(), "\u{1B}[?2004l")
        XCTAssertFalse(TerminalMode.isRaw)
    }

    func testWindowSize() {
        var size = winsize(ws_row: 33, ws_col: 101, ws_xpixel: 0, ws_ypixel: 0)
        XCTAssertEqual(ioctl(master, UInt(TIOCSWINSZ), &size), 0)
        let got = TerminalMode.windowSize(slave)
        XCTAssertEqual(got?.columns, 101)
        XCTAssertEqual(got?.rows, 33)
        var pipeEnds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        XCTAssertNil(TerminalMode.windowSize(pipeEnds[0]), "not a terminal")
        close(pipeEnds[0]); close(pipeEnds[1])
    }

    func testEnterRawFailsOnAPipe() {
        var pipeEnds: [Int32] = [-1, -1]
        XCTAssertEqual(pipe(&pipeEnds), 0)
        defer { close(pipeEnds[0]); close(pipeEnds[1]) }
        XCTAssertThrowsError(try TerminalMode.enterRaw(input: pipeEnds[0], output: pipeEnds[1]))
        XCTAssertFalse(TerminalMode.isRaw)
    }
}
