import WSCore

/// Keeps account of a connection's data frames from the moment they are
/// queued until the peer shows that it has them (wspipe(1): RECONNECT AND
/// REPLAY), so that at the end each one is known as confirmed, unconfirmed
/// (the peer's TCP acknowledged it, or at least it was written, but nothing
/// shows the peer read it) or not sent (never written).
///
/// Confirmation comes from the peer:
/// - a sign of life (a message, or a pong to no ping of ours) confirms what
///   its TCP had acknowledged when it was sent. That moment cannot be
///   asked: a sign of life read late, while its peer's TCP went on
///   acknowledging, would confirm bytes the peer never read. What is known
///   is a bound below it: the kernel's answer (written minus SIOCOUTQ) from
///   before the last time the channel saw every input read (nothing in the
///   kernel, in TLS or half a frame: `sawInputEmpty`), since whatever it
///   reads after that was sent later. The channel looks after each
///   `checkStep` bytes written and whenever it stops writing and reading;
/// - a pong to one of our pings confirms at most the frames queued before
///   that ping: the peer read the ping, so it read everything before it;
/// - a pong to one of our pings confirms at most the frames queued before
///   that ping: the peer read the ping, so it read everything before it;
/// - a closing handshake it answers confirms everything (the sessions see it).
///
/// Frames are numbered (records) in the order they are queued. The client
/// (`keepsBytes`) keeps each frame's bytes in the connection's output until
/// the kernel says the peer's TCP acknowledged it, so that the next
/// connection can send again what never got there; the output then holds
/// whole frames one after another: first those written but not released,
/// then those not written yet. A server consumes its output as it writes and
/// keeps only the records. Either way a record is dropped once acknowledged;
/// what was acknowledged and not confirmed by then is remembered as counts
/// and stdin lines (`unconfirmedRuns`), so memory stays bounded by what the
/// kernel holds, whatever the peer does. Asking the kernel costs a system
/// call, so while writing it is asked only each time another `checkStep`
/// bytes have been written.
struct OutgoingFrames {
    /// A data frame handed back after the connection ended.
    struct Unsent {
        var tag: Int
        /// The peer's TCP acknowledged all of it.
        var acknowledged: Bool
        /// It was written to the socket in full.
        var written: Bool
        /// The peer showed it had it (a sign of life or a pong after it).
        var confirmed: Bool
    }

    /// What became of the data frames of a connection that ended (the server's
    /// account of one client: nothing is sent again there).
    struct Fates: Equatable {
        /// Written, and not confirmed.
        var unconfirmed = LineTally()
        /// Of those, the ones the peer's TCP never acknowledged.
        var unacknowledged = LineTally()
        /// Never written.
        var notSent = LineTally()
    }

    /// Written between two looks at what was acknowledged and whether every
    /// input was read: a sign of life confirms at most this much less than
    /// its peer's TCP had acknowledged (and the client's copy of frames the
    /// kernel holds is let go in steps of it).
    static let checkStep = 64 << 10
    /// At most this many pings are matched to their pongs (a pong to an
    /// older one confirms nothing: safe), and at most this many runs of
    /// acknowledged, unconfirmed records are told apart (older runs merge:
    /// a pong confirming part of a merged run leaves all of it unconfirmed).
    static let maxPings = 16
    static let maxRuns = 64

    /// The client keeps frames' bytes until acknowledged; a server does not.
    let keepsBytes: Bool

    /// Stream offset of the output's first byte.
    private(set) var released = 0
    /// Stream bytes written to the socket.
    private(set) var written = 0
    /// A data frame: where it ends in the stream, and the sender's tag for
    /// it (a stdin line number, `MessageTag`).
    struct Record {
        var end: Int
        var tag: Int
    }

