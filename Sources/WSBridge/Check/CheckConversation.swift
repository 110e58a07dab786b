import WSCore
import WSJSON

/// One recorded connection played against the live server and compared
/// (wspipe(1): CHECKING A SERVER), as a pure machine: the session feeds it
/// what happens on the connection and performs the actions it returns.
///
/// Paced by the replies: a message to send goes as soon as every message the
/// recording expects before it (on this connection) has arrived, each awaited
/// at most `timeoutNanos`. After the last one expected, `settleNanos` more for
/// messages the recording does not have (or, when the recording's connection
/// ended with the server's Close, up to `timeoutNanos` for that Close). Any
/// message that is not the one expected fails the check, except those of a
/// type `--allow-extra` names; with `--check-order any`, the messages expected
/// between two sent ones may come in any order.
struct CheckConversation {
    enum Phase: Equatable {
        case notStarted
        /// Waiting for the expected messages of `waitingFor`.
        case awaiting
        /// A message expected later came first: still waiting for the one
        /// expected here, to tell a reply out of order (it comes after all)
        /// from a missing one (it does not).
        case awaitingAfterEarly(EarlyArrival)
        /// Everything expected came: extra messages fail it until the settle time is over.
        case settling
        /// Waiting for the server's Close the recording ends with.
        case awaitingClose
        case finished
    }

    /// A message that is one expected later, and how it differs from the one awaited.
    struct EarlyArrival: Equatable {
        /// The step awaited, and the line of the later one it is.
        var awaited: Int
        var line: Int
        var difference: Difference
        var actual: [UInt8]
    }

    enum Event {
        case opened(now: Int64)
        case received(ActualMessage, now: Int64)
        case timerFired(now: Int64)
        /// The server's Close (code nil: none in the frame).
        case closedByServer(code: UInt16?, reason: String)
        /// The connection broke without a Close, or the peer broke the protocol.
        case lost(String, status: ExitStatus)
        /// The message of the recording's `line` could not be sent (with its
        /// captures' values it is no Socket.IO event, no value of --codec's format).
        case unsendable(line: Int, reason: String)
    }

    enum Action: Equatable {
        /// The message of the recording's `line` (its `${NAME}` filled in).
        case send(OutgoingTemplate.Form, bytes: [UInt8], line: Int)
        /// The phase's one timer, from now (replaces the one before).
        case armTimer(nanos: Int64)
        /// The expected message at `line` came `nanos` after the message before it was sent.
        case replied(nanos: Int64, line: Int)
        case finish(CheckOutcome)
    }

    struct Settings {
        var timeoutNanos: Int64
        var settleNanos: Int64
        var anyOrder: Bool
        /// Types (at `typePath`) of the messages that are skipped.
        var allowExtra: Set<[UInt8]>
        var typePath: [[UInt8]]
    }

    private let script: CheckScript.ConnectionScript
    private let settings: Settings
    private(set) var phase = Phase.notStarted
    /// The comparison, with the captures bound so far (they outlive the connection).
    private(set) var comparison: MessageComparison
    /// The first step not done.
    private var next = 0
    /// The steps awaited now: the next one, or with any order every
    /// expected one up to the next message to send.
    private var waitingFor: [Int] = []
    private var lastSentAt: Int64?
    /// The last step whose message came.
    private var lastExpected: Int?

    init(script: CheckScript.ConnectionScript, settings: Settings, comparison: MessageComparison) {
        self.script = script
        self.settings = settings
        self.comparison = comparison
    }

    mutating func handle(_ event: Event) -> [Action] {
        if phase == .finished { return [] }
        switch event {
        case .opened(let now):
            guard phase == .notStarted else { return [] }
            return advance(now: now)
        case .received(let message, let now):
            return received(message, now: now)
        case .timerFired:
            return timerFired()
        case .closedByServer(let code, let reason):
            return closed(code: code, reason: reason)
        case .lost(let reason, let status):
            if phase == .awaitingClose && script.serverCloseCode == 1006 { return finish(.passed) }
            let step = awaitedStep
            return fail(.lost(reason: reason, whileWaiting: step != nil), status: status, at: step)
        case .unsendable(let line, let reason):
            var failure = CheckFailure(kind: .unsendable(reason: reason), status: .checkFailed, connection: script.number)
            failure.line = line
            return finish(.failed(failure))
        }
    }

    // MARK: moving on

    /// Sends what is due, then waits for what comes next.
    private mutating func advance(now: Int64) -> [Action] {
        var actions: [Action] = []
        while next < script.steps.count, case .send(let template, let line) = script.steps[next] {
            actions.append(.send(template.form, bytes: template.render(comparison.captures), line: line))
            lastSentAt = now
            next += 1
        }
        if next < script.steps.count {
            phase = .awaiting
            waitingFor = [next]
            while settings.anyOrder, waitingFor.last! + 1 < script.steps.count,
                  case .expect = script.steps[waitingFor.last! + 1] {
                waitingFor.append(waitingFor.last! + 1)
            }
            actions.append(.armTimer(nanos: settings.timeoutNanos))
        } else if script.serverCloseCode != nil {
            phase = .awaitingClose
            actions.append(.armTimer(nanos: settings.timeoutNanos))
        } else {
            phase = .settling
            actions.append(.armTimer(nanos: settings.settleNanos))
        }
        return actions
    }

