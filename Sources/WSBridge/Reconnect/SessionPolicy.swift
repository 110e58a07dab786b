import WSMessages
import WSConsole
/// How a client session survives the network (wspipe(1): RECONNECT AND REPLAY): reconnection,
/// keepalive, the queue, the resume on connect and acknowledgements.
///
/// The defaults of the flags are the flag table's, which `Plan` sets here:
/// these fields start out zero, empty or nil.
public struct SessionPolicy {
    /// Reconnect after a connection that had succeeded is lost (not --no-reconnect).
    public var reconnect = true
    /// --wait: retry the first connection too.
    public var waitForFirstConnection = false
    public var backoff = BackoffPolicy()
    /// Consecutive failed attempts before giving up; nil = never.
    public var maxRetries: Int? = nil
    public var pingIntervalNanos: Int64? = nil
    public var pingTimeoutNanos: Int64? = nil
    public var queueLimit = 0
    /// Sent first on every connection (--on-connect, --on-connect-file lines).
    public var onConnect: [MessageTemplate] = []
    /// Sent instead of `onConnect` on reconnections, when given.
    public var onReconnect: [MessageTemplate] = []
    public var captures: [(name: String, path: [String])] = []
    public var ackPath: [String]? = nil
    public var ackTimeoutNanos: Int64 = 0
    /// --linger: at stdin EOF, how long replies still owed may take before the Close.
    public var lingerNanos: Int64 = 0
    /// --reply KEYPATH: a sent message with a value there is owed the
    /// incoming message with the same value; nil: the default rule (`ReplyTracker`).
    public var replyPath: [String]? = nil
    /// --reply-match: only a message that meets it is a reply.
    public var replyMatch: UntilCondition? = nil
    /// --until: end (exit 0) once this message has been written; a run that
    /// ends without it exits 1.
    public var until: UntilCondition? = nil
    /// --idle-timeout: end (exit 0) after this long without an incoming message.
    public var idleTimeoutNanos: Int64? = nil
    /// --max-reply-p99: the run fails (exit 8) when the 99th percentile of
    /// the reply latencies is above this.
    public var maxReplyP99Nanos: Int64? = nil
    /// The interactive mode's settings; nil when the client is not interactive.
    public var interactive: InteractiveSettings? = nil
    /// -w/--write-out: what to write about the run at its end.
    public var writeOut: WriteOutFormat? = nil

    public init() {}
}
