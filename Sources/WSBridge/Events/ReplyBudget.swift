import WSMessages
/// --max-reply-p99 DURATION (wspipe(1): CHECKING A SERVER): a latency budget
/// for CI. The run fails with exit status 8 when the 99th percentile of the
/// reply latencies measured is above it, and says so; a run that measured
/// no reply fails too, since it proved nothing.
enum ReplyBudget {
    static func check(_ latency: LatencyHistogram, budgetNanos: Int64, log: Diagnostics, status: inout ExitStatus) {
        let budget = LatencyHistogram.milliseconds(budgetNanos)
        guard !latency.isEmpty else {
            log.fatal("--max-reply-p99 \(budget): no reply was measured")
            status = status.combined(with: .checkFailed)
            return
        }
        let p99 = latency.percentileNanos(99)
        guard p99 > budgetNanos else { return }
        log.fatal("reply latency p99 \(LatencyHistogram.milliseconds(p99)) is over --max-reply-p99 \(budget) "
                  + "(\(latency.count) replies: \(latency.summary))")
        status = status.combined(with: .checkFailed)
    }
}
