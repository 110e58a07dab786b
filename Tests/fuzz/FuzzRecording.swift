@testable import WSBridge
@testable import WSCore

/// The --replay reader (`Recording`), which reads a file someone else may
/// have written: it must never trap (an Int64 overflow on a hostile `t_ms`
/// killed a server at its first client), what it accepts must schedule at
/// any speed or rate without overflow, and every message it reads must
/// survive being recorded again (`RecordLine`) and read back.
enum FuzzRecording {
    static func run(_ input: UnsafeRawBufferPointer) {
        guard let setup = input.first else { return }
        guard let recording = try? Recording(parsing: Array(input.dropFirst())) else { return }
        let speeds = [1.0, 0.5, 1e-9, 1e-300, 3e8]
        let rates: [Int64?] = [nil, 1, 1_000_000_000, DurationLimit.maxNanos]
        let speed = speeds[Int(setup) % speeds.count]
        let rate = rates[Int(setup >> 4) % rates.count]
        for direction in [RecordLine.Direction.out, .in] {
            let schedule = ReplaySchedule(recording, direction: direction, speed: speed, rateIntervalNanos: rate)
            var last: Int64 = 0
            for item in schedule.items {
                check(item.offsetNanos >= last, "a replay offset went back in time")
                check(item.offsetNanos <= DurationLimit.maxNanos + 1, "a replay offset past the limit")
                last = item.offsetNanos
            }
        }
        _ = recording.playbackNanos(server: setup & 8 != 0, speed: speed, rateIntervalNanos: rate)
        for entry in recording.entries {
            check(entry.tMs >= 0 && entry.tMs <= DurationLimit.maxMillis, "t_ms out of range: \(entry.tMs)")
            guard let message = entry.message else { continue }
            let line = message.withOutgoing { RecordLine.message(tMs: entry.tMs, entry.direction, conn: entry.conn, $0) }
            guard let again = try? Recording(parsing: line), again.entries.count == 1,
                  let back = again.entries[0].message else {
                return check(false, "a recorded message does not read back: \(String(decoding: line, as: UTF8.self))")
            }
            check(back.isBinary == message.isBinary && back.bytes == message.bytes, "a message changed on its way back")
        }
    }
}
