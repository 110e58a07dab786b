import WSCodecs
import WSTransport
import WSMessages

/// Turns a template into the message it stands for: rendered with its
/// values, then taken like a stdin line (a `{"$text":...}` or
/// `{"$binary":...}` envelope is unwrapped, line breaks compacted away).
struct TemplateRenderer {
    private var translator: InputTranslator
    private var scratch: [UInt8] = []

    /// `codec`: --codec, which the message is encoded in, as a stdin line is.
    init(codec: BinaryFormat? = nil) {
        translator = InputTranslator(format: .json, lenient: false, maxPendingBytes: Int.max, codec: codec)
    }

    /// Renders `template` and hands the message to `send`; returns why it
    /// could not be sent (an envelope with invalid base64), nil when it was.
    mutating func render(_ template: MessageTemplate, _ values: TemplateValues,
                         _ send: (OutgoingMessage) -> Void) -> String? {
        scratch.removeAll(keepingCapacity: true)
        template.render(values, into: &scratch)
        var reason: String?
        let outcome = scratch.withUnsafeBytes { translator.translate($0, send) }
        outcome.forEachRejection { reason = $0.reason }
        return reason
    }

    /// The wall clock for `${now_ms}`.
    static func nowMillis() -> Int64 {
        wallClockNanos() / 1_000_000
    }
}
