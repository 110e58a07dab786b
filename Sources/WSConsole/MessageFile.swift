import WSTransport

/// Reads the file of a `/binary FILE` command: the whole file as one
/// message, refused when larger than the message size limit (a message the
/// server would close the connection for is better not sent).
public enum MessageFile {
    public static func load(_ path: String, maxBytes: Int) -> Result<[UInt8], MessageFileError> {
        let fd: Int32
        switch FD.open(path, .read) {
        case .success(let opened): fd = opened
        case .failure(let error): return .failure(.cannotOpen(path: path, reason: error.reason))
        }
        defer { FD.close(fd) }
        switch FD.readAll(fd, limit: maxBytes) {
        case .success(let bytes) where bytes.count > maxBytes: return .failure(.tooLarge(path: path, maxBytes: maxBytes))
        case .success(let bytes): return .success(bytes)
        case .failure(let error): return .failure(.cannotRead(path: path, reason: error.reason))
        }
    }
}

public enum MessageFileError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, reason: String)
    case cannotRead(path: String, reason: String)
    case tooLarge(path: String, maxBytes: Int)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open \(path): \(reason)"
        case .cannotRead(let path, let reason): return "cannot read \(path): \(reason)"
        case .tooLarge(let path, let maxBytes): return "\(path) is larger than --max-message-size (\(maxBytes) bytes); not sent"
        }
    }
}
