import WSCodecs
import WSMessages

/// --codec (wspipe(1): BINARY CODECS) on the way in: a binary message that
/// arrives becomes the JSON line of its value, and from then on is handled
/// as a JSON text message is (routes, --type-key, --until, --answer, --ack).
/// On the way out `InputTranslator` encodes the lines; what reads the JSON
/// of a message sent (--ack, --reply, --record) gets it here (`view`).
///
/// A binary message that is not valid in the format is not dropped: it is
/// written as `{"$binary":"…"}` (to the `$binary` route), said on stderr
/// with where and why (the first few in full), and counted; the run then
/// ends with status 5, the peer having broken the protocol agreed on.
final class MessageCodec {
    let format: BinaryFormat
    private let incoming: Transcoder
    /// For the JSON of messages sent: apart from `incoming`, whose JSON may
    /// still be in use when a message is sent (an --answer to it).
    private let sentViews: Transcoder
    private let log: Diagnostics
    private(set) var invalidMessages = 0
    /// The first invalid messages are said in full; the rest only counted.
    static let reportedInFull = 3

    /// `maxMessageSize`: --max-message-size; the JSON of a message may be
    /// four times that (base64, escapes and envelopes make JSON longer than
    /// the bytes), and a message that would be longer is reported as invalid.
    init(format: BinaryFormat, maxMessageSize: Int, log: Diagnostics) {
        self.format = format
        let (times4, overflow) = max(maxMessageSize, 1 << 18).multipliedReportingOverflow(by: 4)
        let limit = overflow ? Int.max / 2 : times4
        incoming = Transcoder(format, maxJSONBytes: limit)
        sentViews = Transcoder(format, maxJSONBytes: Int.max / 2)
        self.log = log
    }

    /// The JSON (compact, one line) of the binary message `payload` that
    /// came from `peer` ("the server", "client 3"), valid until the next
    /// call; nil when it is not valid in the format (said and counted: the
    /// caller writes it as `$binary`).
    func decode(_ payload: UnsafeRawBufferPointer, from peer: @autoclosure () -> String) -> UnsafeRawBufferPointer? {
        do throws(CodecError) {
            return try incoming.decode(payload)
        } catch {
            invalidMessages += 1
            if invalidMessages <= Self.reportedInFull {
                let more = invalidMessages == Self.reportedInFull ? " (more are only counted)" : ""
                log.warning("a binary message from \(peer()) is not valid \(format.displayName) (\(error)); written as {\"$binary\":…}\(more)")
            }
            return nil
        }
    }

    /// The JSON of a binary message wspipe sends (encoded from a line, or a
    /// `$binary` line that holds a valid value), for what reads the messages
    /// sent; nil for bytes that are no value of the format.
    func view(of payload: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        try? sentViews.decode(payload)
    }

    /// At the end: how many were invalid, and status 5 when any was.
    func finalReport(_ status: inout ExitStatus) {
        guard invalidMessages > 0 else { return }
        log.warning("\(invalidMessages) binary message(s) were not valid \(format.displayName) (written as {\"$binary\":…})")
        status = status.combined(with: .protocolViolation)
    }
}
