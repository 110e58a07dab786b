import WSJSON
import WSCodecs
import WSMessages
/// The resume: what makes a new connection carry on where the last one stopped
/// (wspipe(1): RECONNECT AND REPLAY): the --on-connect / --on-reconnect
/// messages with their `${NAME}` captures, then the messages still held for
/// an --ack, in their original order, before anything queued. The held ones
/// are sent again a little at a time, as the socket takes them (`resendHeld`),
/// like the queue: they are already counted against --queue-limit, and their
/// copies in the socket's output must not double that.
final class ResumeCoordinator {
    private let onConnect: [MessageTemplate]
    private let onReconnect: [MessageTemplate]
    private var captures: CaptureTable
    /// `${seq}`, shared with the session's other templates.
    private let sequence: SequenceCounter
    private var ledger: AckLedger?
    private let ackPath: [[UInt8]]?
    /// Makes the on-connect messages (envelopes unwrapped, encoded with
    /// --codec, as on stdin).
    private var renderer: TemplateRenderer
    private var unackedReported = false
    /// The held messages this connection still has to send again: serials
    /// `next` through `last` (those acked meanwhile are skipped).
    private var resend: (next: Int, last: Int)?

    init(policy: SessionPolicy, maxMessageSize: Int, sequence: SequenceCounter = SequenceCounter(),
         codec: BinaryFormat? = nil) {
        renderer = TemplateRenderer(codec: codec)
        onConnect = policy.onConnect
        onReconnect = policy.onReconnect
        captures = CaptureTable(policy.captures)
        self.sequence = sequence
        ledger = policy.ackPath.map { AckLedger(path: $0) }
        ackPath = policy.ackPath.map { $0.map { Array($0.utf8) } }
    }

    /// The --capture values, for the session's other templates.
    var captureValues: CaptureTable { captures }

    /// Incoming text must be validated and looked at (acks or captures).
    var watchesIncoming: Bool { ledger != nil || !captures.isEmpty }
    var tracksAcks: Bool { ledger != nil }
    var acksPending: Bool { !(ledger?.isEmpty ?? true) }
    /// Bytes of the messages held for their ack (they count against --queue-limit).
    var heldBytes: Int { ledger?.heldBytes ?? 0 }
    /// Held messages wait to be sent again on this connection: nothing new may go before them.
    var isResending: Bool { resend != nil }

    /// The messages a connection starts with: `send` gets the on-connect (or
    /// on-reconnect) messages, which count as new; the held ones are sent
    /// again after them through `resendHeld`.
    func resume(isReconnect: Bool, log: Diagnostics, send: (OutgoingMessage) -> Void) {
        resend = nil
        if let ledger, !ledger.isEmpty {
            log.info("re-sending \(ledger.count) unacknowledged message(s)")
            resend = (0, ledger.lastSerial)   // not the on-connect messages held below
        }
        let templates = isReconnect && !onReconnect.isEmpty ? onReconnect : onConnect
        for template in templates {
            var values = TemplateValues(seq: template.usesSeq ? sequence.next() : 0, nowMs: TemplateRenderer.nowMillis())
            values.captures = captures
            if let reason = renderer.render(template, values, send) {
                log.warning("on-connect message not sent: \(reason): \(template.source)")
            }
        }
    }

    /// The connection ended: the next one's `${seq}` counts from 1.
    func restartSequence() {
        sequence.restart()
    }

    /// Sends held messages again, in order, while `more()` says the socket
    /// takes them; the rest wait for the next call.
    func resendHeld(while more: () -> Bool, _ body: (UnsafeRawBufferPointer) -> Void) {
        guard let range = resend, let ledger else { resend = nil; return }
        var next = range.last + 1
        ledger.forEachHeld(from: range.next) { serial, text in
            guard serial <= range.last, more() else { next = serial; return false }
            body(text)
            return true
        }
        resend = next > range.last ? nil : (next, range.last)
    }

    /// A text message goes out: it is held if it carries an ack key (true
    /// then: it is sent again until acknowledged).
    func sent(text: UnsafeRawBufferPointer) -> Bool {
        guard ledger != nil else { return false }
        return ledger!.sent(text) != nil
    }

    /// An incoming message that is valid JSON: captures are updated and the
    /// oldest message held under its key is released. Returns that key.
    func received(json: UnsafeRawBufferPointer) -> [UInt8]? {
        captures.observe(json)
        guard ledger != nil else { return nil }
        return ledger!.receivedAck(json)?.key
    }

    /// Stops holding a message (the server refused it): it is not sent again.
    func release(_ text: UnsafeRawBufferPointer) {
        guard ledger != nil, case .valid = JSONScanner.validate(text) else { return }
        _ = ledger!.receivedAck(text)
    }

    /// Is this unsent message held for an ack? Then the resume sends it again
    /// and the queue must not.
    func isHeld(_ text: UnsafeRawBufferPointer) -> Bool {
        guard let ledger, let path = ackPath, case .valid = JSONScanner.validate(text),
              let found = JSONScanner.valueRange(atPath: path, in: text) else { return false }
        // Keys are compared trimmed, as the ledger stores them.
        return ledger.isHeld(key: Array(text[JSONSkipper.trimmingWhitespace(found, in: text)]))
    }

    /// Reports what is still held, once (at the --ack-timeout or at the end);
    /// returns how many.
    func reportUnacked(log: Diagnostics, events: EventSink) -> Int {
        guard !unackedReported, let ledger, !ledger.isEmpty else { return 0 }
        unackedReported = true
        let keys = ledger.heldKeys
        let list = keys.prefix(20).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ", ")
        log.warning("\(keys.count) message(s) not acknowledged: \(list)\(keys.count > 20 ? ", ..." : "")")
        events.emit(EventLine.unacked(keys: keys))
        return keys.count
    }
}
