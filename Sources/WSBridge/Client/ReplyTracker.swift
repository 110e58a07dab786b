import WSJSON
import WSTransport
import WSMessages
/// How long the Close waits at stdin EOF for the replies of what was sent
/// (wspipe(1): OPTIONS, Ending, --linger and --reply): a request/response
/// server stops answering once it has a Close, so `echo REQUEST | wspipe URL`
/// must give the reply a chance first, without being fooled by a greeting or
/// by a server that sends two messages per request.
///
/// With `--reply KEYPATH` the rule is exact: every sent JSON message with a
/// value at KEYPATH is owed the first incoming message with the same value
/// there (raw JSON bytes after trimming, as `--ack` compares), for the whole
/// run; once none is owed the Close goes out, and the values still owed at
/// the end are reported (exit 1).
///
/// `--reply-match KEYPATH=VALUE` makes only a message with VALUE at KEYPATH
/// a reply (an ack before the result carries the key too).
///
/// Without it, the default rule, per connection:
/// - a sent JSON object with a top-level "id" (among the first
///   `trackedIDs` sent) is owed an incoming message with the same "id", so a
///   greeting or a push does not pay for it;
/// - every other sent message is owed one more incoming message, counted from
///   the first send (what came before cannot be a reply) among those that
///   matched no id; where the kernel stamps acknowledgements and arrivals
///   (`DeliveryAccount.ReadCredit`), a message pays only a request the
///   server's TCP had acknowledged before it arrived: a greeting sent before
///   the request reached the server pays for nothing;
/// - a server that sent back a message as it was (an echo server) owes every
///   later one the same way, whatever else it sends (a greeting does not pay
///   for the last echo); only the first `echoedMessages` text messages sent,
///   each of at most `echoedBytes`, are kept to compare;
/// - once nothing is owed, the Close goes out at once when the server sent
///   back every message as it was, the last one last: the answer is
///   unambiguous. Otherwise it still waits until
///   nothing has arrived for `quietNanos` (the larger of 15 ms and four
///   handshake round trips), so a second message right after the first (an
///   ack, then the result; a greeting, then the answer) is not cut off;
/// - a server that has answered none of at least `sinkEvidence` messages
///   although the first went out more than ten handshake round trips (at
///   least 10 ms) before everything was out does not answer each message (a
///   sink, an upload): nothing is owed to it. A few requests are always
///   waited for: a slow stdin must not cost a slow server its reply;
/// - all of it at most `--linger` from the moment everything is out.
/// It can still close early when an expected message comes more than the
/// quiet time after the message before it, and that one's request carried no
/// "id" (or the server does not echo it); or when it comes after an exact echo
/// of the last message sent.
///
/// Cost: only the first `trackedIDs` sent messages of a connection are
/// looked at; an incoming one only while an id is owed
/// and at most `examinedArrivals` times per connection (a server that echoes
/// none of them by then is counted instead).
struct ReplyTracker {
    /// --reply KEYPATH; nil: the default rule, keyed on "id".
    private let explicitPath: [[UInt8]]?
    private let path: [[UInt8]]
    private let lingerNanos: Int64
    /// Text is JSON (not -t/-b): keys can be read.
    private let readsJSON: Bool
    /// --reply-match: only a message that meets it is a reply.
    private let match: UntilCondition?

    static let trackedIDs = 64
    static let examinedArrivals = 1024
    static let minimumQuietNanos: Int64 = 15_000_000
    static let sinkEvidence = 8
    static let echoedMessages = 8
    static let echoedBytes = 4096
    /// The record numbers of the first this many requests without a key are
    /// kept, for the kernel's stamps to say which an arrival can answer.
    static let creditedRequests = 1024

