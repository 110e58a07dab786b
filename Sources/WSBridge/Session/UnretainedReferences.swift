/// Every reference the bridge uses without retaining it, each with the
/// invariant that makes it safe. They are on the per-message path, where a
/// retain/release pair (or the checked load of `unowned`) is measurable, and
/// where a `weak` reference would give the object a side table and make all
/// of its reference counting the slow kind. Nothing else in the bridge uses
/// `unowned(unsafe)`, `Unmanaged` or `_withUnsafeGuaranteedRef`: a new use
/// goes here, with its invariant.

/// An object used without a retain/release pair. Only the uses below make one.
struct Unretained<Object: AnyObject> {
    private let reference: Unmanaged<Object>

    fileprivate init(_ object: Object) {
        reference = .passUnretained(object)
    }

    /// Calls `body` with the object, which the caller guarantees is alive.
    @inline(__always)
    func use<Result>(_ body: (Object) -> Result) -> Result {
        reference._withUnsafeGuaranteedRef(body)
    }
}

/// The session a `SessionShell` runs for.
///
/// Invariant: the session owns the shell (a `let`) and outlives it; the
/// shell reaches its driver only while the session runs it.
struct DriverReference {
    unowned(unsafe) let driver: SessionDriver

    init(_ driver: SessionDriver) {
        self.driver = driver
    }
}

extension SessionShell {
    /// The output of every incoming message.
    ///
    /// Invariant: the shell sets `output` once, before the loop starts, and
    /// keeps it until the run returns; messages arrive only while the loop runs.
    var unretainedOutput: Unretained<MessageOutput> { Unretained(output!) }

    /// --codec's converter of the binary messages that arrive.
    ///
    /// Invariant: `codec` is a `let` of the shell, and messages arrive only
    /// while the shell runs.
    var unretainedCodec: Unretained<MessageCodec>? {
        guard let codec else { return nil }
        return Unretained(codec)
    }
}

extension MessageOutput {
    /// The fallback route, the destination of most messages.
    ///
    /// Invariant: the route table is a `let` of the output and keeps its
    /// destinations (`fallback` is a `let`) for the whole run.
    var unretainedFallback: Unretained<Destination> { Unretained(routes.fallback) }
}

extension ClientSession {
    /// The session, for the closures called once per message or read: the
    /// channel's event handler and the stdin pump's `deliver`.
    ///
    /// Invariant: the session owns the channel and the stdin pump (through
    /// its shell) and outlives both; neither calls back once the session has
    /// returned from `run`.
    var unretainedSelf: Unretained<ClientSession> { Unretained(self) }
}

extension StdinPump {
    /// The pump, for the closures of its line loop (the splitter's body and
    /// the translator's `send`, called once per line).
    ///
    /// Invariant: both are non-escaping closures, called only while one of
    /// the pump's own methods runs, so the pump is alive for every call.
    var unretainedSelf: Unretained<StdinPump> { Unretained(self) }
}

extension WebSocketChannel {
    /// The client's open channel, for the sender's per-message test.
    ///
    /// Invariant: `ClientSender` keeps it beside its strong `channel`, set
    /// and cleared with it (`channel`'s didSet), so it is used only while
    /// the sender holds the channel.
    var unretainedForSender: Unretained<WebSocketChannel> { Unretained(self) }
}
