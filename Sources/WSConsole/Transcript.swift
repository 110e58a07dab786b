import WSTransport

/// The messages of the interactive transcript, kept for `/find`, `/show` and
/// `/resend` (wspipe(1): INTERACTIVE MODE): the newest ones whose payloads
/// add up to at most `limitBytes` (--history-size), numbered from 1 in the
/// order they were shown. Hidden ones (`/filter`) are kept too: a filter
/// hides, it does not forget.
struct Transcript {
    struct Entry: Equatable {
        var number: Int
        var time: TimeOfDay
        var direction: TranscriptDirection
        var binary: Bool
        var payload: [UInt8]
        /// What each entry costs besides its payload, counted against the
        /// limit so that --history-size bounds the memory the transcript
        /// really takes: its slot in `entries` (dropped slots wait until they
        /// are half of the array, whose capacity may be twice its count: up to
        /// four strides, two in a steady stream), and the payload's own heap
        /// block (a 32-byte array header, malloc's 16, rounded up to 16).
        /// Measured: 300 000 one-byte messages at the default 4M grew the
        /// resident size by 10.0 MiB when this was 64, by 4.6 MiB at 160.
        static let overhead = 160
        var cost: Int { payload.count + Self.overhead }
    }

    let limitBytes: Int
    /// Oldest first; `entries[first...]` are the ones kept.
    private var entries: [Entry] = []
    private var first = 0
    private(set) var bytes = 0
    /// The number the next message gets.
    private(set) var nextNumber = 1

    init(limitBytes: Int) {
        self.limitBytes = max(limitBytes, 0)
    }

    /// Numbers a message and keeps it when it fits the limit, dropping the
    /// oldest to make room. Returns its number, or nil when the message is
    /// larger than the whole limit (it is shown, never kept).
    mutating func add(_ payload: UnsafeRawBufferPointer, binary: Bool, direction: TranscriptDirection,
                      time: TimeOfDay) -> Int? {
        let number = nextNumber
        nextNumber += 1
        guard payload.count + Entry.overhead <= limitBytes else { return nil }
        let entry = Entry(number: number, time: time, direction: direction, binary: binary, payload: Array(payload))
        bytes += entry.cost
        entries.append(entry)
        while bytes > limitBytes {
            bytes -= entries[first].cost
            entries[first].payload = []
            first += 1
        }
        // The dropped slots go once they are half of the array: appending stays O(1) amortised.
        if first > 64 && first * 2 > entries.count {
            entries.removeFirst(first)
            first = 0
        }
        return number
    }

    var count: Int { entries.count - first }
    var oldestNumber: Int? { first < entries.count ? entries[first].number : nil }

    /// Message `number`, if it is still kept.
    func entry(_ number: Int) -> Entry? {
        guard let oldest = oldestNumber, number >= oldest else { return nil }
        // Numbers are consecutive except where a message too large was not kept.
        var low = first
        var high = entries.count - 1
        while low <= high {
            let mid = (low + high) / 2
            if entries[mid].number == number { return entries[mid] }
            if entries[mid].number < number { low = mid + 1 } else { high = mid - 1 }
        }
        return nil
    }

    /// The newest kept message sent (`/resend` with no number).
    var lastSent: Entry? {
        entries[first...].last { $0.direction == .sent }
    }

    /// The kept messages for which `matches` holds, newest last.
    func filter(_ matches: (Entry) -> Bool) -> [Entry] {
        entries[first...].filter(matches)
    }
}