    /// Values still owed a reply, with the order they were first sent in.
    private var owed: [[UInt8]: Int] = [:]
    private var serial = 0
    // The default rule's count, per connection.
    private var sentWithoutKey = 0
    private var otherArrivals = 0
    private var arrivals = 0
    private var sentCount = 0
    private var sentLookedAt = 0
    private var examined = 0
    private var firstSentAt: Int64?
    /// The channel's record number of each request without a key (up to
    /// `creditedRequests`), and the arrivals of the read being handled that
    /// answered no id, paid once the read's credit is known (`processed`).
    private var requestRecords: [Int] = []
    private var creditsRequests = true
    private var pendingArrivals = 0
    /// The channel has given a read's credit: arrivals wait for theirs.
    private var credited = false
    private var windowNanos: Int64 = 10_000_000
    private var quietNanos: Int64 = ReplyTracker.minimumQuietNanos
    /// Decided once per connection, the first time everything is out.
    private var answersEachMessage: Bool?
    private var lingerDeadline: Int64?
    private var lastArrivalAt: Int64?
    private var arrivalsSeen = 0
    /// The messages sent on the connection not echoed yet, oldest first,
    /// while every one sent so far was kept (`echoable`).
    private var unechoed: [[UInt8]] = []
    /// The record number of each message in `unechoed`.
    private var unechoedRecords: [Int] = []
    /// The record number of the message the last arrival echoed (`takeEchoedRecord`).
    private var echoedRecord: Int?
    private var echoable: Bool
    private let comparesEchoes: Bool
    /// The latest arrival was an echo of a message sent.
    private var lastWasEcho = false
    /// The server echoed a message on this connection: it owes the others.
    private var echoes = false
    /// Reply latency (`replied`), apart from the matching rule.
    private var latency = ReplyLatency()

    /// `socketIO`: the default rule keys on "ack_of", not "id" (a line that
    /// asks for an ack is shown with the id its answer will name:
    /// `SocketIOOutgoing.Packets.replyView`), and no echo is looked for: an
    /// event that comes back as it went is the application's (a chat room's
    /// broadcast), not an echo server's, and says nothing of the other lines.
    init(replyPath: [String]?, match: UntilCondition? = nil, lingerNanos: Int64, readsJSON: Bool,
         socketIO: Bool = false) {
        comparesEchoes = !socketIO
        echoable = !socketIO
        explicitPath = replyPath.map { $0.map { Array($0.utf8) } }
        path = explicitPath ?? [Array((socketIO ? "ack_of" : "id").utf8)]
        self.match = match
        self.lingerNanos = lingerNanos
        self.readsJSON = readsJSON
    }

    /// A tracker that owes nothing (tests, and before a session sets one).
    init() { self.init(replyPath: nil, lingerNanos: 0, readsJSON: false) }

    var isExplicit: Bool { explicitPath != nil }

    /// A new connection: the default rule counts again (what --reply owes
    /// stays owed: its reply may still come).
    mutating func connected(roundTripNanos: Int64) {
        if explicitPath == nil { owed.removeAll() }
        sentWithoutKey = 0
        otherArrivals = 0
        arrivals = 0
        sentCount = 0
        arrivalsSeen = 0
        sentLookedAt = 0
        examined = 0
        firstSentAt = nil
        requestRecords.removeAll()
        creditsRequests = true
        pendingArrivals = 0
        credited = false
        answersEachMessage = nil
        lingerDeadline = nil
        lastArrivalAt = nil
        closeReason = nil
        unechoed.removeAll()
        unechoedRecords.removeAll()
        echoedRecord = nil
        echoable = comparesEchoes
        lastWasEcho = false
        echoes = false
        latency.connected(keepingKeyed: explicitPath != nil)
        windowNanos = max(10 * roundTripNanos, 10_000_000)
        quietNanos = max(4 * roundTripNanos, Self.minimumQuietNanos)
    }

