#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `--events` lines go (SPEC §7): stderr, one JSON line each, written
/// at once so they interleave correctly with `wspipe: ...` notices.
public final class EventSink {
    public let enabled: Bool
    private let fd: Int32

    public init(enabled: Bool, fd: Int32 = 2) {
        self.enabled = enabled
        self.fd = fd
    }

    /// `make` only runs when events are on, so building a line costs nothing otherwise.
    func emit(_ make: @autoclosure () -> [UInt8]) {
        guard enabled else { return }
        write(make())
    }

    /// Writes a line whether or not events are on (the --stats summary).
    func write(_ line: [UInt8]) {
        line.withUnsafeBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
    }
}
