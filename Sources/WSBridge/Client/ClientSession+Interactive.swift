import WSCore
import WSMessages

/// The interactive mode's hold on the client session (wspipe(1): INTERACTIVE
/// MODE): what the person at the terminal asks for becomes lifecycle events,
/// as stdin EOF and SIGINT do in a pipe.
extension ClientSession: InteractiveSessionControl {
    /// From init: the frontend talks to this session, and the window's size
    /// changes reach it.
    func wireInteractive() {
        guard let interactive else { return }
        interactive.control = self
        shell.onWindowResize = { [unowned interactive] in interactive.windowResized() }
    }

    /// Before the first attempt: raw mode and the prompt, so that typing,
    /// Ctrl-C and Ctrl-D work while connecting.
    func startInteractive() throws {
        try interactive?.start(output: shell.output)
    }

    func sendTyped(_ message: OutgoingMessage) -> TypedDelivery {
        if interactive?.inputEnded == true { return .refused("input has ended (Ctrl-D); closing") }
        guard deliver(message) else { return .refused("the connection is closing") }
        channel?.flush()
        return lifecycle.isOpen ? .sent : .queued
    }

    func sendPing(_ payload: [UInt8]) -> Bool {
        guard lifecycle.isOpen, let channel, channel.isOpen else { return false }
        channel.sendPing(payload)
        return true
    }

    /// An open connection ends as at stdin EOF (queue flushed, acks awaited,
    /// Close 1000, exit status 0); anything else, or a second Ctrl-D, ends
    /// the session now: a person who gives up waiting must not be kept.
    func endInput(again: Bool) {
        if !again && lifecycle.phase == .open(.streaming) {
            handle(.inputEnded(progress()))
        } else {
            handle(.stop(.user(code: .normal, reason: "")))
        }
    }

    func closeConnection(code: CloseCode, reason: String) {
        handle(.stop(.user(code: code, reason: reason)))
    }

    /// Ctrl-C on an empty line is the key that is SIGINT outside raw mode:
    /// the same clean close and the same exit status, 130.
    func interrupt() {
        shell.status = shell.status.combined(with: .interrupted)
        if lifecycle.isOpen { shell.log.info("interrupted, closing") }
        handle(.stop(.interrupted))
    }

    func reconnect() {
        switch lifecycle.phase {
        case .closing, .ended: shell.log.warning("not reconnecting: the session is ending")
        default: handle(.reconnectRequested)
        }
    }
}
