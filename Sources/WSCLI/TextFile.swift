import WSTransport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a small text file (headers, on-connect messages) without Foundation.
enum TextFile {
    struct ReadError: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String) throws(ReadError) -> String {
        let fd: Int32
        switch FD.open(path, O_RDONLY) {
        case .success(let opened): fd = opened
        case .failure(let error): throw ReadError(description: error.reason)
        }
        defer { FD.close(fd) }
        switch FD.readAll(fd) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw ReadError(description: error.reason)
        }
    }
}
