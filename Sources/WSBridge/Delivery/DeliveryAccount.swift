import WSCore

/// What the peer showed it has of the data frames a connection carried
/// (wspipe(1): RECONNECT AND REPLAY), as a pure machine: the channel tells
/// it what was queued and written, what the kernel said and what was read;
/// it answers with what to do next (ask the kernel, look at the input, arm
/// the look timer) and, at the end, where each frame stands: confirmed,
/// unread, unconfirmed, unacknowledged or never written.
///
/// Frames are numbered (records) in the order they are queued; offsets are
/// bytes of the frame stream from the connection's start. Three marks only
/// grow, each a number of records:
/// - `acknowledgedRecords`: the peer's TCP acknowledged them (the kernel's
///   latest word: SIOCOUTQ, or an acknowledgement's timestamp);
/// - `spokenRecords`: the peer's TCP had acknowledged them before the peer
///   last spoke (a message, a pong to no ping of ours, a normal Close);
/// - `confirmedRecords`: of those, the ones its application read, as far
///   as its receive window tells (`window`); a pong to one of our pings
///   confirms exactly what was queued before that ping.
/// So a frame below `confirmedRecords` is confirmed; up to `spokenRecords`
/// it is unread (its TCP took it, its application may not have read it);
/// up to `acknowledgedRecords` it is unconfirmed (taken after the peer last
/// spoke); the rest was written and not acknowledged, or never written.
///
/// When the peer spoke is known two ways:
/// - exactly, where the kernel stamps each acknowledgement and each arrival
///   (`startExact`, Linux): a sign of life counts what was acknowledged
///   before the segment that ended it arrived (`AckTimeline`);
/// - else a bound below it: what the kernel said was acknowledged just
///   before the channel last saw every input read (`inputSeenEmpty`), since
///   whatever it reads after that was sent later. The channel looks after
///   each `checkStep` bytes written, whenever it stops writing and reading,
///   and on the look timer while bytes are in flight.
///
/// Records are dropped once acknowledged and released (`release`); what was
/// acknowledged and not confirmed by then is kept as counts and stdin lines
/// (`Run`), so memory stays bounded by what the kernel holds, whatever the
/// peer does. Recording a frame is one append: it is paid once per message.
struct DeliveryAccount {
    /// A data frame: where it ends in the frame stream, and the sender's tag
    /// for it (a stdin line number, `MessageTag`).
    struct Record {
        var end: Int
        var tag: Int
    }

    /// Released records not confirmed when they were let go, contiguous:
    /// records `startRecord` to `endRecord` (exclusive; it ends at offset
    /// `endOffset`). `linear`: each record of it is one stdin line, the next
    /// after the one before (the common case), so a confirmation that ends
    /// inside it can cut it exactly (`cut(at:)`); any other run counts whole.
    struct Run {
        var startRecord: Int
        var endRecord: Int
        /// Where its first record ends (it grows to at most `runBytes` from there).
        var firstEnd: Int
        var endOffset: Int
        var tally: LineTally
        var linear: Bool

        /// The part of the run from record `record` on (inside it), when it
        /// is linear; else all of it.
        func from(_ record: Int) -> Run {
            guard linear, record > startRecord, record < endRecord else { return self }
            let skipped = record - startRecord
            var rest = self
            rest.startRecord = record
            rest.tally = LineTally(count: tally.count - skipped, first: tally.first + skipped, last: tally.last)
            return rest
        }

        /// `other`, the run right after this one, joins it.
        mutating func append(_ other: Run) {
            linear = linear && other.linear && other.startRecord == endRecord && other.tally.first == tally.last + 1
            endRecord = other.endRecord
            endOffset = other.endOffset
            tally.add(other.tally)
        }
    }

    /// What the channel is asked to do.
    struct Actions: OptionSet {
        let rawValue: UInt8
        /// Ask the kernel what it holds unacknowledged (`kernelHolds`).
        static let askKernel = Actions(rawValue: 1)
        /// Ask it, and let go of the frames acknowledged (`kernelHolds` with `release`).
        static let release = Actions(rawValue: 8)
        /// Ask the kernel whether input waits (`inputSeenEmpty`, or read it soon).
        static let lookAtInput = Actions(rawValue: 2)
        /// Arm the look timer for `lookInterval` (`lookTimerFired`), if not armed.
        static let armLookTimer = Actions(rawValue: 4)
    }

