/// A warning that may come once per client, said on stderr at most once per
/// interval (a crowd of clients while the system cannot start programs is
/// one line a second, not one a client). Pure: it is handed the time.
struct ReportThrottle {
    let intervalNanos: Int64
    private var lastNanos: Int64?
    /// Reports not said since the last one said.
    private var held = 0

    init(intervalNanos: Int64) {
        self.intervalNanos = intervalNanos
    }

    /// nil when this one is not to be said (it is counted); else how many
    /// were held back since the last one said.
    mutating func take(now: Int64) -> Int? {
        if let lastNanos, now - lastNanos < intervalNanos {
            held += 1
            return nil
        }
        lastNanos = now
        defer { held = 0 }
        return held
    }
}
