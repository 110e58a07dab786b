import WSCore
import WSTransport
import WSJSON
import WSConnect

/// Socket to stdout: each incoming message goes through the acks and captures
/// to its destination, and the end of a connection becomes a lifecycle event
/// with what it left unsent.
extension ClientSession {
    func channelEvent(_ event: WebSocketChannel.Event) {
        if let socketIO, socketIO.isHandshaking { return socketIOHandshakeEvent(event, socketIO) }
        switch event {
        case .message(let message):
            incoming(message)
        case .processed:
            socketIO?.processed()
            connection?.script?.processed()
            shell.output.routes.flushAll()
            channel?.setReadPaused(readsPaused)
            // Acks release held messages: stdin may read on.
            if resume.tracksAcks { sender.updateFlow(of: shell.stdin) }
            sender.replies.processed(now: clock.nowNanos, credit: channel?.readCredit)
            reportProgress()
        case .ended(let reason):
            if connection?.channelEnded(reason) == false { return }   // while opening: it waits
            channelEnded(reason)
        }
    }

    func incoming(_ event: ConnectionEvent) {
        switch event {
        case .text(let payload, let verdict):
            if let socketIO { return socketIOReceived(event, socketIO) }
            arrived(text: payload, verdict: verdict)
        case .binary(let payload):
            if let socketIO { return socketIOReceived(event, socketIO) }
            if let codec = shell.unretainedCodec, let json = codec.use({ $0.decode(payload, from: "the server") }) {
                // From here on a JSON text message (wspipe(1): BINARY CODECS),
                // counted in --stats with the bytes that came.
                shell.stats.bytesIn += payload.count - json.count
                return arrived(text: json, verdict: 0, decoded: true)
            }
            metrics.messageArrived()
            if let reply = sender.replies.received(text: nil) { replied(reply) }
            if shell.admit(bytes: payload.count) { shell.output.appendBinary(payload) }
            if watchesMessages { watch(binary: payload) }
        case .ping(let payload):
            log.debug("ping from the server (\(payload.count) bytes), pong sent")
        case .pong(let payload):
            connection?.keepAlive?.pongReceived(payload)
            observer?.pong(payload)
        case .closeReceived(let code, let reason):
            connection?.disconnect = .closedByServer(code: code, reason: reason)
        case .failed(let code, let reason):
            if code == .abnormal {
                if connection?.disconnect == nil { connection?.disconnect = .dropped(reason) }
                return
            }
            log.fatal("protocol error from the server: \(reason) (closing with \(code.rawValue))")
            connection?.disconnect = .protocolViolation(code: code, reason: reason)
            handle(.peerFailed)
        }
    }

    /// A text message (or a Socket.IO event's line, or with --codec the
    /// JSON `decoded` from a binary message) to its destination.
    func arrived(text payload: UnsafeRawBufferPointer, verdict: Int, decoded: Bool = false) {
        metrics.messageArrived()
        if let reply = sender.replies.received(text: payload, verdict: verdict) { replied(reply) }
        if let echoed = sender.replies.takeEchoedRecord() { channel?.confirmEchoed(record: echoed) }
        received(text: payload, verdict: verdict)
        if watchesMessages { watch(text: payload, verdict: verdict, decoded: decoded) }
    }

    /// `verdict`: the JSON check's answer that came with the message (see
    /// `JSONScanner.validate(_:verdict:)`), so the text is validated once.
    func received(text payload: UnsafeRawBufferPointer, verdict: Int) {
        // Unretained (UnretainedReferences.swift): a retain/release pair per
        // message is measurable.
        let plain = shell.unretainedOutput
        guard resume.watchesIncoming || plain.use({ $0.classifiesText }) else {
            if shell.admit(bytes: payload.count) { plain.use { $0.appendToFallback(payload, verdict: verdict) } }
            return
        }
        let output = shell.output!
        var known = -1
        if case .valid(let needsCompaction) = JSONScanner.validate(payload, verdict: verdict) {
            known = needsCompaction ? 1 : 0
            if let key = resume.received(json: payload) {
                shell.events.emit(EventLine.acked(key: key))
                log.debug("acknowledged: \(String(decoding: key, as: UTF8.self))")
            }
        }
        if shell.admit(bytes: payload.count) {
            output.appendText(payload, verdict: known, to: output.destination(forText: payload, isValidJSON: known >= 0))
        }
    }

    /// What --until, --idle-timeout and the scripted peer see of a message.
    private func watch(text payload: UnsafeRawBufferPointer, verdict: Int, decoded: Bool) {
        if script != nil { connection?.script?.received(text: payload, verdict: verdict, decoded: decoded) }
        if endingWatchesMessages { ending.received(text: payload, verdict: verdict) }
    }

    func watch(binary payload: UnsafeRawBufferPointer) {
        if script != nil { connection?.script?.received(binary: payload) }
        if endingWatchesMessages { ending.received() }
    }

    func channelEnded(_ reason: WebSocketChannel.EndReason) {
        connection?.end()
        socketIOEnded()
        // wspipe was closing (its Close, a violation it detected) or had ended.
        let clientClosing = lifecycle.phase == .closing || lifecycle.phase == .closingToReconnect
            || lifecycle.phase == .ended
        let end = connection?.ending(reason, clientClosing: clientClosing, closeSent: lifecycle.closeSent)
            ?? ClientConnection.ending(reason, disconnect: nil, closingHandshakeDone: false,
                                       clientClosing: clientClosing, closeSent: lifecycle.closeSent)
        let (cause, byClient, refusal) = (end.cause, end.byClient, end.refusal)
        let now = clock.nowNanos
        // A server that refuses the connection (wspipe(1): RECONNECT AND
        // REPLAY) says nothing of what it read before: a greeting is no
        // receipt, and one that came with the 101 was sent before any line
        // arrived. Every line the connection carried is in doubt.
        let refused = !byClient && refusal == nil && lifecycle.isRefusal(cause, now: now)
        // Asked before the recovery, which queues again what the peer never
        // got: as if it had (the lifecycle's answer is the same then).
        let before = progress()
        let isLast = { [lifecycle] (leavesFrames: Bool) -> Bool in
            var ahead = before
            if leavesFrames { ahead.queueEmpty = false }
            return !lifecycle.reconnects(after: cause, now: now, progress: ahead)
        }
        var recovery = channel.map {
            sender.recoverUnsent(from: $0, refusedWith: refusal, confirmed: end.confirmed, reachedPeer: end.reachedPeer,
                                 isLast: isLast)
        } ?? .init()
        if refused && channel != nil {
            recovery.unconfirmed = sender.carried.droppingLast(recovery.requeuedLines)
            recovery.unread = LineTally()
        }
        // Clean only when the server's Close came (RFC 6455 §7.1.5: 1006 otherwise).
        var (code, clean) = cause.closeCode
        if !end.closeReceived && clean { (code, clean) = (.abnormal, false) }
        metrics.closeCode = Int(code.rawValue)
        shell.events.emit(EventLine.disconnected(code: code, reason: cause.eventReason, clean: clean,
                                                 by: byClient ? "client" : "server", unconfirmed: recovery.unconfirmed,
                                                 unread: recovery.unread))
        scriptEnded()
        connection = nil
        observer?.disconnected(cause, byClient: byClient)
        let say = report(recovery, refusal: refusal, refusedConnection: refused ? cause : nil,
                         canLose: !end.reachedPeer || cause.errorCloseCode != nil)
        sender.channel = nil
        handle(.connectionEnded(cause, now: now, progress: progress()))
        say()
    }
}