    /// Records acknowledged in full, to let go (the client's bytes, the
    /// originals of compressed frames): `records` by number, ending at
    /// `end`; control frames after them up to `acknowledged` may go too.
    struct Release: Equatable {
        var records: Range<Int>
        var end: Int
        var acknowledged: Int
    }

    /// Written between two asks of the kernel: frames are released in steps
    /// of it (and, without timestamps, a sign of life confirms at most this
    /// much less than its peer's TCP had acknowledged).
    static let checkStep = 64 << 10
    /// At most this many pings are matched to their pongs (a pong to an
    /// older one confirms nothing: safe), and at most this many runs are told
    /// apart (older runs merge: a confirmation that covers part of a merged
    /// run leaves all of it unconfirmed).
    static let maxPings = 16
    static let maxRuns = 64
    /// A run grows to about this many bytes, and no more: what the peer's
    /// window says it read (`window`) ends inside one, and a run is counted
    /// unread to its start unless it is linear (`Run.from`). The newest
    /// `maxRuns` of them reach back 1 MiB, past any receive window.
    static let runBytes = 16 << 10
    /// Without timestamps: the kernel is asked again when the channel stops
    /// only if the peer sent something since (its segments carry its
    /// acknowledgements) or this long went by; and while bytes are in flight
    /// the channel looks on a timer, every `fastLook` while the answer moves
    /// and less often (up to `slowLook`) while it does not, since an old
    /// answer that has not moved is as good as a new one.
    static let queryInterval: Int64 = 10_000_000
    static let fastLook: Int64 = 5_000_000
    static let slowLook: Int64 = 80_000_000

    /// The kernel stamps acknowledgements and arrivals (`startExact`).
    private(set) var exact = false

    // MARK: positions

    /// Frame-stream bytes written to the transport.
    private(set) var written = 0
    /// Frame-stream offset the peer's TCP acknowledged, by the kernel's latest word.
    private(set) var acknowledged = 0
    private(set) var acknowledgedRecords = 0
    private(set) var spokenRecords = 0
    private(set) var confirmedRecords = 0

    // MARK: records

    /// The records not released yet, oldest first from `firstRecord`: plain
    /// integers in one array, so that recording a frame costs one append
    /// and no reference counting.
    private var records: [Record] = []
    private var firstRecord = 0
    /// Record number of `records[0]`.
    private var recordBase = 0
    /// The number of the last record sent uncounted (-1: none).
    private var lastUncountedRecord = -1
    private var nextRelease = checkStep
    /// Where the last released record ends.
    private var releasedEnd = 0
    private var runs: [Run] = []
    /// Our pings not answered yet: the payload and how many data frames
    /// the peer reads before it.
    private var pings: [(payload: [UInt8], records: Int)] = []

    // MARK: without timestamps

    /// Records the kernel said were acknowledged before every input was
    /// last seen read: what a sign of life read from now on confirms.
    private(set) var confirmableRecords = 0
    private var askedAt: Int64 = 0
    private var readAtAsk = 0
    private var acknowledgedAtLook = 0
    private(set) var lookInterval = DeliveryAccount.fastLook

    // MARK: with timestamps

    private var timeline = AckTimeline()
    /// The arrival of the last byte of the last read (nil: not known), and
    /// a time no later than the arrival of anything read after it.
    private var readArrival: Int64?
    private var arrivalFloor: Int64?

    // MARK: the read being handled

    /// A sign of life in the read being handled, and whether it was the
    /// read's last event (so it arrived with the read's last byte).
    private(set) var spoke = false
    private var spokeLast = false
    /// `confirmableRecords` when the read began (without timestamps).
    private var confirmableAtRead = 0

    // MARK: the receive window

    /// The largest window the peer advertised (TCP_INFO), and the frame
    /// offset its application read at least, by the last sample: what it
    /// acknowledged less what its buffer may hold (`window`).
    private var largestWindow = 0
    private var windowRead: Int?

    private var wire = WireMap()

    init() {}

    /// The kernel stamps acknowledgements and arrivals for this connection.
    mutating func startExact() {
        exact = true
    }

