import WSCore

/// Which sent message a server refused when it closes with 1009 (message
/// too big) or 1003 (unsupported data) right after receiving it
/// (wspipe(1): RECONNECT AND REPLAY). The server reads in order and stops at
/// the message it refuses, but wspipe cannot see where it stopped: it looks
/// among the messages written since the server last sent a message or a pong
/// (or among all it wrote and still holds, if none was), and takes the largest one
/// for 1009, the first binary one (or else the first) for 1003. The message
/// is reported and not sent again, so a refusal can never make a reconnect
/// loop; every other message the server may not have read is sent again, so
/// a wrong guess loses nothing: the next refusal comes with one candidate
/// fewer.
enum RefusedMessage {
    struct Candidate {
        var size: Int
        var isBinary: Bool
        /// Written since the peer last sent anything.
        var afterSignOfLife: Bool
        /// Written at all: a message never written cannot have been refused.
        var written = true
    }

    /// True for the close codes that say "this message, no more".
    static func isRefusal(_ code: CloseCode) -> Bool {
        code == .messageTooBig || code == .unsupportedData
    }

    /// The index of the refused message among `candidates` (in sent order).
    static func pick(_ candidates: [Candidate], code: CloseCode) -> Int? {
        let written = candidates.indices.filter { candidates[$0].written }
        var window = written.filter { candidates[$0].afterSignOfLife }
        if window.isEmpty { window = written }
        if code == .messageTooBig {
            // max(by:) keeps the last of equal elements; the first is wanted.
            return window.reduce(nil as Int?) { best, i in
                guard let best else { return i }
                return candidates[i].size > candidates[best].size ? i : best
            }
        }
        return window.first { candidates[$0].isBinary } ?? window.first
    }
}
