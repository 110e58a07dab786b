// Thin platform glue shared by the transport files.
//
// Types in this module have methods called read/write/close/accept, which
// shadow the C functions inside those types; the free functions here give the
// C calls unambiguous names and hide Linux/Darwin spelling differences.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SOCK_STREAM is an enum case on Glibc and a plain Int32 on Darwin.
#if os(Linux)
let sockStream = Int32(SOCK_STREAM.rawValue)
#else
let sockStream = SOCK_STREAM
#endif

@inline(__always) func sysClose(_ fd: Int32) { _ = close(fd) }

@inline(__always) func sysRead(_ fd: Int32, _ p: UnsafeMutableRawPointer?, _ n: Int) -> Int {
    read(fd, p, n)
}

@inline(__always) func sysOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    open(path, flags, mode)
}

@inline(__always) func sysWrite(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
    write(fd, p, n)
}

@inline(__always) func sysWritev(_ fd: Int32, _ vectors: UnsafePointer<iovec>, _ count: Int32) -> Int {
    writev(fd, vectors, count)
}

/// send(2) without SIGPIPE where the platform offers the flag, so a socket
/// write to a reset peer reports EPIPE even if SIGPIPE was never ignored.
@inline(__always) func sysSend(_ fd: Int32, _ p: UnsafeRawPointer?, _ n: Int) -> Int {
    #if os(Linux)
    return send(fd, p, n, Int32(MSG_NOSIGNAL))
    #else
    return send(fd, p, n, 0)
    #endif
}

/// The text strerror(3) gives for `code`.
func errnoText(_ code: Int32) -> String {
    String(cString: strerror(code))
}

/// Sets O_NONBLOCK and FD_CLOEXEC on a socket we created ourselves (SOCK_NONBLOCK
/// and SOCK_CLOEXEC are Linux-only, fcntl works everywhere).
func makeNonBlockingCloexec(_ fd: Int32) -> Bool {
    let flags = fcntl(fd, F_GETFL)
    guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { return false }
    return fcntl(fd, F_SETFD, FD_CLOEXEC) == 0
}

/// Integer setsockopt; failures are ignored by callers where the option is an
/// optimisation (TCP_NODELAY) and checked where it matters.
@discardableResult
func setIntOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) -> Bool {
    var v = value
    return setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<Int32>.size)) == 0
}

/// Writing to a socket whose peer is gone must give EPIPE, not kill us: OpenSSL
/// writes with write(2), which has no MSG_NOSIGNAL, so ignore SIGPIPE process-wide.
func ignoreSIGPIPE() {
    _ = signal(SIGPIPE, SIG_IGN)
}

@inline(__always) func sysAccept(_ fd: Int32, _ sa: UnsafeMutablePointer<sockaddr>, _ len: UnsafeMutablePointer<socklen_t>) -> Int32 {
    accept(fd, sa, len)
}

/// rename(2); `FileSystem.rename` shadows the name.
@inline(__always) func systemRename(_ source: String, _ destination: String) -> Int32 {
    rename(source, destination)
}
