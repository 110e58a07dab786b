import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pseudo-terminal for a test: the master side plays the terminal, the
/// slave is what a program reads and writes as its tty.
struct PseudoTerminal {
    let master: Int32
    let slave: Int32

    /// Skips the test where pseudo-terminals cannot be made.
    init() throws {
        // posix_openpt(3) and friends are not in the Glibc module: the
        // Linux ioctls behind them, unlock the slave (TIOCSPTLCK) and ask its
        // number (TIOCGPTN), whose _IOW/_IOR values Swift cannot import
        // (asm-generic/ioctls.h: x86 and arm).
        #if os(Linux)
        let setLock: UInt = 0x4004_5431
        let getNumber: UInt = 0x8004_5430
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard master >= 0, ioctl(master, setLock, &unlock) == 0,
              ioctl(master, getNumber, &number) == 0 else {
            if master >= 0 { _ = closeFD(master) }
            throw XCTSkip("no pseudo-terminals here")
        }
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            _ = closeFD(master)
            throw XCTSkip("the pseudo-terminal's slave could not be opened")
        }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        self.master = master
        self.slave = slave
        #else
        throw XCTSkip("the pseudo-terminal setup here is Linux's")
        #endif
    }

    func close() {
        _ = closeFD(slave)
        _ = closeFD(master)
    }
}

private func closeFD(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    Glibc.close(fd)
    #else
    Darwin.close(fd)
    #endif
}
