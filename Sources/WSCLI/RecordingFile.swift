import WSBridge
import WSCodecs
import WSTransport

/// `--replay FILE`: read whole and parsed when the run is planned, so a file
/// that cannot be read or replayed is a usage error naming its line.
enum RecordingFile {
    static func read(_ path: String, codec: BinaryFormat? = nil) throws(UsageError) -> Recording {
        let bytes: [UInt8]
        switch FD.readFile(path) {
        case .success(let read): bytes = read
        case .failure(let error): throw UsageError("--replay \(path): \(error.reason)")
        }
        do {
            return try Recording(parsing: bytes, codec: codec)
        } catch {
            throw UsageError("--replay \(path):\(error.line): \(error.reason)")
        }
    }
}
