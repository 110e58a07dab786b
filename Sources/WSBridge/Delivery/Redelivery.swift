import WSCore

/// What becomes of the messages a client's connection still held when it
/// ended: a pure function of their fates (`DeliveryAccount.Fate`) and of how
/// the connection ended, row by row as wspipe(1) RECONNECT AND REPLAY's
/// table says:
///
/// - the server answered wspipe's Close: it read every frame before it;
///   nothing is sent again, nothing is in doubt;
/// - after a refusal (1009 or 1003, `RefusedMessage`) the refused message
///   is set aside, and everything after it, or before it and not shown read,
///   is sent again;
/// - confirmed: settled; unread (its TCP took it before the server last
///   spoke): reported, not sent again;
/// - written and acknowledged by its TCP after it last spoke: unconfirmed,
///   not sent again (it reached the server's machine);
/// - not acknowledged: sent again on the next connection (at least once);
///   when none follows, a written one is unconfirmed and unacknowledged
///   (exit status 6), an unwritten one stays queued (not sent);
/// - the closing handshake completed (either side first): everything
///   written reached the server's TCP ahead of the last Close, so only what
///   was never written decides whether a connection follows, and on the
///   last connection what was written counts as acknowledged.
///
/// A message held for its --ack is the resume's to send again, and one that
/// belongs to its connection (--on-connect, an answer, a heartbeat: tag
/// `MessageTag.uncounted`) is never sent again by this.
enum Redelivery {
    struct Frame: Equatable {
        var fate: DeliveryAccount.Fate
        var size: Int
        var isBinary: Bool
        /// Held for its --ack.
        var held: Bool
    }

    /// How the connection ended.
    struct Ending: Equatable {
        /// The server's Close refused a message: 1009 or 1003.
        var refusal: CloseCode?
        /// The server answered wspipe's Close, after reading every frame before it.
        var confirmedAll = false
        /// The closing handshake completed, whoever sent the first Close.
        var reachedPeer = false
        /// No connection follows if nothing is left to send.
        var lastIfNothingLeft = true
        /// No connection follows even though frames are left to send.
        var lastIfFramesLeft = true
    }

    struct Decision: Equatable {
        /// The index of the refused message.
        var refused: Int?
        /// The indexes of the messages to queue again, in order.
        var again: [Int] = []
        var unread = LineTally()
        var unconfirmed = LineTally()
        /// Of the unconfirmed, those the server's TCP never acknowledged.
        var unacknowledged = LineTally()
        /// No connection follows.
        var last = true
    }

    /// `released`: the fates of the messages let go earlier (acknowledged,
    /// not confirmed then).
    static func decide(_ frames: [Frame], released: (unread: LineTally, unconfirmed: LineTally),
                       _ ending: Ending) -> Decision {
        var decision = Decision()
        if ending.confirmedAll && ending.refusal == nil { return decision }
        let owed = ending.reachedPeer
            ? frames.contains { !$0.fate.written && !$0.held && $0.fate.tag != MessageTag.uncounted }
            : frames.contains { !$0.fate.acknowledged }
        decision.last = owed ? ending.lastIfFramesLeft : ending.lastIfNothingLeft
        let candidates = frames.map {
            RefusedMessage.Candidate(size: $0.size, isBinary: $0.isBinary, afterSignOfLife: !$0.fate.confirmed,
                                     written: $0.fate.written)
        }
        let culprit = ending.refusal.flatMap { RefusedMessage.pick(candidates, code: $0) }
        decision.refused = culprit
        if culprit == nil && !ending.confirmedAll {
            decision.unread = released.unread
            decision.unconfirmed = released.unconfirmed
        }
        for (index, frame) in frames.enumerated() where index != culprit {
            let fate = frame.fate
            if let culprit {
                // The server stopped reading at the refused message: what came
                // after it goes again, and so does what came before it that
                // it never showed it had read.
                if !(index < culprit && fate.acknowledged && fate.confirmed) { sendAgain(index, frame, &decision) }
                continue
            }
            if ending.confirmedAll || fate.confirmed { continue }
            if fate.unread {
                decision.unread.add(tag: fate.tag)
                continue
            }
            let acknowledged = fate.acknowledged || (ending.reachedPeer && decision.last && fate.written)
            if acknowledged || (decision.last && fate.written) {
                decision.unconfirmed.add(tag: fate.tag)
                if !acknowledged { decision.unacknowledged.add(tag: fate.tag) }
                continue
            }
            sendAgain(index, frame, &decision)
        }
        return decision
    }

    /// Queued again, unless it is sent again anyway (--on-connect) or held
    /// for --ack (the resume's).
    private static func sendAgain(_ index: Int, _ frame: Frame, _ decision: inout Decision) {
        guard !frame.held && frame.fate.tag != MessageTag.uncounted else { return }
        decision.again.append(index)
    }
}