    private mutating func received(_ message: ActualMessage, now: Int64) -> [Action] {
        if isAllowedExtra(message) { return [] }
        switch phase {
        case .awaiting:
            for (position, step) in waitingFor.enumerated() {
                guard case .expect(let expected, let line) = script.steps[step],
                      comparison.compare(expected, message) == nil else { continue }
                waitingFor.remove(at: position)
                lastExpected = step
                var actions: [Action] = lastSentAt.map { [.replied(nanos: now - $0, line: line)] } ?? []
                if waitingFor.isEmpty {
                    next = settings.anyOrder ? lastOfGroup(from: next) + 1 : step + 1
                    actions += advance(now: now)
                } else {
                    actions.append(.armTimer(nanos: settings.timeoutNanos))
                }
                return actions
            }
            return mismatch(message)
        case .awaitingAfterEarly(let early):
            // The one awaited came after all: the server answered out of order.
            guard case .expect(let expected, _) = script.steps[early.awaited],
                  comparison.compare(expected, message) == nil else { return [] }
            return fail(.differs(early.difference, actual: early.actual, early: .init(line: early.line, awaitedCame: true)),
                        status: .checkFailed, at: early.awaited)
        case .settling, .awaitingClose:
            return fail(.unexpected(actual: Self.excerpt(message)), status: .checkFailed, at: nil)
        case .notStarted, .finished:
            return []
        }
    }

    /// The last step of the group of expected messages that starts at `step`.
    private func lastOfGroup(from step: Int) -> Int {
        var last = step
        while last + 1 < script.steps.count, case .expect = script.steps[last + 1] { last += 1 }
        return last
    }

    private mutating func timerFired() -> [Action] {
        switch phase {
        case .awaiting:
            return fail(.timedOut(nanos: settings.timeoutNanos, instead: nil), status: .checkFailed, at: awaitedStep)
        case .awaitingAfterEarly(let early):
            return fail(.timedOut(nanos: settings.timeoutNanos, instead: .init(line: early.line, awaitedCame: false)),
                        status: .checkFailed, at: early.awaited)
        case .settling:
            return finish(.passed)
        case .awaitingClose:
            return fail(.noClose(expected: script.serverCloseCode ?? 0, nanos: settings.timeoutNanos),
                        status: .checkFailed, at: nil)
        case .notStarted, .finished:
            return []
        }
    }

    private mutating func closed(code: UInt16?, reason: String) -> [Action] {
        let number = Int(code ?? 1005)
        let isError = !(number == 1000 || number == 1001 || number == 1005)
        switch phase {
        case .awaitingClose where number == script.serverCloseCode:
            return finish(.passed)
        case .settling where !isError:
            return finish(.passed)
        case .awaiting, .awaitingAfterEarly:
            return fail(.closed(code: number, reason: reason, expected: nil),
                        status: isError ? .closedWithError : .checkFailed, at: awaitedStep)
        default:
            let expected = script.serverCloseCode
            return fail(.closed(code: number, reason: reason, expected: expected),
                        status: isError && expected == nil ? .closedWithError : .checkFailed, at: nil)
        }
    }

    private mutating func finish(_ outcome: CheckOutcome) -> [Action] {
        phase = .finished
        return [.finish(outcome)]
    }

    // MARK: failing

    /// The step a failure now is about: the one awaited.
    private var awaitedStep: Int? {
        switch phase {
        case .awaiting: return waitingFor.first
        case .awaitingAfterEarly(let early): return early.awaited
        default: return nil
        }
    }

    /// The message is not the one expected. When it is one expected later,
    /// the one awaited is given its time still (out of order, or missing?);
    /// otherwise the check fails with the difference from the closest one awaited.
    private mutating func mismatch(_ message: ActualMessage) -> [Action] {
        let candidate = closestCandidate(message)
        guard case .expect(let expected, _) = script.steps[candidate] else { return [] }
        var scratch = comparison
        let difference = scratch.compare(expected, message)
            ?? Difference(path: KeyPath(), kind: .differs, expected: nil, actual: nil)
        let actual = Self.excerpt(message)
        if let line = expectedLater(message) {
            phase = .awaitingAfterEarly(EarlyArrival(awaited: candidate, line: line, difference: difference, actual: actual))
            return []
        }
        return fail(.differs(difference, actual: actual, early: nil), status: .checkFailed, at: candidate)
    }