    /// A message went out on the connection, as the channel's record number
    /// `record`. The clock is read for the first only.
    mutating func sent(_ message: OutgoingMessage, now: @autoclosure () -> Int64, record: Int = 0) {
        if firstSentAt == nil { firstSentAt = now() }
        sentCount += 1
        if echoable { keepForEcho(message, record: record) }
        // Past the first `trackedIDs` (the default rule) `key` would say nil: not called.
        if case .text(let payload) = message, explicitPath != nil || sentLookedAt < Self.trackedIDs,
           let key = key(of: payload, recording: true) {
            if owed[key] == nil {
                serial += 1
                owed[key] = serial
                latency.sent(serial: serial, at: now())
            }
            return
        }
        guard explicitPath == nil else { return }
        sentWithoutKey += 1
        latency.sentWithoutKey(at: now())
        if creditsRequests && requestRecords.count < Self.creditedRequests { requestRecords.append(record) }
    }

    /// A data message came in (`payload` nil: binary).
    /// `verdict`: the JSON check's answer that came with the message (-1: none).
    /// Returns how long after its request this reply came, when it is one
    /// (the clock is read only then).
    @discardableResult
    mutating func received(text payload: UnsafeRawBufferPointer?, verdict: Int = -1,
                           now: @autoclosure () -> Int64 = monotonicNanos()) -> Reply? {
        // Before anything was sent on the connection a message is no reply,
        // unless its key says it is (--reply: owed since an earlier connection).
        guard firstSentAt != nil || isExplicit else { return nil }
        arrivals += 1
        lastWasEcho = echoable && isEcho(payload)
        if lastWasEcho { echoes = true }
        if !owed.isEmpty, let payload, let key = key(of: payload, recording: false, verdict: verdict),
           matches(payload), let serial = owed.removeValue(forKey: key) {
            return latency.replied(serial: serial, key: key, now: now())
        }
        pendingArrivals += 1
        // Without a key, only an exact echo is known to answer a message (the
        // oldest sent without a key): the count the default rule keeps is a
        // guess for closing, which a push or a greeting would fool.
        guard explicitPath == nil, lastWasEcho else { return nil }
        return latency.repliedWithoutKey(now: now())
    }

    /// A reply matched to its request: how long it took, and the --reply key (raw JSON).
    struct Reply: Equatable {
        var nanos: Int64
        var key: [UInt8]?
    }

    /// --reply-match: the message (valid JSON, since it has the key) meets it.
    private func matches(_ payload: UnsafeRawBufferPointer) -> Bool {
        match?.matches(payload) ?? true
    }

    /// The arrivals of the read just handled that answered no id pay for the
    /// oldest requests not paid yet: each one request, and with `credit`
    /// (the kernel's stamps) only a request the server's TCP had
    /// acknowledged before it arrived (the last arrival with `credit.last`,
    /// the others with `credit.others`).
    private mutating func payArrivals(_ credit: DeliveryAccount.ReadCredit?) {
        defer { pendingArrivals = 0 }
        guard let credit else { return otherArrivals += pendingArrivals }
        for index in 0 ..< pendingArrivals {
            let acknowledged = index == pendingArrivals - 1 ? credit.last : credit.others
            guard otherArrivals < sentWithoutKey else { return }
            if otherArrivals < requestRecords.count && requestRecords[otherArrivals] >= acknowledged { continue }
            otherArrivals += 1
        }
    }

    /// An echo server's answer can only be compared with what was sent while
    /// a copy is at hand: only the first few, short messages are kept (an
    /// upload is not copied).
    private mutating func keepForEcho(_ message: OutgoingMessage, record: Int) {
        guard sentCount <= Self.echoedMessages, case .text(let payload) = message,
              payload.count <= Self.echoedBytes else {
            echoable = false
            unechoed.removeAll()
            unechoedRecords.removeAll()
            return
        }
        unechoed.append(Array(payload))
        unechoedRecords.append(record)
    }

    /// Is `payload` the oldest message not echoed yet, byte for byte?
    private mutating func isEcho(_ payload: UnsafeRawBufferPointer?) -> Bool {
        guard let payload, let oldest = unechoed.first, oldest.count == payload.count,
              oldest.withUnsafeBytes({ $0.elementsEqual(payload) }) else { return false }
        unechoed.removeFirst()
        echoedRecord = unechoedRecords.removeFirst()
        return true
    }

