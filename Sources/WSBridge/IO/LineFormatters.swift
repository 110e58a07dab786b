import WSJSON
import WSMessages

/// The plain formatter, the one for a destination that is a terminal, and
/// the one for stdout when it is a terminal (coloured unless NO_COLOR).
struct LineFormatters {
    let plain: OutputFormatter
    let terminal: OutputFormatter
    let stdoutTerminal: OutputFormatter
    /// Some destination is a terminal: in a pipeline (no terminal at all) the
    /// plain formatter is chosen without looking at the destination.
    let anyTerminal: Bool

    @inline(__always)
    private func formatter(for destination: Destination) -> OutputFormatter {
        guard anyTerminal, destination.isTerminal else { return plain }
        return destination.spec == .stdout ? stdoutTerminal : terminal
    }

    @inline(__always)
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, to destination: Destination) {
        // The common line, compact valid JSON into a pipe or file: the
        // payload and a newline, without going through the formatter (whose
        // checks cost more than the copy of a chat-sized message). Not a
        // text of an envelope's shape: that one goes in a `$text` envelope.
        if verdict == 0 && plain.format == .json && payload.count < Destination.writeThroughSize
            && !(anyTerminal && destination.isTerminal) && !OutputFormatter.looksLikeEnvelope(payload) {
            return destination.appendLine(payload, terminator: 10)
        }
        let formatter = formatter(for: destination)
        if payload.count >= Destination.writeThroughSize && !formatter.forTerminal {
            return appendLarge(payload, verdict, formatter, destination)
        }
        formatter.appendText(payload, verdict: verdict, to: &destination.pending)
    }

    /// A large message whose line is the payload itself and a terminator
    /// (valid compact JSON, or raw text) is written from where it is.
    @inline(never)
    private func appendLarge(_ payload: UnsafeRawBufferPointer, _ verdict: Int, _ formatter: OutputFormatter,
                             _ destination: Destination) {
        guard formatter.format == .json else {
            if destination.writeThrough(payload, terminator: formatter.separator) { return }
            return formatter.appendText(payload, verdict: verdict, to: &destination.pending)
        }
        let validation = JSONScanner.validate(payload, verdict: verdict)
        if validation == .valid(needsCompaction: false) && !OutputFormatter.looksLikeEnvelope(payload)
            && destination.writeThrough(payload, terminator: 10) { return }
        formatter.appendJSONLine(payload, validation, to: &destination.pending)
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer, to destination: Destination) {
        let formatter = formatter(for: destination)
        formatter.appendBinary(payload, to: &destination.pending)
    }

    /// --tag: never written through, since the line is not the payload.
    func appendText(_ payload: UnsafeRawBufferPointer, verdict: Int, taggedWith client: Int, to destination: Destination) {
        formatter(for: destination).appendText(payload, verdict: verdict, taggedWith: client, to: &destination.pending)
    }

    func appendBinary(_ payload: UnsafeRawBufferPointer, taggedWith client: Int, to destination: Destination) {
        formatter(for: destination).appendBinary(payload, taggedWith: client, to: &destination.pending)
    }
}