    /// Among the messages awaited, the one of the same type as `message`
    /// (the first when none is).
    private func closestCandidate(_ message: ActualMessage) -> Int {
        guard waitingFor.count > 1, case .text(let payload) = message,
              let type = Self.type(of: payload, at: settings.typePath) else { return waitingFor[0] }
        for step in waitingFor {
            guard case .expect(.json(let value), _) = script.steps[step],
                  Self.type(of: value, at: settings.typePath) == type else { continue }
            return step
        }
        return waitingFor[0]
    }

    /// The line of a message expected later on this connection that is this
    /// one (it came too early), nil when none is.
    private func expectedLater(_ message: ActualMessage) -> Int? {
        let after = (waitingFor.max() ?? next) + 1
        guard after < script.steps.count else { return nil }
        for step in after ..< script.steps.count {
            guard case .expect(let expected, let line) = script.steps[step] else { continue }
            var scratch = comparison
            if scratch.compare(expected, message) == nil { return line }
        }
        return nil
    }

    private mutating func fail(_ kind: CheckFailure.Kind, status: ExitStatus, at step: Int?) -> [Action] {
        var failure = CheckFailure(kind: kind, status: status, connection: script.number)
        if let step, case .expect(let expected, let line) = script.steps[step] {
            failure.line = line
            failure.expected = expected.recordedText
            failure.messageNumber = script.steps[...step].count { if case .expect = $0 { true } else { false } }
            failure.messageCount = script.expectedCount
        } else if let lastExpected {
            failure.line = script.steps[lastExpected].line
            failure.lineIsLastExpected = true
        }
        return finish(.failed(failure))
    }

    private func isAllowedExtra(_ message: ActualMessage) -> Bool {
        guard !settings.allowExtra.isEmpty, case .text(let payload) = message,
              let type = Self.type(of: payload, at: settings.typePath) else { return false }
        return settings.allowExtra.contains(type)
    }

    static func type(of payload: UnsafeRawBufferPointer, at path: [[UInt8]]) -> [UInt8]? {
        guard case .valid = JSONScanner.validate(payload), let range = JSONScanner.valueRange(atPath: path, in: payload),
              payload[range.lowerBound] == 0x22 else { return nil }
        var out: [UInt8] = []
        JSONScanner.appendUnescaped(stringToken: UnsafeRawBufferPointer(rebasing: payload[range]), into: &out)
        return out
    }

    /// The string at `path` of an expected value, nil when there is none.
    static func type(of value: ExpectedValue, at path: [[UInt8]]) -> [UInt8]? {
        var current = value
        for key in path {
            guard case .object(let object) = current, let index = object.index[key] else { return nil }
            current = object.values[index]
        }
        if case .string(let text) = current { return text }
        return nil
    }

    /// The message as a recording writes it, cut for a report.
    static func excerpt(_ message: ActualMessage) -> [UInt8] {
        switch message {
        case .text(let payload):
            if case .valid = JSONScanner.validate(payload) { return MessageExcerpt.compact(payload) }
            return MessageExcerpt.textEnvelope(payload)
        case .binary(let payload):
            return MessageExcerpt.binaryEnvelope(payload)
        }
    }
}

/// How one recorded connection, or a whole recording, came out.
enum CheckOutcome: Equatable {
    case passed
    case failed(CheckFailure)
}

/// Why a check failed, with what the report shows (wspipe(1): CHECKING A SERVER).
struct CheckFailure: Equatable {
    enum Kind: Equatable {
        /// The message that came is not the one expected at `line`.
        /// `early`: it is one expected later, and the one expected here came after it.
        case differs(Difference, actual: [UInt8], early: Early?)
        /// A message after the last one expected (`line`: that one's).
        case unexpected(actual: [UInt8])
        /// The message expected at `line` did not come; `instead`: the one
        /// expected later at its line came in its place.
        case timedOut(nanos: Int64, instead: Early?)
        /// The server closed (`expected`: the code the recording ends with).
        case closed(code: Int, reason: String, expected: Int?)
        case noClose(expected: Int, nanos: Int64)
        case lost(reason: String, whileWaiting: Bool)
        /// The connection could not be opened.
        case connectFailed(String)
        /// The message to send at `line` could not be made (see `CheckConversation.Event.unsendable`).
        case unsendable(reason: String)
    }

    /// A message expected later that came early, at `line` of the recording.
    struct Early: Equatable {
        var line: Int
        /// The one awaited came after it (out of order); otherwise never (missing).
        var awaitedCame: Bool
    }

    var kind: Kind
    /// What the run's exit status becomes (8, or 3/4/5/7 for the connection).
    var status: ExitStatus
    /// The recording's connection number.
    var connection: Int
    /// The line of the expected message it is about (0: none).
    var line = 0
    /// `line` is that of the last message that came as expected (not of one awaited).
    var lineIsLastExpected = false
    /// The expected message (as the recording writes it).
    var expected: [UInt8]?
    /// Its number among the messages the connection expects, and how many.
    var messageNumber = 0
    var messageCount = 0
}
