import WSTransport

/// Reads a small text file (headers, on-connect messages) without Foundation.
enum TextFile {
    struct ReadError: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String) throws(ReadError) -> String {
        switch FD.readFile(path) {
        case .success(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .failure(let error): throw ReadError(description: error.reason)
        }
    }
}
