#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic clock in nanoseconds (CLOCK_MONOTONIC: immune to wall-clock
/// changes, so timeouts stay right when NTP steps the clock).
public func monotonicNanos() -> Int64 {
    var ts = timespec()
    _ = clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Wall-clock time in nanoseconds since the Unix epoch (CLOCK_REALTIME), for
/// the times wspipe writes (event lines, --stats, `${now_ms}`), never for
/// measuring a wait.
public func wallClockNanos() -> Int64 {
    var ts = timespec()
    _ = clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}
