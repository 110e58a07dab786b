import WSSocketIO

/// The check of a stdin line bound for a Socket.IO peer, which both the
/// line translator and the interactive console make before a line is sent
/// (`SocketIOOutgoing` in the bridge sends what passes it).
package enum SocketIOLineCheck {
    /// Whether a stdin line can be sent as a Socket.IO packet: nil, or what
    /// is wrong and where (`InputTranslator` rejects it with its position).
    package static func check(_ line: UnsafeRawBufferPointer) -> SocketIOError? {
        do {
            // A server's stdin line may name its client (--tag), which is taken off before it is sent.
            let parts = try SocketIOLine.parse(line, ignoring: ["$client"])
            // Attachments are decoded to check their base64 only when there may be some.
            if let data = parts.data ?? parts.args, line[data].contains(UInt8(ascii: "$")) {
                _ = try SocketIOLine.encode(parts, of: line, ackID: 0)
            }
            return nil
        } catch let error as SocketIOError {
            return error
        } catch {
            return SocketIOError("\(error)")
        }
    }
}