    var queuedRecords: Int { recordBase + records.count }
    private var releasedRecords: Int { recordBase + firstRecord }
    /// Some frame is not confirmed yet: a sign of life is worth crediting.
    var wantsConfirmation: Bool { confirmedRecords < queuedRecords || !runs.isEmpty }
    /// The kernel held some of what was written when it was last asked (or
    /// more was written since).
    var hasUnacknowledged: Bool { written > acknowledged }
    /// Memory the records hold (a server counts it against its budget).
    var recordBytes: Int { records.capacity * MemoryLayout<Record>.stride }

    // MARK: queued and written

    /// A data frame was queued; it ends at frame-stream offset `end`.
    @inline(__always)
    mutating func recorded(tag: Int, end: Int) {
        // A replayed message's line is not a stdin line, an attachment counts
        // with its packet: their tally takes the slow path.
        if tag < 0 || tag & (MessageTag.replayed | MessageTag.attachment) != 0 { lastUncountedRecord = queuedRecords }
        records.append(Record(end: end, tag: tag))
    }

    /// A control frame of `length` bytes was put ahead of the frames not
    /// written yet, at `offset` (a ping that must not wait behind them):
    /// the records after it end that much later.
    mutating func inserted(_ length: Int, at offset: Int) {
        var index = records.count - 1
        while index >= firstRecord && records[index].end > offset {
            records[index].end += length
            index -= 1
        }
    }

    /// Records that end at or before `offset`: kept ones exactly, released
    /// ones to the end of the run that holds them (a run is never split). A
    /// count below `confirmedRecords` may come back as `confirmedRecords`:
    /// those are settled whatever the offset.
    func records(upTo offset: Int) -> Int {
        if firstRecord < records.count && records[firstRecord].end <= offset { return keptRecords(upTo: offset) }
        if offset >= releasedEnd { return releasedRecords }
        let run = runs.last { $0.endOffset <= offset }
        return max(run?.endRecord ?? 0, min(confirmedRecords, releasedRecords))
    }

