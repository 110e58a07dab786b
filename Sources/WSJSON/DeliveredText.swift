/// The validator's verdict on the text message being delivered, so that a
/// message is read once, not twice: the core asks before it delivers a text
/// message (`Connection.textCheck`) and skips its own UTF-8 pass when the
/// text is valid JSON, which is valid UTF-8; `JSONScanner.validate` then
/// answers from here for that same payload. The channel forgets the verdict
/// as soon as the delivery is over (`forget`), so no other bytes ever get it,
/// even at the same address.
public enum DeliveredText {
    private struct Verdict {
        let base: UnsafeRawPointer
        let count: Int
        let needsCompaction: Bool
    }

    /// Set and read on the event loop's thread only (the core calls the
    /// check synchronously inside `receive`).
    nonisolated(unsafe) private static var current: Verdict?

    /// The core's text check (`Connection.textCheck`) for sessions whose
    /// output reads text as JSON: true, with the verdict kept, when the bytes
    /// are valid JSON. Text the fast path cannot vouch for gets the core's
    /// UTF-8 pass (and, later, the full scan that says why it is not JSON).
    public static func check(_ base: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard let base, count > 0 else { return false }
        let quick = JSONFastPath.check(base.assumingMemoryBound(to: UInt8.self), count)
        guard quick >= 0 else { return false }
        current = Verdict(base: base, count: count, needsCompaction: quick == 1)
        return true
    }

    /// The verdict on exactly these bytes if they are the message being
    /// delivered (0: valid; 1: valid, needs compaction), else -1.
    @inline(__always)
    static func verdict(on json: UnsafeRawBufferPointer) -> Int {
        guard let verdict = current, verdict.base == json.baseAddress, verdict.count == json.count else { return -1 }
        return verdict.needsCompaction ? 1 : 0
    }

    /// The delivery is over: its bytes may change from now on.
    @inline(__always)
    public static func forget() {
        current = nil
    }
}
