#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a small text file (headers, on-connect messages) without Foundation.
enum TextFile {
    struct ReadError: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String) throws(ReadError) -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw ReadError(description: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 { bytes.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { break }
            if errno == EINTR { continue }
            throw ReadError(description: String(cString: strerror(errno)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