    /// The data frames not yet acknowledged, oldest first from `firstRecord`.
    /// Plain integers in one array, so that recording a frame (once per
    /// message, and per client in server mode) costs one append and no
    /// reference counting.
    private var records: [Record] = []
    private var firstRecord = 0
    /// The payloads of compressed frames, which cannot be read back from
    /// them, by record number (`recordBase` + index into `records`).
    private var originals: [Int: [UInt8]] = [:]
    /// Record number of `records[0]`.
    private var recordBase = 0
    /// Records before this number are confirmed.
    private var confirmedRecords = 0
    /// Acknowledged records no longer kept and not confirmed, in runs: each
    /// ends at a record number and starts where the one before it ends (the
    /// first at `confirmedRecords`). Runs are cut where a ping was queued,
    /// so that its pong confirms whole runs.
    private var unconfirmedRuns: [(end: Int, tally: LineTally)] = []
    /// Our pings not answered yet: the payload and how many data frames had
    /// been queued before it.
    private var pings: [(payload: [UInt8], records: Int)] = []
    /// The kernel's last answer: stream offset acknowledged.
    private(set) var acknowledgedAtQuery = 0
    private var nextAckCheck = checkStep
    /// Set by a message or an unsolicited pong in the read being processed.
    private(set) var spoke = false
    /// Records released (acknowledged) by the kernel's last answer before
    /// every input was last seen read: what a sign of life read from now
    /// on confirms.
    private(set) var confirmableRecords = 0

    init(keepsBytes: Bool = true) {
        self.keepsBytes = keepsBytes
    }

    /// Bytes at the front of the output already written.
    var unwrittenOffset: Int { written - released }
    /// Records released so far (acknowledged by the peer's TCP).
    private var releasedRecords: Int { recordBase + firstRecord }
    /// Records queued so far.
    private var queuedRecords: Int { recordBase + records.count }

    /// A data frame was appended; `outputEnd` is the output's length now.
    @inline(__always)
    mutating func recorded(tag: Int, outputEnd: Int) {
        // A replayed message's line is not a stdin line, an attachment counts
        // with its packet: their tally takes the slow path.
        if tag < 0 || tag & (MessageTag.replayed | MessageTag.attachment) != 0 { lastUncountedRecord = recordBase + records.count }
        records.append(Record(end: released + outputEnd, tag: tag))
    }

    /// A compressed frame was appended: its payload is kept beside it.
    mutating func recorded(tag: Int, outputEnd: Int, original: [UInt8]) {
        originals[recordBase + records.count] = original
        originalBytes += original.count
        recorded(tag: tag, outputEnd: outputEnd)
    }

    /// The number of the last record sent uncounted (-1: none).
    private var lastUncountedRecord = -1

    /// Memory the originals of compressed frames hold.
    private(set) var originalBytes = 0
    /// Memory the records hold (a server counts it against its budget).
    var recordBytes: Int { records.capacity * MemoryLayout<Record>.stride }

    /// The transport wrote `count` more bytes. True when it is time to ask
    /// the kernel what was acknowledged (`acknowledged`).
    mutating func didWrite(_ count: Int) -> Bool {
        written += count
        if !keepsBytes { released += count }
        return written >= nextAckCheck
    }

