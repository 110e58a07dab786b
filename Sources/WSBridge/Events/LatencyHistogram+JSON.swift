import WSMessages

extension LatencyHistogram {
    /// `{"count":N,"p50":1.234,"p90":...,"p99":...,"max":...}` in milliseconds.
    func jsonObject() -> [UInt8] {
        var out = Array(#"{"count":"#.utf8)
        out.append(contentsOf: String(count).utf8)
        for (name, value) in [("p50", percentileNanos(50)), ("p90", percentileNanos(90)),
                              ("p99", percentileNanos(99)), ("max", maxNanos)] {
            out.append(contentsOf: ",\"\(name)\":".utf8)
            out.append(contentsOf: EventLine.milliseconds(value))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }
}
