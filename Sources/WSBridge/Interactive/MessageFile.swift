#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the file of a `/binary FILE` command: the whole file as one
/// message, refused when larger than the message size limit (a message the
/// server would close the connection for is better not sent).
public enum MessageFile {
    public static func load(_ path: String, maxBytes: Int) -> Result<[UInt8], MessageFileError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.cannotOpen(path: path, reason: errorText())) }
        defer { _ = close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                bytes.append(contentsOf: chunk[0..<n])
                if bytes.count > maxBytes { return .failure(.tooLarge(path: path, maxBytes: maxBytes)) }
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return .failure(.cannotRead(path: path, reason: errorText())) }
            return .success(bytes)
        }
    }

    private static func errorText() -> String { String(cString: strerror(errno)) }
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
