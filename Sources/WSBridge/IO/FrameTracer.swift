import WSCore
import WSTransport
import WSTerminal
import WSMessages

/// --trace: every frame both ways on stderr, one line each, as `curl
/// --trace` shows a transfer (wspipe(1): OPTIONS, Diagnostics):
///
///     wspipe: 12:01:02.123 > text fin masked 7: {"a":1}
///     wspipe: 12:01:02.124 < text fin 7: {"a":1}
///     wspipe: 12:01:02.130 < close fin 2: 1000 (normal closure)
///
/// It decodes copies of the bytes the channel reads and writes with decoders
/// of its own, so the connection is not touched and, without --trace, nothing
/// of this runs. A payload is shown as text (control characters escaped) when
/// it is UTF-8, else as hex, cut after a short preview.
final class FrameTracer {
    /// One direction of the stream.
    private struct Direction {
        let mark: String
        var decoder: FrameDecoder
        var preview: [UInt8] = []
        var broken = false
    }

    private static let previewBytes = 60
    private var received: Direction
    private var sent: Direction
    private let label: String
    private let log: Diagnostics
    private var scratch: [UInt8] = []

    /// `role` is this side's; `label` names the peer in server mode ("client 3").
    init(role: Role, log: Diagnostics, label: String = "") {
        self.log = log
        // Each decoder reads as the side that receives those frames would.
        received = Direction(mark: "<", decoder: FrameDecoder(role: role))
        sent = Direction(mark: ">", decoder: FrameDecoder(role: role == .client ? .server : .client))
        received.decoder.allowedReservedBits = FrameHeader.rsv1
        sent.decoder.allowedReservedBits = FrameHeader.rsv1
        self.label = label.isEmpty ? "" : label + " "
    }

    func read(_ bytes: UnsafeRawBufferPointer) { trace(bytes, &received) }
    func wrote(_ bytes: UnsafeRawBufferPointer) { trace(bytes, &sent) }

    private func trace(_ bytes: UnsafeRawBufferPointer, _ direction: inout Direction) {
        guard !direction.broken, !bytes.isEmpty else { return }
        // A copy: the decoder unmasks in place.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: bytes)
        scratch.withUnsafeMutableBytes { all in
            var input = all
            while true {
                switch direction.decoder.next(&input) {
                case .needMoreData:
                    return
                case .header(let header):
                    direction.preview.removeAll(keepingCapacity: true)
                    if header.payloadLength == 0 { line(direction, header) }
                case .payload(let piece, _, let isFrameEnd):
                    let room = Self.previewBytes + 1 - direction.preview.count
                    if room > 0 { direction.preview.append(contentsOf: piece.prefix(room)) }
                    if isFrameEnd { line(direction, direction.decoder.header) }
                case .failure(let error):
                    direction.broken = true
                    log.trace("\(stamp()) \(direction.mark) not a frame (\(error)); tracing stops here")
                    return
                }
            }
        }
    }

    private func line(_ direction: Direction, _ header: FrameHeader) {
        var flags = header.fin ? " fin" : ""
        if header.reservedBits & FrameHeader.rsv1 != 0 { flags += " rsv1" }
        if header.maskKey != nil { flags += " masked" }
        var text = "\(stamp()) \(direction.mark) \(header.opcode)\(flags) \(header.payloadLength)"
        if header.payloadLength > 0 { text += ": " + Self.show(direction.preview, header) }
        log.trace(text)
    }

    private func stamp() -> String { "\(label)\(TimeOfDay.now())" }

    /// The preview: a Close's code and reason, text, or hex.
    private static func show(_ preview: [UInt8], _ header: FrameHeader) -> String {
        let cut = preview.count > previewBytes || header.payloadLength > preview.count
        let shown = Array(preview.prefix(previewBytes))
        if header.opcode == .close, shown.count >= 2 {
            let code = CloseCode(rawValue: UInt16(shown[0]) << 8 | UInt16(shown[1]))
            let reason = String(decoding: shown.dropFirst(2), as: UTF8.self)
            return "\(code)" + (code.name.map { " (\($0))" } ?? "") + (reason.isEmpty ? "" : " " + TerminalEscaping.escaping(reason))
        }
        let isText = header.opcode != .binary && header.reservedBits & FrameHeader.rsv1 == 0 && shown.withUnsafeBytes { bytes in
            var validator = UTF8Validator()
            return validator.feed(bytes)
        }
        let body = isText ? TerminalEscaping.escaping(String(decoding: shown, as: UTF8.self))
                          : shown.prefix(16).map { TerminalEscaping.hex($0) }.joined(separator: " ")
        return body + (cut || (!isText && shown.count > 16) ? "..." : "")
    }
}