    /// The kernel holds `unacknowledged` of the written bytes. With
    /// `release`, every frame the peer's TCP acknowledged in full is let go
    /// (after each `checkStep` written); without, they stay as they are, for
    /// a refusal to be told apart among them (`RefusedMessage`), and only the
    /// answer is noted, for `sawInputEmpty`.
    mutating func acknowledged(unacknowledged: Int, in connection: inout Connection, release: Bool = true) {
        acknowledgedAtQuery = max(acknowledgedAtQuery, written - unacknowledged)
        // Frames are in stream order: the first one not acknowledged in full.
        var low = min(max(firstRecord, acknowledgedRecords - recordBase), records.count), high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].end <= acknowledgedAtQuery { low = middle + 1 } else { high = middle }
        }
        acknowledgedRecords = recordBase + low
        guard release else { return }
        self.release(upTo: acknowledgedAtQuery, in: &connection)
        nextAckCheck = written + Self.checkStep
    }

    /// Records the kernel's last answer says the peer's TCP acknowledged in
    /// full, released or not.
    private(set) var acknowledgedRecords = 0

    // MARK: confirmation

    /// A message (or a pong to no ping of ours) is in the read being processed.
    mutating func noteSignOfLife() {
        spoke = true
    }

    /// A sign of life read too late to confirm anything (the peer was gone).
    mutating func ignoreSignOfLife() {
        spoke = false
    }

    /// The kernel held some of what was written when it was last asked (or
    /// more was written since): a sign of life may confirm more once it is
    /// asked again. (The peer acknowledges while nothing is written, too.)
    var hasUnacknowledged: Bool { written > acknowledgedAtQuery }

    /// Every input was read (nothing in the kernel, in TLS, or half a frame)
    /// after the kernel last said what was acknowledged: anything read from
    /// now on was sent later, when the peer's TCP had acknowledged at least
    /// that. (A run of unconfirmed records is cut here, so that a sign of
    /// life confirms whole runs.)
    mutating func sawInputEmpty() {
        confirmableRecords = max(confirmableRecords, acknowledgedRecords)
    }

    /// Acknowledged frames a sign of life would now confirm that none confirmed yet.
    var hasNewConfirmable: Bool { acknowledgedRecords > confirmableRecords }

    /// After a read that brought a sign of life (`spoke`): the records that
    /// were confirmable before the read (`confirmable`, `confirmableRecords`
    /// then) are confirmed.
    mutating func confirmSignOfLife(upTo confirmable: Int) {
        spoke = false
        confirmedRecords = max(confirmedRecords, confirmable)
        unconfirmedRuns.removeAll { $0.end <= confirmedRecords }
        pings.removeAll { $0.records <= confirmedRecords }
    }

    /// We queued a ping: its pong will confirm the frames queued before it.
    mutating func pinged(_ payload: UnsafeRawBufferPointer) {
        if pings.count == Self.maxPings { pings.removeFirst() }
        pings.append((Array(payload), queuedRecords))
    }

    /// A pong came. One to a ping of ours confirms the frames queued before
    /// that ping (and answers the pings before it: the peer read them too);
    /// true then. Any other pong is a sign of life (false).
    mutating func pongReceived(_ payload: UnsafeRawBufferPointer) -> Bool {
        // The oldest ping with this payload: a peer answering an older ping
        // of the same payload confirms less, never more, than it read.
        guard let index = pings.firstIndex(where: { payload.elementsEqual($0.payload) }) else {
            noteSignOfLife()
            return false
        }
        let records = pings[index].records
        pings.removeSubrange(...index)
        guard records > confirmedRecords else { return true }
        confirmedRecords = records
        // A run that starts before the ping and ends after it was merged:
        // it stays, whole (unconfirmed is the safe side).
        unconfirmedRuns.removeAll { $0.end <= records }
        return true
    }

    /// Acknowledged, not confirmed, no longer kept.
    var releasedUnconfirmed: LineTally {
        var total = LineTally()
        for run in unconfirmedRuns { total.add(run.tally) }
        return total
    }

    // MARK: the end of the connection

    /// After the connection ended (client): each data frame still kept
    /// (written or not), in order, with its opcode, unmasked payload and
    /// fate; `unacknowledged` is what the kernel still held (nil if unknown:
    /// nothing more counts as acknowledged then). The frames confirmed and
    /// acknowledged are settled and not handed back. Returns the frames
    /// acknowledged and released earlier that were never confirmed. Control
    /// frames belonged to the connection and go.
    mutating func drain(from connection: inout Connection, unacknowledged: Int?,
                        _ body: (Opcode, UnsafeRawBufferPointer, Unsent) -> Void) -> LineTally {
        let ackedUpTo = unacknowledged.map { max(written - $0, acknowledgedAtQuery) } ?? acknowledgedAtQuery
        release(upTo: min(ackedUpTo, confirmedEnd), in: &connection)
        let earlier = releasedUnconfirmed
        var payload: [UInt8] = []
        var index = firstRecord
        connection.withOutput { all in
            var offset = 0
            while offset < all.count, let length = Self.frameLength(at: UnsafeRawBufferPointer(rebasing: all[offset...])) {
                let frame = UnsafeRawBufferPointer(rebasing: all[offset..<offset + length])
                let opcode = Opcode(rawValue: frame[0] & 0x0F)
                offset += length
                guard !opcode.isControl, index < records.count else { continue }
                let end = records[index].end
                let unsent = Unsent(tag: records[index].tag, acknowledged: end <= ackedUpTo, written: end <= written,
                                    confirmed: recordBase + index < confirmedRecords)
                if let original = originals[recordBase + index] {
                    original.withUnsafeBytes { body(opcode, $0, unsent) }
                } else {
                    Self.unmaskedPayload(of: frame, into: &payload)
                    payload.withUnsafeBytes { body(opcode, $0, unsent) }
                }
                index += 1
            }
        }
        discard(from: &connection)
        return earlier
    }

    /// After the connection ended: some frame kept was never acknowledged
    /// (`unacknowledged`: what the kernel still held; nil if unknown).
    func holdsUnacknowledged(_ unacknowledged: Int?) -> Bool {
        guard let last = records.last, records.count > firstRecord else { return false }
        return last.end > unacknowledged.map { max(written - $0, acknowledgedAtQuery) } ?? acknowledgedAtQuery
    }

    /// After the connection ended (server): where each data frame it
    /// carried stands; written but not acknowledged is unconfirmed as well,
    /// since a server sends nothing again. `confirmedAll`: the peer answered our Close, after
    /// reading every frame before it.
    mutating func fates(unacknowledged: Int?, confirmedAll: Bool) -> Fates {
        var fates = Fates()
        guard !confirmedAll else { return fates }
        let ackedUpTo = unacknowledged.map { max(written - $0, acknowledgedAtQuery) } ?? acknowledgedAtQuery
        fates.unconfirmed = releasedUnconfirmed
        for record in records[firstRecord...].dropFirst(max(0, confirmedRecords - recordBase - firstRecord)) {
            if record.end > written {
                fates.notSent.add(tag: record.tag)
            } else {
                fates.unconfirmed.add(tag: record.tag)
                if record.end > ackedUpTo { fates.unacknowledged.add(tag: record.tag) }
            }
        }
        return fates
    }

    /// After the connection ended, when nothing it kept is wanted back (the
    /// peer read it all): the frames go without being read back one by one.
    mutating func discard(from connection: inout Connection) {
        connection.discardOutput()
        records.removeAll()
        if !originals.isEmpty { originals.removeAll() }
        recordBase = 0
        firstRecord = 0
        originalBytes = 0
        released = written
        unconfirmedRuns.removeAll()
        pings.removeAll()
    }

    /// Stream offset where the last confirmed frame still kept ends (or the
    /// output's start when none is kept).
    private var confirmedEnd: Int {
        let count = confirmedRecords - recordBase
        guard count > firstRecord else { return released }
        return records[min(count, records.count) - 1].end
    }

    /// Consumes the frames that end at or before `limit`: every data frame
    /// whose recorded end is within it (with the control frames between
    /// them), in one step, then control frames after the last of them. A
    /// server's bytes are gone already; only its records go.
    private mutating func release(upTo limit: Int, in connection: inout Connection) {
        var last = firstRecord
        while last < records.count && records[last].end <= limit { last += 1 }
        if last > firstRecord {
            noteReleased(upTo: last)
            if !originals.isEmpty {
                for index in firstRecord ..< last {
                    originalBytes -= originals.removeValue(forKey: recordBase + index)?.count ?? 0
                }
            }
            if keepsBytes {
                connection.consumeOutput(records[last - 1].end - released)
                released = records[last - 1].end
            }
            dropRecords(upTo: last)
        }
        guard keepsBytes else { return }
        // A Pong or the Close after the last data frame released.
        while released < limit {
            guard let (length, isData) = connection.withOutput({ bytes -> (Int, Bool)? in
                guard let length = Self.frameLength(at: bytes) else { return nil }
                return (length, bytes[0] & 0x08 == 0)
            }), !isData, released + length <= limit else { return }
            connection.consumeOutput(length)
            released += length
        }
    }

    /// The records from `firstRecord` to `last` (exclusive) are being
    /// released: those not confirmed join the unconfirmed runs, cut where a
    /// ping was queued.
    private mutating func noteReleased(upTo last: Int) {
        var from = max(releasedRecords, confirmedRecords)
        let to = recordBase + last
        guard from < to else { return }
        var cuts = (pings.map(\.records) + [confirmableRecords]).filter { $0 > from && $0 < to }
        cuts.sort()
        cuts.append(to)
        for cut in cuts {
            let tally = self.tally(numbered: from ..< cut)
            // One run per stretch between pings: a run is cut only where a ping was queued.
            if let previous = unconfirmedRuns.last, previous.end == from, from != confirmableRecords,
               !pings.contains(where: { $0.records == from }) {
                unconfirmedRuns[unconfirmedRuns.count - 1].end = cut
                unconfirmedRuns[unconfirmedRuns.count - 1].tally.add(tally)
            } else {
                unconfirmedRuns.append((cut, tally))
            }
            from = cut
        }
        while unconfirmedRuns.count > Self.maxRuns {
            let oldest = unconfirmedRuns.removeFirst()
            unconfirmedRuns[0].tally.add(oldest.tally)
        }
    }

    /// The tally of a range of records still kept. Stdin lines only grow
    /// along a connection's stream (the queue, then new lines; --on-connect
    /// and --ack resends are uncounted), so without an uncounted record in
    /// the range the count is its length and the lines are found from its
    /// two ends, instead of a pass over every record at each release.
    private func tally(numbered numbers: Range<Int>) -> LineTally {
        var tally = LineTally()
        let indices = (numbers.lowerBound - recordBase) ..< (numbers.upperBound - recordBase)
        guard lastUncountedRecord >= numbers.lowerBound else {
            var first = 0, last = 0
            for index in indices where MessageTag.line(of: records[index].tag) > 0 {
                first = MessageTag.line(of: records[index].tag)
                break
            }
            for index in indices.reversed() where MessageTag.line(of: records[index].tag) > 0 {
                last = MessageTag.line(of: records[index].tag)
                break
            }
            return LineTally(count: indices.count, first: first, last: last)
        }
        for index in indices { tally.add(tag: records[index].tag) }
        return tally
    }

    /// Forgets the records before `index` (released).
    private mutating func dropRecords(upTo index: Int) {
        firstRecord = index
        if firstRecord == records.count {
            recordBase += records.count
            records.removeAll(keepingCapacity: records.capacity <= 1 << 16)
            firstRecord = 0
        } else if firstRecord > 4096 && firstRecord * 2 > records.count {
            recordBase += firstRecord
            records.removeFirst(firstRecord)
            firstRecord = 0
        }
    }

    /// Total length of the frame starting at `bytes`, or nil if its header is
    /// not all there (never the case for frames this side encoded).
    static func frameLength(at bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 2 else { return nil }
        let second = bytes[1]
        let maskLength = second & 0x80 != 0 ? 4 : 0
        switch second & 0x7F {
        case 126:
            guard bytes.count >= 4 else { return nil }
            return 4 + maskLength + (Int(bytes[2]) << 8 | Int(bytes[3]))
        case 127:
            guard bytes.count >= 10 else { return nil }
            var length = 0
            for i in 2..<10 { length = length << 8 | Int(bytes[i]) }
            return 10 + maskLength + length
        case let short:
            return 2 + maskLength + Int(short)
        }
    }

    private static func unmaskedPayload(of frame: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        let second = frame[1]
        var headerLength = 2
        if second & 0x7F == 126 { headerLength = 4 } else if second & 0x7F == 127 { headerLength = 10 }
        let masked = second & 0x80 != 0
        let payloadStart = headerLength + (masked ? 4 : 0)
        out.removeAll(keepingCapacity: true)
        out.append(contentsOf: frame[payloadStart...])
        guard masked else { return }
        let key = UInt32(frame[headerLength]) << 24 | UInt32(frame[headerLength + 1]) << 16
            | UInt32(frame[headerLength + 2]) << 8 | UInt32(frame[headerLength + 3])
        out.withUnsafeMutableBytes { Masking.apply(key: key, offset: 0, inPlace: $0) }
    }
}