    /// The record number of the message the server just sent back as it
    /// was, once: its application read it (and all before it), whatever
    /// the kernel could tell (`DeliveryAccount.echoed`).
    mutating func takeEchoedRecord() -> Int? {
        defer { echoedRecord = nil }
        return echoedRecord
    }

    /// A read of the connection was handled: the quiet time counts from the
    /// last arrival, not from the moment stdin ended, and its arrivals pay
    /// for the requests they can answer (`credit`: the kernel's word on what
    /// was acknowledged before they arrived; nil without it). The clock is
    /// read only when something arrived.
    mutating func processed(now: @autoclosure () -> Int64, credit: DeliveryAccount.ReadCredit? = nil) {
        if credit != nil { credited = true }
        if pendingArrivals > 0 { payArrivals(credit) }
        if arrivals != arrivalsSeen {
            arrivalsSeen = arrivals
            lastArrivalAt = now()
        }
    }

    /// The value at the key path of a sent (`recording`) or received message,
    /// within the default rule's limits.
    private mutating func key(of payload: UnsafeRawBufferPointer, recording: Bool, verdict: Int = -1) -> [UInt8]? {
        guard readsJSON else { return nil }
        if explicitPath == nil {
            if recording {
                // Counted whether or not an id is found: an upload of
                // messages without one must not be scanned message by message.
                guard sentLookedAt < Self.trackedIDs else { return nil }
                sentLookedAt += 1
            } else {
                examined += 1
                if examined > Self.examinedArrivals { return giveUpOnIDs() }
            }
        }
        guard case .valid = JSONScanner.validate(payload, verdict: verdict), let base = payload.baseAddress,
              let found = JSONScanner.valueRange(atPath: path, in: payload) else { return nil }
        let range = JSONSkipper.trimmingWhitespace(found, in: payload)
        return Array(UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count))
    }

    /// A server that echoed no id in all that time is counted instead.
    private mutating func giveUpOnIDs() -> [UInt8]? {
        // The requests with ids join the others, without their record numbers.
        creditsRequests = false
        requestRecords.removeAll()
        sentWithoutKey += owed.count
        owed.removeAll()
        latency.forgetKeyed()
        return nil
    }

    /// Why the wait ended, for -v (`takeCloseReason`).
    enum CloseReason: Equatable, CustomStringConvertible {
        case lingerRanOut(owed: Int)
        case nothingSent
        case notAnswering(sent: Int)
        case allReplied
        case allEchoed
        case quiet(nanos: Int64)

        var description: String {
            switch self {
            case .lingerRanOut(let owed):
                let still = owed == 1 ? " with 1 reply still owed" : owed > 1 ? " with \(owed) replies still owed" : ""
                return "--linger ran out" + still + "; closing"
            case .nothingSent: return "nothing was sent on this connection; closing"
            case .notAnswering(let sent):
                return "the server answered none of the \(sent) messages sent: not waiting for replies; closing"
            case .allReplied: return "every reply (--reply) is in; closing"
            case .allEchoed: return "the server sent back every message as it was; closing"
            case .quiet(let nanos): return "replies in, then nothing for \(nanos / 1_000_000) ms; closing"
            }
        }
    }

    /// Set when `wait` last said not to wait any longer.
    private var closeReason: CloseReason?

    /// Why the last `wait` said not to wait any longer, once.
    mutating func takeCloseReason() -> CloseReason? {
        defer { closeReason = nil }
        return closeReason
    }

    /// Asked once the input is over and everything is out: how much longer
    /// the Close should wait, nil for not at all.
    mutating func wait(now: Int64) -> Int64? {
        // Arrivals not paid yet wait for their read's credit, if the channel gives one.
        if pendingArrivals > 0 && !credited { payArrivals(nil) }
        if arrivals != arrivalsSeen {
            arrivalsSeen = arrivals
            lastArrivalAt = now
        }
        if lingerDeadline == nil { lingerDeadline = now + lingerNanos }
        let left = lingerDeadline! - now
        switch decide(now: now, left: left) {
        case .wait(let nanos):
            closeReason = nil
            return nanos
        case .close(let reason):
            closeReason = reason
            return nil
        }
    }

    private enum Decision {
        case wait(Int64)
        case close(CloseReason)
    }

    private mutating func decide(now: Int64, left: Int64) -> Decision {
        guard left > 0 else {
            return .close(.lingerRanOut(owed: isExplicit ? owed.count : owedByDefaultRule))
        }
        if isExplicit { return owed.isEmpty ? .close(.allReplied) : .wait(left) }
        guard let firstSentAt else { return .close(.nothingSent) }
        if answersEachMessage == nil {
            answersEachMessage = arrivals > 0 || sentCount < Self.sinkEvidence || now - firstSentAt < windowNanos
        }
        guard answersEachMessage! else { return .close(.notAnswering(sent: sentCount)) }
        if owedByDefaultRule > 0 { return .wait(left) }
        // An echo server sent back everything as it was, the last one last.
        if lastWasEcho && echoable { return .close(.allEchoed) }
        // Answered: a moment of quiet for a second message.
        let quietLeft = (lastArrivalAt ?? now) + quietNanos - now
        return quietLeft > 0 ? .wait(min(quietLeft, left)) : .close(.quiet(nanos: quietNanos))
    }

    /// The default rule: how many replies are still owed on this connection.
    private var owedByDefaultRule: Int {
        guard firstSentAt != nil else { return 0 }
        let echoesOwed = echoes && echoable ? unechoed.count : 0
        return max(owed.count + max(sentWithoutKey - otherArrivals, 0), echoesOwed)
    }

    /// --reply: the values still owed, in the order they were sent.
    var owedKeys: [[UInt8]] {
        guard isExplicit else { return [] }
        return owed.sorted { $0.value < $1.value }.map(\.key)
    }
}

