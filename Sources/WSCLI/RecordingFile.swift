import WSBridge
import WSCodecs
import WSTransport

/// `--replay FILE` and `--check FILE`: read whole and parsed when the run is
/// planned (a --record file or a HAR file, whichever it is), so a file that
/// cannot be read or played is a usage error naming its line.
enum RecordingFile {
    static func read(_ path: String, flag: String = "replay", codec: BinaryFormat? = nil) throws(UsageError) -> Recording {
        let bytes: [UInt8]
        switch FD.readFile(path) {
        case .success(let read): bytes = read
        case .failure(let error): throw UsageError("--\(flag) \(path): \(error.reason)")
        }
        do {
            return try Recording.reading(bytes, codec: codec)
        } catch {
            throw problem(flag, path, error)
        }
    }

    /// "--check FILE:LINE: reason" (a HAR file's reasons name their frame).
    static func problem(_ flag: String, _ path: String, _ error: RecordingError) -> UsageError {
        UsageError("--\(flag) \(path)\(error.line > 0 ? ":\(error.line)" : ""): \(error.reason)")
    }
}