    /// Records still kept that end at or before `offset`, and all released ones.
    private func keptRecords(upTo offset: Int) -> Int {
        var low = firstRecord, high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].end <= offset { low = middle + 1 } else { high = middle }
        }
        return recordBase + low
    }

    /// `count` bytes of frames went to the transport, which has now written
    /// `transportTotal` bytes in all (TLS adds its own; a server's 101 came
    /// first). Every `checkStep` it is time to ask the kernel and release.
    @inline(__always)
    mutating func wrote(_ count: Int, transportTotal: Int) -> Actions {
        written += count
        wire.wrote(frames: written, transport: transportTotal)
        return written >= nextRelease ? [.release, .lookAtInput] : []
    }

    /// Bytes the transport wrote that are no frame (the server's 101).
    mutating func wrotePreamble(transportTotal: Int) {
        wire.wrote(frames: written, transport: transportTotal)
    }

    // MARK: what the kernel says

    /// The kernel holds `unacknowledged` of the `transportTotal` bytes
    /// written. With `release`, the frames acknowledged in full are let go
    /// (`Release`, for the client's bytes); without, they stay, for a
    /// refusal to be told apart among them (`RefusedMessage`), and only the
    /// answer is noted. `now`, `bytesRead`: when, and how much the peer had
    /// sent then (without timestamps, when to ask again).
    mutating func kernelHolds(_ unacknowledged: Int, transportTotal: Int, now: Int64, bytesRead: Int,
                              release: Bool) -> Release? {
        askedAt = now
        readAtAsk = bytesRead
        acknowledge(upTo: wire.frames(atTransport: transportTotal - unacknowledged))
        guard release else { return nil }
        nextRelease = written + Self.checkStep
        return self.release(upTo: acknowledged)
    }

    /// The kernel stamped an acknowledgement: the peer's TCP had everything
    /// up to transport offset `transport` at wall-clock `nanos`.
    mutating func acknowledgedAt(transport: Int, nanos: Int64) {
        let offset = wire.frames(atTransport: transport)
        timeline.add(offset: offset, nanos: nanos)
        acknowledge(upTo: offset)
    }

    private mutating func acknowledge(upTo offset: Int) {
        guard offset > acknowledged else { return }
        acknowledged = offset
        acknowledgedRecords = max(acknowledgedRecords, records(upTo: offset))
    }

    /// TCP_INFO: the peer's TCP acknowledged `acknowledgedTransport` bytes
    /// and advertises `window` bytes now. Its window is its buffer's free
    /// space: what waits unread there closed it from the largest window it
    /// advertised. That is a bound the kernel does not promise, so it is
    /// taken twice (`windowMargin`): the window shrinks by a little less than
    /// the bytes that wait (Linux counts their memory, not their bytes:
    /// 0.92 of them on loopback), and it grows with the first bytes that
    /// arrive even while none is read (measured: 100 KB unread closed it by
    /// 74 KB from its largest). Its application read at least what its TCP
    /// acknowledged less that.
    mutating func window(acknowledgedTransport: Int, window: Int) {
        largestWindow = max(largestWindow, window)
        let read = acknowledgedTransport - Self.windowMargin * (largestWindow - window)
        windowRead = read > 0 ? wire.frames(atTransport: read) : 0
        acknowledge(upTo: wire.frames(atTransport: acknowledgedTransport))
    }

    static let windowMargin = 2

    // MARK: looking at the input (without timestamps)

    /// The channel stopped writing and reading: without timestamps it asks
    /// the kernel if what it acknowledged may have moved (the peer sent
    /// something since, or `queryInterval` went by), then looks at the
    /// input; the look timer runs while bytes are in flight.
    mutating func stopped(now: Int64, bytesRead: Int) -> Actions {
        guard !exact else { return stampsMissing && wantsConfirmation ? .lookAtInput : [] }
        var actions: Actions = .lookAtInput
        if hasUnacknowledged && (bytesRead != readAtAsk || now - askedAt >= Self.queryInterval) {
            actions.insert(.askKernel)
        }
        if hasUnacknowledged { actions.insert(.armLookTimer) }
        return actions
    }

    /// The look timer ran out and the kernel was asked again: look at the
    /// input, and arm the timer again, sooner while the acknowledged offset
    /// moves.
    mutating func lookTimerFired() -> Actions {
        guard !exact else { return [] }
        let moved = acknowledged > acknowledgedAtLook
        acknowledgedAtLook = acknowledged
        lookInterval = moved ? Self.fastLook : min(lookInterval * 2, Self.slowLook)
        return hasUnacknowledged ? [.lookAtInput, .armLookTimer] : .lookAtInput
    }

    /// Acknowledged frames a sign of life would now confirm that none
    /// confirmed yet: only then is the input worth a look.
    var wantsLook: Bool { exact ? stampsMissing && wantsConfirmation : acknowledgedRecords > confirmableRecords }

    /// Every input was read (nothing in the kernel, in TLS, or half a frame)
    /// after the kernel last said what was acknowledged: anything read from
    /// now on was sent later, when the peer's TCP had acknowledged at least
    /// that. With stamps, it arrived after `wallClock` (the reads that come
    /// without a stamp are credited so).
    mutating func inputSeenEmpty(wallClock: Int64 = 0) {
        confirmableRecords = max(confirmableRecords, acknowledgedRecords)
        if exact { arrivalFloor = max(arrivalFloor ?? wallClock, wallClock) }
    }

    // MARK: reading

    /// A read brought bytes; `arrival` is when the last of them arrived, by
    /// the kernel's stamp (nil: not known).
    mutating func arrived(_ arrival: Int64?) {
        readArrival = arrival
        stampsMissing = arrival == nil
    }

    /// Bytes that came with the handshake's response are handled: they
    /// arrived before anything the account knows of.
    mutating func arrivedBeforeStart() {
        readArrival = nil
        beforeStart = true
    }

    private var beforeStart = false

    /// The last read came without the kernel's stamp (the first reads after
    /// the stamps are turned on may: Linux turns arrival stamps on for the
    /// whole system a moment later, when no socket had them): until one
    /// comes, the channel looks at its input when it stops, so that an
    /// unstamped read is credited with what was acknowledged before the
    /// input was last seen empty, as without stamps.
    private(set) var stampsMissing = true

    /// The read's bytes are about to be handled.
    mutating func readBegins() {
        confirmableAtRead = confirmableRecords
        spoke = false
        spokeLast = false
        failedLast = false
    }

    /// A message, a pong to no ping of ours, or a normal Close is in the
    /// read being handled; `last`: it ends the read.
    @inline(__always)
    mutating func signOfLife() {
        spoke = true
        spokeLast = true
    }

    /// Another event of the read (a ping, an error Close): a sign of life
    /// before it did not end the read.
    @inline(__always)
    mutating func otherEvent() {
        spokeLast = false
    }

    /// The peer's bytes broke the protocol: they were written by its
    /// application as a message is, so they are a sign of life, and the
    /// connection reads nothing after them, so they end the read.
    mutating func brokeProtocol() {
        signOfLife()
        failedLast = true
    }

    /// The read ended in bytes that broke the protocol (`brokeProtocol`): no
    /// frame is under way that the read's last byte may belong to.
    private var failedLast = false

    /// The peer's Close came. One that says all is well (no code, 1000,
    /// 1001) is a sign of life where the peer's window tells what it read:
    /// it was sent when its TCP had acknowledged what came before, and its
    /// window says how much of that its application read. Elsewhere, and
    /// an error Close always (a refusal above all), it says nothing.
    mutating func closeReceived(normal: Bool) {
        if normal && windowRead != nil { signOfLife() } else { otherEvent() }
    }

    /// What the messages of the read just handled can answer (the reply
    /// rule: `ReplyTracker`): the records the peer's TCP had acknowledged
    /// before the last of them arrived, when it ended the read, and before
    /// the others. Nil where the kernel gives no stamps.
    struct ReadCredit: Equatable {
        var last: Int
        var others: Int
    }

    private(set) var readCredit: ReadCredit?

    /// The read was handled. `endsBetweenMessages`: it ended on a message's
    /// last byte (no frame under way). `peerGone`: it was read after the
    /// peer went (a reset, a hang-up): sent before, but its TCP went on
    /// acknowledging until the end, and what it had not read is lost with
    /// it: it confirms nothing new.
    mutating func readEnded(endsBetweenMessages: Bool, peerGone: Bool) {
        defer {
            if let readArrival { arrivalFloor = max(arrivalFloor ?? readArrival, readArrival) }
            if let arrivalFloor { timeline.forget(before: arrivalFloor) }
            spoke = false
        }
        readCredit = nil
        let early = beforeStart
        beforeStart = false
        guard spoke else { return }
        guard !early else { return readCredit = ReadCredit(last: confirmedRecords, others: confirmedRecords) }
        guard exact else { return peerGone ? () : spokeAt(confirmableAtRead) }
        // A sign of life arrived with the read's last byte when it ended the
        // read, else after everything read before it.
        let others = arrivalFloor.map { max(records(upTo: timeline.acknowledged(before: $0)), confirmedRecords) }
        var last = others
        if spokeLast && (endsBetweenMessages || failedLast), let readArrival {
            last = max(records(upTo: timeline.acknowledged(arrivingAt: readArrival)), confirmedRecords)
        }
        readCredit = ReadCredit(last: last ?? confirmedRecords, others: others ?? confirmedRecords)
        if let last, !peerGone { spokeAt(last) }
    }

    /// The peer spoke when its TCP had acknowledged `count` records: those
    /// it read, by its window, are confirmed; the others are unread.
    private mutating func spokeAt(_ count: Int) {
        spokenRecords = max(spokenRecords, count)
        let read = windowRead.map { min(count, records(upTo: $0)) } ?? count
        confirm(upTo: read)
    }

    private mutating func confirm(upTo count: Int) {
        guard count > confirmedRecords else { return }
        confirmedRecords = count
        spokenRecords = max(spokenRecords, count)
        runs.removeAll { $0.endRecord <= count }
        // A confirmation that ends inside a run cuts it where it can: what
        // the peer read is no longer counted unread or unconfirmed.
        if !runs.isEmpty { runs[0] = runs[0].from(count) }
        pings.removeAll { $0.records <= count }
    }

    /// The peer sent back record `number` as it was (an echo server): its
    /// application read it, and everything before it.
    mutating func echoed(record number: Int) {
        guard number < queuedRecords else { return }
        confirm(upTo: number + 1)
    }

    // MARK: pings

    /// We queued a ping: its pong will confirm the `before` data frames
    /// ahead of it (all those queued, unless it went ahead of some).
    mutating func pinged(_ payload: UnsafeRawBufferPointer, before: Int? = nil) {
        if pings.count == Self.maxPings { pings.removeFirst() }
        pings.append((Array(payload), before ?? queuedRecords))
    }

    /// A pong came. One to a ping of ours confirms the frames before that
    /// ping (and answers the pings before it: the peer read them too); true
    /// then. Any other pong is a sign of life (false).
    mutating func pongReceived(_ payload: UnsafeRawBufferPointer) -> Bool {
        // The oldest ping with this payload: a peer answering an older ping
        // of the same payload confirms less, never more, than it read.
        guard let index = pings.firstIndex(where: { payload.elementsEqual($0.payload) }) else {
            signOfLife()
            return false
        }
        let count = pings[index].records
        pings.removeSubrange(...index)
        otherEvent()
        confirm(upTo: count)
        return true
    }

    // MARK: releasing

    /// Lets go of the records that end at or before `limit`: those not
    /// confirmed join the runs.
    private mutating func release(upTo limit: Int) -> Release {
        var last = firstRecord
        while last < records.count && records[last].end <= limit { last += 1 }
        let from = releasedRecords
        if last > firstRecord {
            releasedEnd = records[last - 1].end
            noteReleased(upTo: last)
            dropRecords(upTo: last)
        }
        return Release(records: from ..< releasedRecords, end: releasedEnd, acknowledged: limit)
    }

    /// The records from `firstRecord` to `last` (exclusive) are released:
    /// those not confirmed join the runs, cut where a later confirmation may
    /// end (a ping, the confirmable mark, an acknowledgement's stamp), so
    /// that it confirms whole runs. Between two cuts a run grows.
    private mutating func noteReleased(upTo last: Int) {
        var from = max(releasedRecords, confirmedRecords)
        let to = recordBase + last
        guard from < to else { return }
        var marks = pings.map(\.records) + [confirmableRecords, spokenRecords]
        timeline.forEachOffset { marks.append(keptRecords(upTo: $0)) }
        var cuts = marks.filter { $0 > from && $0 < to }
        cuts.sort()
        cuts.append(to)
        for cut in cuts {
            while from < cut {
                // At most `runBytes` (and a record) a run: the receive
                // window's mark, which is no cut, ends inside one.
                let firstEnd = records[from - recordBase].end
                let end = max(from + 1, min(cut, keptRecords(upTo: firstEnd + Self.runBytes)))
                let (tally, linear) = self.tally(numbered: from ..< end)
                let run = Run(startRecord: from, endRecord: end, firstEnd: firstEnd,
                              endOffset: records[end - 1 - recordBase].end, tally: tally, linear: linear)
                if let previous = runs.last, previous.endRecord == from, !marks.contains(from),
                   run.endOffset - previous.firstEnd <= Self.runBytes {
                    runs[runs.count - 1].append(run)
                } else {
                    runs.append(run)
                }
                from = end
            }
        }
        while runs.count > Self.maxRuns {
            var oldest = runs.removeFirst()
            oldest.append(runs[0])
            runs[0] = oldest
        }
    }

    /// The tally of a range of records still kept. Stdin lines only grow
    /// along a connection's stream (the queue, then new lines; --on-connect
    /// and --ack resends are uncounted), so without an uncounted record in
    /// the range the count is its length and the lines are found from its
    /// two ends, instead of a pass over every record at each release (but
    /// for the check that it is linear, one compare a record).
    private func tally(numbered numbers: Range<Int>) -> (LineTally, linear: Bool) {
        let indices = (numbers.lowerBound - recordBase) ..< (numbers.upperBound - recordBase)
        guard lastUncountedRecord >= numbers.lowerBound else {
            let start = MessageTag.line(of: records[indices.lowerBound].tag)
            var linear = start > 0
            var expected = start
            for index in indices where linear {
                linear = MessageTag.line(of: records[index].tag) == expected
                expected += 1
            }
            if linear { return (LineTally(count: indices.count, first: start, last: expected - 1), true) }
            var first = 0, last = 0
            for index in indices where MessageTag.line(of: records[index].tag) > 0 {
                first = MessageTag.line(of: records[index].tag)
                break
            }
            for index in indices.reversed() where MessageTag.line(of: records[index].tag) > 0 {
                last = MessageTag.line(of: records[index].tag)
                break
            }
            return (LineTally(count: indices.count, first: first, last: last), false)
        }
        var tally = LineTally()
        for index in indices { tally.add(tag: records[index].tag) }
        return (tally, false)
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

    // MARK: the end

    /// Where a data frame stands at the end of its connection.
    struct Fate: Equatable {
        var tag: Int
        /// Written to the transport in full.
        var written: Bool
        /// The peer's TCP acknowledged all of it.
        var acknowledged: Bool
        /// The peer read it (a sign of life, a pong, its window).
        var confirmed: Bool
        /// Its TCP had it before the peer last spoke; its application may not have read it.
        var unread: Bool
    }

    /// What became of the data frames of a connection that ended.
    struct Fates: Equatable {
        /// Acknowledged by its TCP before it last spoke, maybe not read.
        var unread = LineTally()
        /// Written and not confirmed (acknowledged after it last spoke, or
        /// not acknowledged at all: a server sends nothing again).
        var unconfirmed = LineTally()
        /// Of those, the ones the peer's TCP never acknowledged.
        var unacknowledged = LineTally()
        /// Never written.
        var notSent = LineTally()
    }

    /// The connection ended with `unacknowledged` bytes of the
    /// `transportTotal` still in the kernel (nil: not known; nothing more
    /// counts as acknowledged then).
    mutating func ended(unacknowledged: Int?, transportTotal: Int) {
        if let unacknowledged { acknowledge(upTo: wire.frames(atTransport: transportTotal - unacknowledged)) }
    }

    /// The records still kept, in order, with their fates.
    func forEachKept(_ body: (Int, Fate) -> Void) {
        for index in firstRecord ..< records.count {
            let number = recordBase + index
            let record = records[index]
            body(number, Fate(tag: record.tag, written: record.end <= written, acknowledged: record.end <= acknowledged,
                              confirmed: number < confirmedRecords,
                              unread: number >= confirmedRecords && number < spokenRecords))
        }
    }

    /// Released records, acknowledged and not confirmed: unread (taken
    /// before the peer last spoke) and unconfirmed (after). A run that
    /// straddles a mark counts on its weaker side.
    func releasedFates() -> (unread: LineTally, unconfirmed: LineTally) {
        var unread = LineTally(), unconfirmed = LineTally()
        for whole in runs where whole.endRecord > confirmedRecords {
            let run = whole.from(confirmedRecords)
            if run.endRecord <= spokenRecords {
                unread.add(run.tally)
            } else if run.linear && run.startRecord < spokenRecords {
                // Its TCP took the front of it before the peer last spoke.
                let rest = run.from(spokenRecords)
                unread.add(LineTally(count: run.tally.count - rest.tally.count, first: run.tally.first,
                                     last: rest.tally.first - 1))
                unconfirmed.add(rest.tally)
            } else {
                unconfirmed.add(run.tally)
            }
        }
        return (unread, unconfirmed)
    }

    /// Where every data frame stands (the server's account of one client:
    /// nothing is sent again there, so written and not acknowledged is
    /// unconfirmed as well). `confirmedAll`: the peer answered our Close,
    /// after reading every frame before it.
    func fates(confirmedAll: Bool) -> Fates {
        var fates = Fates()
        guard !confirmedAll else { return fates }
        (fates.unread, fates.unconfirmed) = releasedFates()
        forEachKept { _, fate in
            if fate.confirmed { return }
            if !fate.written { return fates.notSent.add(tag: fate.tag) }
            if fate.unread { return fates.unread.add(tag: fate.tag) }
            fates.unconfirmed.add(tag: fate.tag)
            if !fate.acknowledged { fates.unacknowledged.add(tag: fate.tag) }
        }
        return fates
    }

    /// Where the last confirmed and acknowledged record still kept ends (the
    /// start of what is still wanted back), or nil when none is.
    var settledEnd: Int? {
        let count = min(confirmedRecords, acknowledgedRecords) - recordBase
        guard count > firstRecord else { return nil }
        return records[min(count, records.count) - 1].end
    }

    /// Lets go of the confirmed and acknowledged records still kept (the
    /// end of the connection: they are not wanted back).
    mutating func releaseSettled() -> Release? {
        settledEnd.map { release(upTo: $0) }
    }

    /// Nothing is wanted back (the peer read it all): every record goes.
    mutating func discard() {
        records.removeAll()
        recordBase = 0
        firstRecord = 0
        runs.removeAll()
        pings.removeAll()
    }
}