/// When the requests still owed a reply went out (wspipe(1): --stats
/// reply_ms), kept beside `ReplyTracker`'s matching rule, which only says
/// which request a reply answers: by its key's serial, or, for an echo, the
/// oldest of those sent without a key. Bounded: keyed requests are at most
/// those owed; those without a key at most `ReplyTracker.trackedIDs` per
/// connection (later ones are not measured).
struct ReplyLatency {
    private var keyed: [Int: Int64] = [:]
    private var withoutKey: [Int64] = []
    private var withoutKeyHead = 0
    private var withoutKeySent = 0

    /// A new connection: the default rule's requests are no longer owed
    /// (with --reply, the keyed ones still are).
    mutating func connected(keepingKeyed: Bool) {
        if !keepingKeyed { keyed.removeAll() }
        withoutKey.removeAll()
        withoutKeyHead = 0
        withoutKeySent = 0
    }

    mutating func sent(serial: Int, at now: Int64) {
        keyed[serial] = now
    }

    mutating func sentWithoutKey(at now: @autoclosure () -> Int64) {
        withoutKeySent += 1
        guard withoutKeySent <= ReplyTracker.trackedIDs else { return }
        withoutKey.append(now())
    }

    mutating func forgetKeyed() {
        keyed.removeAll()
    }

    mutating func replied(serial: Int, key: [UInt8], now: Int64) -> ReplyTracker.Reply? {
        guard let sentAt = keyed.removeValue(forKey: serial) else { return nil }
        return ReplyTracker.Reply(nanos: now - sentAt, key: key)
    }

    mutating func repliedWithoutKey(now: Int64) -> ReplyTracker.Reply? {
        guard withoutKeyHead < withoutKey.count else { return nil }
        let sentAt = withoutKey[withoutKeyHead]
        withoutKeyHead += 1
        return ReplyTracker.Reply(nanos: now - sentAt, key: nil)
    }
}
